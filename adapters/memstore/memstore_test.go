package memstore_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
	"pgregory.net/rapid"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Features{}, storetest.Harness{
		Open: func(testing.TB, string) store.Store { return memstore.New() },
	})
}

// A bucket's ordered index is built at its first scan: scans before and
// after, with writes and deletes on both sides, see every key in order,
// and readers racing to the first scan of a bucket all see all of it.
func TestOrderedIndexBuiltAtFirstScan(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		s := memstore.New()
		model := map[string]string{}
		bucket := []byte("b")
		for i, n := 0, rapid.IntRange(1, 40).Draw(t, "steps"); i < n; i++ {
			key := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g", "h"}).Draw(t, "key")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				v := rapid.StringN(1, 4, 4).Draw(t, "value")
				require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(bucket, []byte(key), []byte(v)) }))
				model[key] = v
			case 1:
				require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Delete(bucket, []byte(key)) }))
				delete(model, key)
			case 2:
				var want []string
				for k, v := range model {
					want = append(want, k+"="+v)
				}
				sort.Strings(want)
				var got []string
				require.NoError(t, s.View(ctx, func(tx store.Tx) error {
					return tx.Scan(bucket, store.ScanOptions{}, func(k, v []byte) (bool, error) {
						got = append(got, string(k)+"="+string(v))
						return true, nil
					})
				}))
				require.Equal(t, want, got)
			}
		}
	})

	s := memstore.New()
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for i := range 1000 {
			if err := tx.Put([]byte("b"), fmt.Appendf(nil, "k%04d", i), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	}))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			err := s.View(ctx, func(tx store.Tx) error {
				return tx.Scan([]byte("b"), store.ScanOptions{}, func(k, _ []byte) (bool, error) {
					n++
					return true, nil
				})
			})
			assert.NoError(t, err)
			assert.Equal(t, 1000, n)
		}()
	}
	wg.Wait()
}

// Lend answers as Get does, without the copy, inside an update (through
// the transaction buffer, its own writes too) and in a view; and a lent
// value is never written to: an overwrite replaces it.
func TestLendAnswersAsGet(t *testing.T) {
	s := memstore.New()
	ctx := context.Background()
	bucket, key, other := []byte("b"), []byte("k"), []byte("missing")
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(bucket, key, []byte("v1")) }))
	var lent []byte
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		var err error
		lent, err = lend.Get(tx, bucket, key)
		require.NoError(t, err)
		require.Equal(t, "v1", string(lent))
		_, err = lend.Get(tx, bucket, other)
		require.ErrorIs(t, err, store.ErrNotFound)
		require.NoError(t, tx.Put(bucket, key, []byte("v2")))
		mine, err := lend.Get(tx, bucket, key)
		require.NoError(t, err)
		require.Equal(t, "v2", string(mine))
		require.NoError(t, tx.Delete(bucket, key))
		_, err = lend.Get(tx, bucket, key)
		require.ErrorIs(t, err, store.ErrNotFound)
		return tx.Put(bucket, key, []byte("v3"))
	}))
	require.Equal(t, "v1", string(lent), "a lent value is replaced, never written to")
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		v, err := lend.Get(tx, bucket, key)
		require.NoError(t, err)
		require.Equal(t, "v3", string(v))
		_, err = lend.Get(tx, []byte("nobucket"), key)
		require.ErrorIs(t, err, store.ErrNotFound)
		_, err = lend.Get(tx, bucket, nil)
		require.ErrorIs(t, err, store.ErrInvalidKey)
		return nil
	}))
}
