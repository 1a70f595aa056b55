package txbuf

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/store"
)

// Reader is the read side of a transaction the buffer sits on.
type Reader interface {
	Get(bucket, key []byte) ([]byte, error)
	Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error
}

// Writer receives the buffered writes when they are applied. The slices
// it is given belong to the buffer's arena, which is never written again:
// a Writer may keep them.
type Writer interface {
	Put(bucket, key, value []byte) error
	Delete(bucket, key []byte) error
}

type write struct {
	b          int // the bucket's position in Tx.buckets
	key, value []byte
	deleted    bool
}

// indexAbove is how many writes a transaction holds before lookups go
// through a map instead of a linear search (most commands write fewer).
const indexAbove = 32

// Tx is a store.Tx whose writes are buffered over a base Reader.
//
// Keys and values are copied into one arena per transaction, so a Put
// costs no allocation of its own; the arena is never reused, which lets
// Apply hand its slices to a store that keeps them.
type Tx struct {
	base  Reader
	arena []byte
	// buckets are the names written to, in first-write order
	buckets [][]byte
	writes  []write        // one per (bucket, key), in first-write order
	index   map[string]int // bucket NUL key -> position, once writes > indexAbove
	ikey    []byte         // scratch for index lookups
	// defers says Defer takes updates (DeferUpdates), deferred are those
	// it took since the last Reset.
	defers   bool
	deferred []Deferred
	// used is how many bytes this transaction copied into arenas, and
	// sizeHint what the last transaction used: a reused Tx sizes its
	// first arena to it, so a command of the usual shape fills one arena
	// instead of growing through several (all of which a store that keeps
	// the slices would keep alive).
	used, sizeHint int
}

// New returns a buffer over base.
func New(base Reader) *Tx { return &Tx{base: base} }

// Reset empties the buffer and sets a new base, so a Tx can be reused.
func (t *Tx) Reset(base Reader) {
	t.base = base
	clear(t.writes) // drop references into the old arena
	t.writes = t.writes[:0]
	clear(t.buckets)
	t.buckets = t.buckets[:0]
	t.index = nil
	clear(t.deferred)
	t.deferred = t.deferred[:0]
	t.arena = nil
	if t.used > 0 {
		t.sizeHint = t.used + t.used/16
	}
	t.used = 0
}

// Len reports how many keys are buffered.
func (t *Tx) Len() int { return len(t.writes) }

// copyIn copies b into the arena and returns the copy, its capacity
// clipped so nobody's append can reach the next one.
func (t *Tx) copyIn(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	if cap(t.arena)-len(t.arena) < len(b) {
		// A fresh arena; slices handed out from the old one stay valid.
		size := max(512, 2*cap(t.arena), len(b))
		if t.arena == nil && t.sizeHint > size {
			size = t.sizeHint
		}
		t.arena = make([]byte, 0, size)
	}
	t.used += len(b)
	n := len(t.arena)
	t.arena = append(t.arena, b...)
	return t.arena[n:len(t.arena):len(t.arena)]
}

// indexKey is the hash index's key of bucket/key: the bucket's length
// first, so that no two (bucket, key) pairs share one (with a separator
// byte instead, "\x00"+"\x00\xff" and "\x00\x00"+"\xff" did).
func (t *Tx) indexKey(bucket, key []byte) []byte {
	t.ikey = append(append(binary.AppendUvarint(t.ikey[:0], uint64(len(bucket))), bucket...), key...)
	return t.ikey
}

// bucketIndex returns bucket's position in t.buckets, or -1.
func (t *Tx) bucketIndex(bucket []byte) int {
	for i, b := range t.buckets {
		if bytes.Equal(b, bucket) {
			return i
		}
	}
	return -1
}

