package memstore

import (
	"bytes"
	"context"
	"sync"

	"github.com/google/btree"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

type item struct {
	key, value []byte
}

func less(a, b item) bool { return bytes.Compare(a.key, b.key) < 0 }

// Store is an in-memory store.Store. The zero value is not usable; call New.
type Store struct {
	mu      sync.RWMutex
	closed  bool
	buckets map[string]*btree.BTreeG[item]
	buf     txbuf.Tx // reused by the serialized writers
}

var _ store.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{buckets: make(map[string]*btree.BTreeG[item])}
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
	return s.buf.Apply(writer{s})
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
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	t := r.s.buckets[string(bucket)]
	if t == nil {
		return nil, store.ErrNotFound
	}
	it, ok := t.Get(item{key: key})
	if !ok {
		return nil, store.ErrNotFound
	}
	return bytes.Clone(it.value), nil
}

func (readTx) Put(_, _, _ []byte) error { return store.ErrReadOnly }
func (readTx) Delete(_, _ []byte) error { return store.ErrReadOnly }

func (r readTx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	t := r.s.buckets[string(bucket)]
	if t == nil {
		return nil
	}
	lower, upper := opt.Lower(), opt.Upper()
	var err error
	visit := func(it item) bool {
		if !opt.InRange(it.key) {
			// Outside the bounds: past the end means stop, otherwise skip.
			if opt.Reverse {
				return lower == nil || bytes.Compare(it.key, lower) >= 0
			}
			return upper == nil || bytes.Compare(it.key, upper) < 0
		}
		var more bool
		more, err = fn(bytes.Clone(it.key), bytes.Clone(it.value))
		return more && err == nil
	}
	switch {
	case !opt.Reverse && lower != nil:
		t.AscendGreaterOrEqual(item{key: lower}, visit)
	case !opt.Reverse:
		t.Ascend(visit)
	case upper != nil:
		// DescendLessOrEqual includes upper itself, which InRange excludes.
		t.DescendLessOrEqual(item{key: upper}, visit)
	default:
		t.Descend(visit)
	}
	return err
}

// writer applies a committed buffer; the caller holds the write lock.
type writer struct{ s *Store }

func (w writer) Put(bucket, key, value []byte) error {
	t := w.s.buckets[string(bucket)]
	if t == nil {
		t = btree.NewG(32, less)
		w.s.buckets[string(bucket)] = t
	}
	t.ReplaceOrInsert(item{key: bytes.Clone(key), value: value})
	return nil
}

func (w writer) Delete(bucket, key []byte) error {
	if t := w.s.buckets[string(bucket)]; t != nil {
		t.Delete(item{key: key})
	}
	return nil
}
