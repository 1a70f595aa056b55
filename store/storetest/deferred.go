package storetest

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

// AddOne is a deferred update (store.Deferred) that adds one to a
// counter stored as decimal text, 1 when missing; it fails on a value
// that is not a number.
func AddOne(old []byte, found bool) ([]byte, error) {
	n := 0
	if found {
		var err error
		if n, err = strconv.Atoi(string(old)); err != nil {
			return nil, err
		}
	}
	return strconv.AppendInt(nil, int64(n+1), 10), nil
}

// bump adds one to the counter at bucket/key through store.Defer, or at
// once when the transaction does not defer, as the engine's counters do.
func bump(tx store.Tx, bucket, key []byte) error {
	if store.Defer(tx, bucket, key, AddOne) {
		return nil
	}
	old, err := tx.Get(bucket, key)
	found := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	v, err := AddOne(old, found)
	if err != nil {
		return err
	}
	return tx.Put(bucket, key, v)
}

// testDefer: a counter that every Update bumps through store.Defer counts
// every Update that committed, and none that failed; an update that fails
// fails its Update, with nothing of it written.
func (s *suite) testDefer(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	const n = 64
	var wg sync.WaitGroup
	errOdd := errors.New("odd ones fail")
	for i := range n {
		wg.Go(func() {
			err := st.Update(ctx, func(tx store.Tx) error {
				key := []byte("item-" + strconv.Itoa(i))
				if _, err := tx.Get(b("items"), key); err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
				if err := tx.Put(b("items"), key, b("x")); err != nil {
					return err
				}
				if err := bump(tx, b("counters"), b("items")); err != nil {
					return err
				}
				if i%8 == 7 {
					return errOdd // its bump is dropped with its writes
				}
				return nil
			})
			if i%8 == 7 {
				assert.ErrorIs(t, err, errOdd)
			} else {
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	requireValue(t, st, "counters", "items", strconv.Itoa(n-n/8))
	requireMissing(t, st, "items", "item-7")
	requireValue(t, st, "items", "item-8", "x")

	// An update that fails fails its Update, which writes nothing.
	put(t, st, "counters", "broken", "not a number")
	err := st.Update(ctx, func(tx store.Tx) error {
		if err := tx.Put(b("items"), b("with-broken"), b("x")); err != nil {
			return err
		}
		return bump(tx, b("counters"), b("broken"))
	})
	require.Error(t, err)
	requireMissing(t, st, "items", "with-broken")
	requireValue(t, st, "counters", "broken", "not a number")
}