// find returns the position of bucket/key among the writes, or -1.
func (t *Tx) find(bucket, key []byte) int {
	bi := t.bucketIndex(bucket)
	if bi < 0 {
		return -1
	}
	if t.index != nil {
		if i, ok := t.index[string(t.indexKey(bucket, key))]; ok {
			return i
		}
		return -1
	}
	for i := len(t.writes) - 1; i >= 0; i-- {
		if w := &t.writes[i]; w.b == bi && bytes.Equal(w.key, key) {
			return i
		}
	}
	return -1
}

func (t *Tx) Get(bucket, key []byte) ([]byte, error) {
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	if i := t.find(bucket, key); i >= 0 {
		w := &t.writes[i]
		if w.deleted {
			return nil, store.ErrNotFound
		}
		return bytes.Clone(w.value), nil
	}
	return t.base.Get(bucket, key)
}

// Lend is Get without the copy (lend.Lender): a buffered value lies in
// an arena that is never written again, and a committed one is lent by
// the base when it can lend, else copied.
func (t *Tx) Lend(bucket, key []byte) ([]byte, error) {
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	if i := t.find(bucket, key); i >= 0 {
		w := &t.writes[i]
		if w.deleted {
			return nil, store.ErrNotFound
		}
		return w.value, nil
	}
	return lend.Get(t.base, bucket, key)
}

// Prefetch passes keys on to the base (store.Prefetcher) when it reads
// ahead. A key written in this buffer is read from the base too, which
// is harmless: Prefetch is a hint.
func (t *Tx) Prefetch(keys []store.KeyRef) bool {
	if p, ok := t.base.(store.Prefetcher); ok {
		return p.Prefetch(keys)
	}
	return false
}

// Deferred is an update of a key that Defer took (store.Deferrer).
type Deferred struct {
	Bucket, Key []byte
	Update      store.Deferred
}

// DeferUpdates sets whether Defer takes updates (until it is set again;
// Reset keeps it): the owner of a buffer that does applies Deferred's
// updates when it takes the buffer's writes. Off, Defer takes none.
func (t *Tx) DeferUpdates(on bool) { t.defers = on }

// Defer takes update (store.Deferrer) when DeferUpdates is on, copying
// bucket and key, and reports whether it did.
func (t *Tx) Defer(bucket, key []byte, update store.Deferred) bool {
	if !t.defers {
		return false
	}
	t.deferred = append(t.deferred, Deferred{Bucket: t.copyIn(bucket), Key: t.copyIn(key), Update: update})
	return true
}

// Deferred returns the updates Defer took since the last Reset, in the
// order it took them.
func (t *Tx) Deferred() []Deferred { return t.deferred }

func (t *Tx) set(bucket, key, value []byte, deleted bool) {
	if i := t.find(bucket, key); i >= 0 {
		w := &t.writes[i]
		w.value, w.deleted = nil, deleted
		if !deleted {
			w.value = t.copyIn(value)
		}
		return
	}
	bi := t.bucketIndex(bucket)
	if bi < 0 {
		bi = len(t.buckets)
		t.buckets = append(t.buckets, t.copyIn(bucket))
	}
	w := write{b: bi, key: t.copyIn(key), deleted: deleted}
	if !deleted {
		w.value = t.copyIn(value)
	}
	t.appendWrite(w)
}

func (t *Tx) appendWrite(w write) {
	t.writes = append(t.writes, w)
	switch n := len(t.writes); {
	case n == indexAbove+1:
		t.index = make(map[string]int, 2*n)
		for i := range t.writes {
			t.index[string(t.indexKey(t.buckets[t.writes[i].b], t.writes[i].key))] = i
		}
	case n > indexAbove+1:
		t.index[string(t.indexKey(t.buckets[w.b], w.key))] = n - 1
	}
}

func (t *Tx) Put(bucket, key, value []byte) error {
	if err := store.CheckPut(bucket, key, value); err != nil {
		return err
	}
	t.set(bucket, key, value, false)
	return nil
}

