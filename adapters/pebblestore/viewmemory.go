package pebblestore

import (
	"bytes"
	"encoding/binary"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
)

// viewMemory is what Views have read, kept across snapshots for as long as
// no batch has written to the key's bucket. Every request's
// authentication reads the same rarely written records (an API key by its
// hash, the key, its organization, the pause switches), and a snapshot
// lasts one batch: the snapshot's own memory (published.values) serves
// them again only while one organization's requests share a snapshot.
// With a thousand organizations each reads its records once a snapshot,
// through the memtables and the levels. The view memory serves them from
// one map lookup until their bucket is written again.
//
// Why it is exact. The applier records, before it applies batch b, that b
// wrote to each of its buckets (lastWrite(bucket) = b.seq); Views see b
// only once its snapshot is published, after that. A View reads the
// snapshot of batch s (published.seq).
//
//   - It remembers a value v it read there only if lastWrite(bucket) <= s
//     when it remembers it: no batch after s, applied or not yet
//     published, has written to the bucket, so v is the key's value in
//     every state from lastWrite(bucket) on. It keeps w = lastWrite(bucket)
//     beside v.
//   - It answers from the memory only if lastWrite(bucket) is still w and
//     s >= w: no batch has written to the bucket since w, and its snapshot
//     holds batch w, so the key's value in its snapshot is v.
//
// lastWrite only grows (batches are applied in order), so a value
// remembered before a write can never be taken for one after it. A batch
// that fails after its lastWrite was recorded only makes the memory miss:
// lastWrite stays above every published snapshot.
//
// Only quiet buckets are remembered (last written at least quietBatches
// batches before the snapshot): a bucket written every batch (payouts,
// balances) would fill the memory with values that go stale at once. The
// memory holds at most maxViewMemory values and maxViewMemoryBytes of
// keys and values, none above maxRememberedValue, and starts over when
// full.
type viewMemory struct {
	wroteMu sync.Mutex // the applier's, to add a bucket
	// wrote maps a bucket to the seq of the last batch applied with a
	// write to it; copied on write, so that Views read it without a lock.
	// A bucket not in it has not been written since Open (0).
	wrote atomic.Pointer[map[string]*atomic.Int64]

	mu     sync.RWMutex
	values map[string]rememberedValue // pebble key -> what a View read
	bytes  int                        // of values' keys and values
}

// rememberedValue is a value read by a View and the last write to its
// bucket when it was read.
type rememberedValue struct {
	knownValue
	wrote int64
}

const (
	maxViewMemory      = 1 << 14
	maxViewMemoryBytes = 16 << 20
	maxRememberedValue = 16 << 10
	quietBatches       = 16
)

// lastWrite is the seq of the last batch applied with a write to bucket,
// or 0.
func (m *viewMemory) lastWrite(bucket []byte) int64 {
	if p := m.wrote.Load(); p != nil {
		if c := (*p)[string(bucket)]; c != nil {
			return c.Load()
		}
	}
	return 0
}

// recall returns what pebble key k of bucket holds in the snapshot of
// batch seq, if remembered and still true.
func (m *viewMemory) recall(bucket, k []byte, seq int64) (knownValue, bool) {
	w := m.lastWrite(bucket)
	if w > seq {
		return knownValue{}, false
	}
	m.mu.RLock()
	v, ok := m.values[string(k)]
	m.mu.RUnlock()
	if !ok || v.wrote != w {
		return knownValue{}, false
	}
	return v.knownValue, true
}

// remember keeps v, read under pebble key k of bucket in the snapshot of
// batch seq, if no batch after seq has written to bucket and bucket is
// quiet. v.value must never be written again.
func (m *viewMemory) remember(bucket, k []byte, seq int64, v knownValue) {
	w := m.lastWrite(bucket)
	if w > seq || (w != 0 && seq-w < quietBatches) || len(v.value) > maxRememberedValue {
		return
	}
	size := len(k) + len(v.value)
	m.mu.Lock()
	if m.values == nil || len(m.values) >= maxViewMemory || m.bytes+size > maxViewMemoryBytes {
		m.values, m.bytes = make(map[string]rememberedValue), 0
	}
	if old, ok := m.values[string(k)]; ok {
		m.bytes -= len(k) + len(old.value)
	}
	m.values[string(k)] = rememberedValue{knownValue: v, wrote: w}
	m.bytes += size
	m.mu.Unlock()
}

// wroteTo records that batch seq, about to be applied, writes the pebble
// keys ks (in key order). Only the applier calls it, in batch order.
func (m *viewMemory) wroteTo(seq int64, ks iter.Seq[[]byte]) {
	var prefix []byte // the last bucket's prefix (uvarint length, name)
	for k := range ks {
		if prefix != nil && bytes.HasPrefix(k, prefix) {
			continue // the same bucket: prefixes are self-delimiting (keys.go)
		}
		n, l := binary.Uvarint(k)
		if l <= 0 || n == 0 || uint64(len(k)-l) < n {
			prefix = nil
			continue // the store's own records
		}
		prefix = k[:l+int(n)]
		m.counter(k[l : l+int(n)]).Store(seq)
	}
}

// counter returns bucket's last-write counter, adding it when new.
func (m *viewMemory) counter(bucket []byte) *atomic.Int64 {
	if p := m.wrote.Load(); p != nil {
		if c := (*p)[string(bucket)]; c != nil {
			return c
		}
	}
	m.wroteMu.Lock()
	defer m.wroteMu.Unlock()
	old := m.wrote.Load()
	next := make(map[string]*atomic.Int64, 1)
	if old != nil {
		if c := (*old)[string(bucket)]; c != nil {
			return c
		}
		for b, c := range *old {
			next[b] = c
		}
	}
	c := new(atomic.Int64)
	next[string(bucket)] = c
	m.wrote.Store(&next)
	return c
}

// batchKeys yields the keys of pb's records, in pb's order.
func batchKeys(pb *pebble.Batch) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		r := pb.Reader()
		for {
			_, k, _, ok, err := r.Next()
			if err != nil || !ok || !yield(k) {
				return
			}
		}
	}
}
