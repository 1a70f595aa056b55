package storetest

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

// testPrefetch: naming keys to store.Prefetch changes no result. In an
// Update and a View, Gets after a Prefetch of keys present, missing,
// written or deleted in the transaction, and invalid, return what they
// return without it; the transaction keeps no reference to the keys
// named, and its writes commit as they would. On an adapter that is not
// a store.Prefetcher, Prefetch reports false and the same holds.
func (s *suite) testPrefetch(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	putAll(t, st, "p", []kv{{"a", "1"}, {"b", "2"}, {"c", "3"}})
	named := func() []store.KeyRef {
		return []store.KeyRef{
			{Bucket: b("p"), Key: b("a")},       // present
			{Bucket: b("p"), Key: b("b")},       // deleted below
			{Bucket: b("p"), Key: b("c")},       // overwritten below
			{Bucket: b("p"), Key: b("missing")}, // missing
			{Bucket: b("q"), Key: b("new")},     // written below
			{Bucket: b("p"), Key: nil},          // invalid
			{Bucket: nil, Key: b("a")},          // invalid
		}
	}
	check := func(tx store.Tx, wrote bool) {
		keys := named()
		reads := store.Prefetch(tx, nil)
		assert.Equal(t, reads, store.Prefetch(tx, keys), "Prefetch answers the same with keys and without")
		for _, k := range keys {
			k.Key = append(k.Key, 'x') // the transaction keeps no reference
		}
		get := func(bucket, key string) (string, error) {
			v, err := tx.Get(b(bucket), b(key))
			return string(v), err
		}
		v, err := get("p", "a")
		assert.NoError(t, err)
		assert.Equal(t, "1", v)
		_, err = get("p", "missing")
		assert.ErrorIs(t, err, store.ErrNotFound)
		_, err = tx.Get(b("p"), nil)
		assert.Error(t, err, "an invalid key named to Prefetch is refused by its Get")
		if !wrote {
			return
		}
		require.NoError(t, tx.Delete(b("p"), b("b")))
		require.NoError(t, tx.Put(b("p"), b("c"), b("33")))
		require.NoError(t, tx.Put(b("q"), b("new"), b("4")))
		_, err = get("p", "b")
		assert.ErrorIs(t, err, store.ErrNotFound)
		v, err = get("p", "c")
		assert.NoError(t, err)
		assert.Equal(t, "33", v)
		v, err = get("q", "new")
		assert.NoError(t, err)
		assert.Equal(t, "4", v)
	}
	require.NoError(t, st.View(ctx, func(tx store.Tx) error { check(tx, false); return nil }))
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error { check(tx, true); return nil }))
	requireMissing(t, st, "p", "b")
	requireValue(t, st, "p", "c", "33")
	requireValue(t, st, "q", "new", "4")
	// A rolled-back Update that prefetched leaves nothing behind.
	errRollback := errors.New("roll back")
	err := st.Update(ctx, func(tx store.Tx) error {
		store.Prefetch(tx, named())
		if err := tx.Put(b("p"), b("a"), b("changed")); err != nil {
			return err
		}
		return errRollback
	})
	assert.ErrorIs(t, err, errRollback)
	requireValue(t, st, "p", "a", "1")
}