func (t *Tx) Delete(bucket, key []byte) error {
	if err := store.CheckKey(bucket, key); err != nil {
		return err
	}
	t.set(bucket, key, nil, true)
	return nil
}

// Scan merges the buffered writes of bucket with the base's keys.
func (t *Tx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	var mine []*write
	if bi := t.bucketIndex(bucket); bi >= 0 {
		for i := range t.writes {
			if w := &t.writes[i]; w.b == bi && opt.InRange(w.key) {
				mine = append(mine, w)
			}
		}
	}
	if len(mine) == 0 {
		return t.base.Scan(bucket, opt, fn)
	}
	slices.SortFunc(mine, func(a, b *write) int {
		if opt.Reverse {
			return bytes.Compare(b.key, a.key)
		}
		return bytes.Compare(a.key, b.key)
	})
	before := func(a, b []byte) bool { // a comes before b in scan order
		if opt.Reverse {
			return bytes.Compare(a, b) > 0
		}
		return bytes.Compare(a, b) < 0
	}
	i := 0
	stopped := false
	emitBuffered := func(limit []byte) (bool, error) {
		for i < len(mine) && (limit == nil || before(mine[i].key, limit)) {
			w := mine[i]
			i++
			if w.deleted {
				continue
			}
			more, err := fn(bytes.Clone(w.key), bytes.Clone(w.value))
			if err != nil || !more {
				return false, err
			}
		}
		return true, nil
	}
	err := t.base.Scan(bucket, opt, func(key, value []byte) (bool, error) {
		more, err := emitBuffered(key)
		if err != nil || !more {
			stopped = true
			return false, err
		}
		if i < len(mine) && bytes.Equal(mine[i].key, key) {
			w := mine[i]
			i++ // the buffer shadows this key
			if w.deleted {
				return true, nil
			}
			value = bytes.Clone(w.value)
		}
		more, err = fn(key, value)
		if !more || err != nil {
			stopped = true
		}
		return more, err
	})
	if err != nil || stopped {
		return err
	}
	_, err = emitBuffered(nil)
	return err
}

// Apply writes the buffered changes to w, bucket by bucket in first-write
// order and keys in ascending order. It only reads the buffer, so it may
// run while another goroutine reads the same buffer.
func (t *Tx) Apply(w Writer) error {
	// The order of a command of the usual size is kept on the stack.
	var small [64]int
	order := small[:0]
	if len(t.writes) > len(small) {
		order = make([]int, 0, len(t.writes))
	}
	for i := range t.writes {
		order = append(order, i)
	}
	slices.SortFunc(order, func(a, b int) int {
		wa, wb := &t.writes[a], &t.writes[b]
		if wa.b != wb.b {
			return wa.b - wb.b
		}
		return bytes.Compare(wa.key, wb.key)
	})
	for _, i := range order {
		wr := &t.writes[i]
		bucket := t.buckets[wr.b]
		var err error
		if wr.deleted {
			err = w.Delete(bucket, wr.key)
		} else {
			err = w.Put(bucket, wr.key, wr.value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Merge moves from's writes into t, as if from had been applied to t,
// without copying: from's arena is never written again, so t shares it.
// from is empty afterwards.
func (t *Tx) Merge(from *Tx) {
	for i := range from.writes {
		w := &from.writes[i]
		bucket := from.buckets[w.b]
		if j := t.find(bucket, w.key); j >= 0 {
			t.writes[j].value, t.writes[j].deleted = w.value, w.deleted
			continue
		}
		bi := t.bucketIndex(bucket)
		if bi < 0 {
			bi = len(t.buckets)
			t.buckets = append(t.buckets, bucket)
		}
		t.appendWrite(write{b: bi, key: w.key, value: w.value, deleted: w.deleted})
	}
	from.Reset(from.base)
}

// Rebase sets the base the buffer reads through, keeping its writes.
func (t *Tx) Rebase(base Reader) { t.base = base }
