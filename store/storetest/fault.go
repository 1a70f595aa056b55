package storetest

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/tambalapay/tambala/store"
)

// ErrInjected is the error a FaultStore returns for an injected fault.
var ErrInjected = errors.New("storetest: injected fault")

// FaultStore wraps a store.Store and fails a chosen operation or commit, so
// that tests can check what the code above the port does when the backend
// fails. It is safe for concurrent use.
//
// A transaction in which an operation fault fired cannot commit (as in
// PostgreSQL, where a failed statement aborts the transaction): if fn
// swallows the ErrInjected and returns nil, Update still fails with
// ErrInjected and writes nothing.
type FaultStore struct {
	inner    store.Store
	opIn     atomic.Int64 // ops until the armed op fault; 0 when disarmed
	commitIn atomic.Int64 // commits until the armed commit fault; 0 when disarmed
	injected atomic.Int64
}

var _ store.Store = (*FaultStore)(nil)

// NewFaultStore returns a FaultStore over inner with no fault armed.
func NewFaultStore(inner store.Store) *FaultStore { return &FaultStore{inner: inner} }

// FailOp arms an operation fault: the n-th Get, Put, Delete or Scan call
// from now (1-based, counted over every transaction of the store) returns
// ErrInjected without reaching the inner store. n <= 0 disarms.
func (f *FaultStore) FailOp(n int64) { f.opIn.Store(max(n, 0)) }

// FailCommit arms a commit fault: the n-th Update from now whose fn returns
// nil fails with ErrInjected instead of committing. It is implemented by
// returning ErrInjected from the function passed to the inner store's
// Update, so the inner store rolls back. An fn that the inner store runs
// again counts once per run. n <= 0 disarms.
func (f *FaultStore) FailCommit(n int64) { f.commitIn.Store(max(n, 0)) }

// Injected reports how many faults have fired.
func (f *FaultStore) Injected() int64 { return f.injected.Load() }

// fire counts one event against c and reports whether it is the armed one.
func (f *FaultStore) fire(c *atomic.Int64) bool {
	for {
		n := c.Load()
		if n <= 0 {
			return false
		}
		if c.CompareAndSwap(n, n-1) {
			if n == 1 {
				f.injected.Add(1)
				return true
			}
			return false
		}
	}
}

// View passes through to the inner store, counting the operations of fn.
func (f *FaultStore) View(ctx context.Context, fn func(store.Tx) error) error {
	return f.inner.View(ctx, func(tx store.Tx) error {
		return fn(&faultTx{tx: tx, f: f})
	})
}

// Update passes through to the inner store, counting the operations of fn
// and its commits.
func (f *FaultStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return f.inner.Update(ctx, func(tx store.Tx) error {
		ftx := &faultTx{tx: tx, f: f}
		if err := fn(ftx); err != nil {
			return err
		}
		if ftx.faulted {
			return ErrInjected
		}
		if f.fire(&f.commitIn) {
			return ErrInjected
		}
		return nil
	})
}

// Close closes the inner store.
func (f *FaultStore) Close() error { return f.inner.Close() }

type faultTx struct {
	tx      store.Tx
	f       *FaultStore
	faulted bool
}

func (t *faultTx) fault() bool {
	if t.f.fire(&t.f.opIn) {
		t.faulted = true
		return true
	}
	return false
}

func (t *faultTx) Get(bucket, key []byte) ([]byte, error) {
	if t.fault() {
		return nil, ErrInjected
	}
	return t.tx.Get(bucket, key)
}

// Prefetch passes keys on: a hint, which no fault is injected into (the
// Gets that follow it are).
func (t *faultTx) Prefetch(keys []store.KeyRef) bool { return store.Prefetch(t.tx, keys) }

func (t *faultTx) Put(bucket, key, value []byte) error {
	if t.fault() {
		return ErrInjected
	}
	return t.tx.Put(bucket, key, value)
}

func (t *faultTx) Delete(bucket, key []byte) error {
	if t.fault() {
		return ErrInjected
	}
	return t.tx.Delete(bucket, key)
}

func (t *faultTx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	if t.fault() {
		return ErrInjected
	}
	return t.tx.Scan(bucket, opt, fn)
}
