package pebblestore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/tambalapay/tambala/store"
)

// The keyspace. Every bucket's keys live in pebble's one keyspace behind the
// bucket's prefix, uvarint(len(bucket)) followed by the bucket's name:
//
//	uvarint(len(bucket)) | bucket | key
//
// A uvarint is self-delimiting, so no bucket's prefix is a proper prefix of
// another's: two prefixes of different buckets differ at some byte within
// the shorter one, which orders every key of the one bucket before every
// key of the other. A bucket's keys are therefore contiguous, and within the
// bucket they sort by their own bytes, as the port requires, whatever bytes
// (0x00, 0xff) names and keys hold. The byte 0x00, the uvarint of an empty
// name, which the port forbids, leads the store's own records.
var formatKey = []byte("\x00format")

// formatVersion is the layout written under formatKey; Open refuses any
// other.
const formatVersion = "pebblestore/1"

// appendPrefix appends bucket's prefix to dst.
func appendPrefix(dst, bucket []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(bucket)))
	return append(dst, bucket...)
}

// appendKey appends the pebble key of bucket/key to dst.
func appendKey(dst, bucket, key []byte) []byte {
	return append(appendPrefix(dst, bucket), key...)
}

// clone copies b; the copy of an empty slice is empty, not nil.
func clone(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }

// reader reads buckets through a pebble.Reader: a published snapshot in
// View, the open indexed batch (its writes over the database's latest
// state) in Update. It is used by one goroutine at a time.
type reader struct {
	r   pebble.Reader
	key []byte // scratch for Get's pebble key
}

func (r *reader) Get(bucket, key []byte) ([]byte, error) {
	k, err := r.keyOf(bucket, key)
	if err != nil {
		return nil, err
	}
	v, found, err := r.lookup(k)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, store.ErrNotFound
	}
	return v, nil
}

// keyOf checks bucket and key and returns their pebble key in the reader's
// scratch; store.ErrNotFound for a key no Put could have stored.
func (r *reader) keyOf(bucket, key []byte) ([]byte, error) {
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	if len(bucket) > store.MaxKeySize || len(key) > store.MaxKeySize {
		return nil, store.ErrNotFound // no Put could have stored it
	}
	r.key = appendKey(r.key[:0], bucket, key)
	return r.key, nil
}

// lookup reads the pebble key k, returning a copy of its value.
func (r *reader) lookup(k []byte) (value []byte, found bool, err error) {
	v, closer, err := r.r.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("pebblestore: get: %w", err)
	}
	out := clone(v)
	if err := closer.Close(); err != nil {
		return nil, false, fmt.Errorf("pebblestore: get: %w", err)
	}
	return out, true, nil
}

func (r *reader) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) (err error) {
	if len(bucket) == 0 || len(bucket) > store.MaxKeySize {
		return nil // no such bucket can exist
	}
	lower, upper := opt.Lower(), opt.Upper()
	if upper != nil && bytes.Compare(lower, upper) >= 0 {
		return nil // empty range (a nil lower compares as the empty key)
	}
	// The bounds are the iterator's until it closes: fresh slices, never
	// the Get scratch, which fn may reuse through a nested Get.
	prefix := appendPrefix(nil, bucket)
	n := len(prefix)
	lo := append(prefix[:n:n], lower...)
	var hi []byte
	if upper != nil {
		hi = append(prefix[:n:n], upper...)
	} else {
		hi = store.PrefixEnd(prefix) // never nil: a uvarint's last byte is below 0x80
	}
	it, err := r.r.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return fmt.Errorf("pebblestore: scan: %w", err)
	}
	defer func() {
		if cerr := it.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("pebblestore: scan: %w", cerr)
		}
	}()
	// Forward, NextPrefix rather than Next: the default comparer's prefix
	// is the whole key, so it moves to the next key as Next does, but
	// after a few steps it seeks past the older versions of a key that
	// the memtable holds (one per batch that overwrote it) instead of
	// stepping over each.
	step := it.NextPrefix
	ok := false
	if opt.Reverse {
		step = it.Prev
		ok = it.Last()
	} else {
		ok = it.First()
	}
	for ; ok; ok = step() {
		k := it.Key()[n:]
		if !opt.InRange(k) {
			continue // outside the bounds: cannot happen, the iterator's bounds are the scan's
		}
		v, verr := it.ValueAndErr()
		if verr != nil {
			return fmt.Errorf("pebblestore: scan: %w", verr)
		}
		more, ferr := fn(clone(k), clone(v))
		if ferr != nil || !more {
			return ferr
		}
	}
	if ierr := it.Error(); ierr != nil {
		return fmt.Errorf("pebblestore: scan: %w", ierr)
	}
	return nil
}

// viewTx is View's read-only transaction.
type viewTx struct {
	reader // over pub.snap
	pub    *published
	mem    *viewMemory
}

// Get reads the snapshot, through what Views have read: in this snapshot,
// or in an earlier one where nothing has written to the bucket since
// (viewMemory).
func (t *viewTx) Get(bucket, key []byte) ([]byte, error) {
	k, err := t.keyOf(bucket, key)
	if err != nil {
		return nil, err
	}
	if v, ok := t.mem.recall(bucket, k, t.pub.seq); ok {
		return v.answer()
	}
	if v, ok := t.pub.values.Load(string(k)); ok {
		return v.(knownValue).answer()
	}
	v, found, err := t.lookup(k)
	if err != nil {
		return nil, err
	}
	known := knownValue{value: clone(v), present: found}
	t.mem.remember(bucket, k, t.pub.seq, known)
	if t.pub.entries.Load() < maxSnapValues {
		t.pub.entries.Add(1)
		t.pub.values.Store(string(k), known)
	}
	if !found {
		return nil, store.ErrNotFound
	}
	return v, nil
}

func (*viewTx) Put(_, _, _ []byte) error { return store.ErrReadOnly }
func (*viewTx) Delete(_, _ []byte) error { return store.ErrReadOnly }

// batchWriter applies one update's buffered writes to the open batch, and
// remembers them as the latest values. value slices come from txbuf's
// arena, which is never written again, so they are kept without a copy.
type batchWriter struct {
	pb     *pebble.Batch
	key    *[]byte // scratch for the pebble key; Set copies it
	latest *latestValues
}

func (w batchWriter) Put(bucket, key, value []byte) error {
	*w.key = appendKey((*w.key)[:0], bucket, key)
	if err := w.pb.Set(*w.key, value, nil); err != nil {
		return err
	}
	w.latest.remember(*w.key, value, true)
	return nil
}

func (w batchWriter) Delete(bucket, key []byte) error {
	*w.key = appendKey((*w.key)[:0], bucket, key)
	if err := w.pb.Delete(*w.key, nil); err != nil {
		return err
	}
	w.latest.remember(*w.key, nil, false)
	return nil
}
