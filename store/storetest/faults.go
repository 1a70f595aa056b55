package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

// testFaultStore checks FaultStore over the adapter.
func (s *suite) testFaultStore(t *testing.T) {
	ctx := t.Context()
	putTwo := func(tx store.Tx) error {
		if err := tx.Put(b("b"), b("x"), b("1")); err != nil {
			return err
		}
		return tx.Put(b("b"), b("y"), b("2"))
	}

	t.Run("PassThrough", func(t *testing.T) {
		f := NewFaultStore(s.open(t))
		require.NoError(t, f.Update(ctx, putTwo))
		requireValue(t, f, "b", "x", "1")
		require.Equal(t, []kv{{"x", "1"}, {"y", "2"}}, dump(t, f, "b"))
		require.Zero(t, f.Injected())
	})

	t.Run("FailOp", func(t *testing.T) {
		f := NewFaultStore(s.open(t))
		f.FailOp(2) // the second Put
		err := f.Update(ctx, putTwo)
		require.ErrorIs(t, err, ErrInjected)
		require.EqualValues(t, 1, f.Injected())
		require.Empty(t, dump(t, f, "b"), "the Update that saw the fault wrote something")
		// The fault fires once; later Updates work.
		require.NoError(t, f.Update(ctx, putTwo))
		require.Equal(t, []kv{{"x", "1"}, {"y", "2"}}, dump(t, f, "b"))
		require.EqualValues(t, 1, f.Injected())
	})

	t.Run("FailOpCountsAcrossTransactions", func(t *testing.T) {
		f := NewFaultStore(s.open(t))
		put(t, f, "b", "a", "0") // not counted: armed below
		f.FailOp(4)
		require.NoError(t, f.Update(ctx, putTwo)) // ops 1, 2
		var gerr, serr error
		require.NoError(t, f.View(ctx, func(tx store.Tx) error {
			_, gerr = tx.Get(b("b"), b("x"))                                                                  // op 3
			serr = tx.Scan(b("b"), store.ScanOptions{}, func(_, _ []byte) (bool, error) { return true, nil }) // op 4
			return nil
		}))
		require.NoError(t, gerr)
		require.ErrorIs(t, serr, ErrInjected, "the fourth op is a Scan")
		require.EqualValues(t, 1, f.Injected())

		f.FailOp(1)
		err := f.Update(ctx, func(tx store.Tx) error { return tx.Delete(b("b"), b("x")) })
		require.ErrorIs(t, err, ErrInjected, "a failing Delete")
		requireValue(t, f, "b", "x", "1")
		f.FailOp(1)
		_, err = get(t, f, "b", "x")
		require.ErrorIs(t, err, ErrInjected, "a failing Get")
		require.EqualValues(t, 3, f.Injected())
	})

	t.Run("FailOpSwallowed", func(t *testing.T) {
		// fn ignores the injected error: the transaction cannot commit.
		f := NewFaultStore(s.open(t))
		f.FailOp(1)
		err := f.Update(ctx, func(tx store.Tx) error {
			assert.ErrorIs(t, tx.Put(b("b"), b("x"), b("1")), ErrInjected)
			assert.NoError(t, tx.Put(b("b"), b("y"), b("2")))
			return nil
		})
		require.ErrorIs(t, err, ErrInjected)
		require.Empty(t, dump(t, f, "b"))
	})

	t.Run("Disarm", func(t *testing.T) {
		f := NewFaultStore(s.open(t))
		f.FailOp(1)
		f.FailOp(0)
		f.FailCommit(1)
		f.FailCommit(0)
		require.NoError(t, f.Update(ctx, putTwo))
		require.Len(t, dump(t, f, "b"), 2)
		require.Zero(t, f.Injected())
	})

	t.Run("FailCommit", func(t *testing.T) {
		f := NewFaultStore(s.open(t))
		errBoom := errors.New("storetest: boom")
		f.FailCommit(2)
		put(t, f, "b", "first", "1") // commit 1
		// A failing fn is not a commit and does not count.
		require.ErrorIs(t, f.Update(ctx, func(store.Tx) error { return errBoom }), errBoom)
		err := f.Update(ctx, putTwo) // commit 2: fails
		require.ErrorIs(t, err, ErrInjected)
		require.EqualValues(t, 1, f.Injected())
		require.Equal(t, []kv{{"first", "1"}}, dump(t, f, "b"), "a failed commit wrote something")
		require.NoError(t, f.Update(ctx, putTwo))
		require.Equal(t, []kv{{"first", "1"}, {"x", "1"}, {"y", "2"}}, dump(t, f, "b"))
		// Views never count as commits.
		f.FailCommit(1)
		require.NoError(t, f.View(ctx, func(store.Tx) error { return nil }))
		require.ErrorIs(t, f.Update(ctx, func(tx store.Tx) error { return tx.Delete(b("b"), b("first")) }), ErrInjected)
		requireValue(t, f, "b", "first", "1")
		require.EqualValues(t, 2, f.Injected())
	})

	t.Run("Concurrent", func(t *testing.T) {
		// Under concurrent Updates exactly one op fault and one commit
		// fault fire, and only the two Updates that met them fail.
		f := NewFaultStore(s.open(t))
		const goroutines, perGoroutine = 8, 10
		f.FailOp(37)
		f.FailCommit(50)
		var mu sync.Mutex
		failed := 0
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range goroutines {
			wg.Go(func() {
				<-start
				for i := range perGoroutine {
					err := f.Update(ctx, func(tx store.Tx) error {
						return tx.Put(b("b"), b(fmt.Sprintf("%02d-%02d", g, i)), b("v"))
					})
					if err != nil {
						assert.ErrorIs(t, err, ErrInjected)
						mu.Lock()
						failed++
						mu.Unlock()
					}
				}
			})
		}
		close(start)
		wg.Wait()
		require.Equal(t, 2, failed)
		require.EqualValues(t, 2, f.Injected())
		require.Len(t, dump(t, f, "b"), goroutines*perGoroutine-2)
	})

	t.Run("Close", func(t *testing.T) {
		f := NewFaultStore(s.open(t))
		require.NoError(t, f.Close())
		require.ErrorIs(t, f.Update(ctx, putTwo), store.ErrClosed)
	})
}
