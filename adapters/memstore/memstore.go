package memstore

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"unsafe"

	"github.com/google/btree"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

func less(a, b []byte) bool { return bytes.Compare(a, b) < 0 }

// bucket keeps values in a hash map, for point reads and overwrites (most
// of the traffic), and keys in a B-tree, for ordered scans; an overwrite
// touches only the map. The B-tree is built at the bucket's first scan and
// kept from then on: a bucket that is only read by key (most of what a
// command writes: records by id, balances, idempotency outcomes) never
// pays for one.
type bucket struct {
	values map[string][]byte
	build  sync.Mutex // held by a reader building keys; writers hold the store's lock
	keys   *btree.BTreeG[[]byte]
}

// ordered returns the bucket's B-tree, building it on first use. Readers
// share the store's read lock, so the build has a lock of its own.
func (b *bucket) ordered() *btree.BTreeG[[]byte] {
	b.build.Lock()
	defer b.build.Unlock()
	if b.keys == nil {
		keys := make([][]byte, 0, len(b.values))
		for k := range b.values {
			keys = append(keys, unsafe.Slice(unsafe.StringData(k), len(k)))
		}
		slices.SortFunc(keys, bytes.Compare)
		t := btree.NewG(32, less)
		for _, k := range keys {
			t.ReplaceOrInsert(k)
		}
		b.keys = t
	}
	return b.keys
}

// Store is an in-memory store.Store. The zero value is not usable; call New.
type Store struct {
	mu      sync.RWMutex
	closed  bool
	buckets map[string]*bucket
	buf     txbuf.Tx // reused by the serialized writers
	wr      writer   // likewise
}

var _ store.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{buckets: make(map[string]*bucket)}
}

// View runs fn over a consistent view of committed data.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return store.ErrClosed
	}
	return fn(readTx{s})
}

// Update runs fn with its writes buffered, and applies them when fn returns nil.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	s.buf.Reset(readTx{s})
	defer s.buf.Reset(nil)
	if err := fn(&s.buf); err != nil {
		return err
	}
	s.wr = writer{s: s}
	defer func() { s.wr = writer{} }() // keeps no bucket or arena alive
	return s.buf.Apply(&s.wr)
}

// Close empties the store; later calls return store.ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	s.closed = true
	s.buckets = nil
	return nil
}

// readTx reads committed data; the caller holds the lock.
type readTx struct{ s *Store }

func (r readTx) Get(bucket, key []byte) ([]byte, error) {
	v, err := r.Lend(bucket, key)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(v), nil
}

// Lend is Get without the copy, for the transaction buffer's Lend: a
// stored value is replaced on a write, never changed in place.
func (r readTx) Lend(bucket, key []byte) ([]byte, error) {
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	b := r.s.buckets[string(bucket)]
	if b == nil {
		return nil, store.ErrNotFound
	}
	v, ok := b.values[string(key)]
	if !ok {
		return nil, store.ErrNotFound
	}
	return v, nil
}

func (readTx) Put(_, _, _ []byte) error { return store.ErrReadOnly }
func (readTx) Delete(_, _ []byte) error { return store.ErrReadOnly }

func (r readTx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	b := r.s.buckets[string(bucket)]
	if b == nil {
		return nil
	}
	t := b.ordered()
	lower, upper := opt.Lower(), opt.Upper()
	var err error
	visit := func(key []byte) bool {
		if !opt.InRange(key) {
			// Outside the bounds: past the end means stop, otherwise skip.
			if opt.Reverse {
				return lower == nil || bytes.Compare(key, lower) >= 0
			}
			return upper == nil || bytes.Compare(key, upper) < 0
		}
		var more bool
		more, err = fn(bytes.Clone(key), bytes.Clone(b.values[string(key)]))
		return more && err == nil
	}
	switch {
	case !opt.Reverse && lower != nil:
		t.AscendGreaterOrEqual(lower, visit)
	case !opt.Reverse:
		t.Ascend(visit)
	case upper != nil:
		// DescendLessOrEqual includes upper itself, which InRange excludes.
		t.DescendLessOrEqual(upper, visit)
	default:
		t.Descend(visit)
	}
	return err
}

// writer applies a committed buffer; the caller holds the write lock. The
// buffer's slices are never written again, so they are kept as they are.
// The buffer applies its writes bucket by bucket, so the writer keeps the
// bucket it wrote to last rather than looking it up for every key.
type writer struct {
	s    *Store
	name []byte  // the name of last, in the buffer's arena
	last *bucket // nil before the first write
}

// bucket returns the bucket called name; create makes a missing one,
// else it is nil.
func (w *writer) bucket(name []byte, create bool) *bucket {
	if w.last != nil && bytes.Equal(w.name, name) {
		return w.last
	}
	b := w.s.buckets[string(name)]
	if b == nil {
		if !create {
			return nil
		}
		b = &bucket{values: make(map[string][]byte)}
		w.s.buckets[string(name)] = b
	}
	w.name, w.last = name, b
	return b
}

func (w *writer) Put(bucketName, key, value []byte) error {
	b := w.bucket(bucketName, true)
	// The key belongs to the buffer's arena and is never written again, so
	// the map shares its bytes instead of copying them into a string; an
	// overwrite goes through the same shared string, because assigning
	// through string(key) would copy the key on every overwrite.
	k := unsafe.String(unsafe.SliceData(key), len(key))
	if b.keys == nil { // no ordered keys to keep: one map write
		b.values[k] = value
		return nil
	}
	_, had := b.values[k]
	b.values[k] = value
	if !had {
		b.keys.ReplaceOrInsert(key)
	}
	return nil
}

func (w *writer) Delete(bucketName, key []byte) error {
	if b := w.bucket(bucketName, false); b != nil {
		if _, ok := b.values[string(key)]; ok {
			delete(b.values, string(key))
			if b.keys != nil {
				b.keys.Delete(key)
			}
		}
	}
	return nil
}
