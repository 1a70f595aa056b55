package storetest

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

// The lazy commit (store.Lazy), through store.UpdateLazy: on an adapter
// that is not Lazy these check the fallback to Update, which keeps every
// promise a lazy commit makes.

// lazyPut commits one key through store.UpdateLazy.
func lazyPut(t testing.TB, st store.Store, bucket, key, value string) {
	t.Helper()
	require.NoError(t, store.UpdateLazy(t.Context(), st, func(tx store.Tx) error {
		return tx.Put(b(bucket), b(key), b(value))
	}))
}

// readInUpdate reads bucket/key in an Update (which writes marker, so that
// it commits on every adapter) and returns the value, or the error.
func readInUpdate(t testing.TB, st store.Store, bucket, key, marker string) (string, error) {
	t.Helper()
	var v []byte
	var gerr error
	require.NoError(t, st.Update(t.Context(), func(tx store.Tx) error {
		v, gerr = tx.Get(b(bucket), b(key))
		return tx.Put(b("marker"), b(marker), b("1"))
	}))
	return string(v), gerr
}

// testLazyVisible checks that a lazy commit is seen by the Updates and
// lazy commits begun after it returned, and by Views once an Update begun
// after it has returned.
func (s *suite) testLazyVisible(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	put(t, st, "b", "old", "0")
	lazyPut(t, st, "b", "q", "1")

	v, err := readInUpdate(t, st, "b", "q", "m1")
	require.NoError(t, err, "an Update after UpdateLazy returned must see its write")
	require.Equal(t, "1", v)
	requireValue(t, st, "b", "q", "1")

	// A lazy commit reads lazy and durable commits, and what it reads it
	// may change; an Update then sees the change.
	require.NoError(t, store.UpdateLazy(ctx, st, func(tx store.Tx) error {
		got, err := tx.Get(b("b"), b("q"))
		if err != nil {
			return err
		}
		if _, err := tx.Get(b("b"), b("old")); err != nil {
			return err
		}
		if err := tx.Delete(b("b"), b("old")); err != nil {
			return err
		}
		return tx.Put(b("b"), b("q"), append(got, '2'))
	}))
	v, err = readInUpdate(t, st, "b", "q", "m2")
	require.NoError(t, err)
	require.Equal(t, "12", v)
	_, err = readInUpdate(t, st, "b", "old", "m3")
	require.ErrorIs(t, err, store.ErrNotFound, "a lazy Delete must be seen by a later Update")
	require.Equal(t, []kv{{"q", "12"}}, dump(t, st, "b"))
}

// testLazyRollback checks that a lazy commit whose fn fails or panics
// leaves no trace and returns fn's error (or panic) unchanged.
func (s *suite) testLazyRollback(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	put(t, st, "b", "keep", "1")
	errBoom := errors.New("storetest: lazy boom")
	err := store.UpdateLazy(ctx, st, func(tx store.Tx) error {
		if err := tx.Put(b("b"), b("new"), b("x")); err != nil {
			return err
		}
		if err := tx.Put(b("b"), b("keep"), b("changed")); err != nil {
			return err
		}
		return errBoom
	})
	require.Same(t, errBoom, err, "UpdateLazy must return fn's error unchanged")

	boom := &panicValue{"storetest: panic in a lazy fn"}
	got := func() (recovered any) {
		defer func() { recovered = recover() }()
		_ = store.UpdateLazy(ctx, st, func(tx store.Tx) error {
			_ = tx.Put(b("b"), b("panicked"), b("x"))
			panic(boom)
		})
		return nil
	}()
	require.Same(t, boom, got, "a panic in UpdateLazy's fn must propagate out of it")

	_, err = readInUpdate(t, st, "b", "new", "m1")
	require.ErrorIs(t, err, store.ErrNotFound, "a rolled-back lazy commit wrote")
	require.Equal(t, []kv{{"keep", "1"}}, dump(t, st, "b"))

	// The store still works.
	lazyPut(t, st, "b", "after", "2")
	_, err = readInUpdate(t, st, "b", "after", "m2")
	require.NoError(t, err)
	require.Equal(t, []kv{{"after", "2"}, {"keep", "1"}}, dump(t, st, "b"))
}

// testLazySerializable checks that concurrent read-modify-write lazy
// commits and Updates of one counter lose no increment, and that each
// goroutine's own keys, written by both, all commit.
func (s *suite) testLazySerializable(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	const goroutines, perGoroutine = 12, 30
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for i := range perGoroutine {
				fn := func(tx store.Tx) error {
					if err := increment(tx, "b", "counter"); err != nil {
						return err
					}
					return tx.Put(b("own"), b(fmt.Sprintf("g%02d-%03d", g, i)), b("v"))
				}
				var err error
				if (g+i)%2 == 0 {
					err = store.UpdateLazy(ctx, st, fn)
				} else {
					err = st.Update(ctx, fn)
				}
				if !assert.NoError(t, err) {
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	v, err := readInUpdate(t, st, "b", "counter", "m")
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(goroutines*perGoroutine), v)
	require.Len(t, dump(t, st, "own"), goroutines*perGoroutine)
}

// testLazyPersistence checks that lazy commits survive Close and reopen,
// both one that a durable Update read and the last one before Close.
func (s *suite) testLazyPersistence(t *testing.T) {
	if !s.f.Persistent {
		t.Skip("adapter is not persistent")
	}
	dir := t.TempDir()
	st := s.openAt(t, dir)
	lazyPut(t, st, "b", "read", "1")
	_, err := readInUpdate(t, st, "b", "read", "m")
	require.NoError(t, err)
	lazyPut(t, st, "b", "last", "2")
	require.NoError(t, st.Close())

	st = s.openAt(t, dir)
	require.Equal(t, []kv{{"last", "2"}, {"read", "1"}}, dump(t, st, "b"))
	require.Equal(t, []kv{{"m", "1"}}, dump(t, st, "marker"))
}

// testLazy runs the lazy commit's checks.
func (s *suite) testLazy(t *testing.T) {
	t.Run("Visible", s.testLazyVisible)
	t.Run("Rollback", s.testLazyRollback)
	t.Run("Serializable", s.testLazySerializable)
	t.Run("Persistence", s.testLazyPersistence)
}
