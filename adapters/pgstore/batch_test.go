package pgstore_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/store"
)

// TestRerunsTakeNewIDsAsMissing: functions of a round run at once check
// ids of their own (missing), then all bump one counter, so all but the
// first run again, in order, and draw new ids, which the committer takes
// as missing without reading them. Every id drawn on a second run exists
// already: the check before the commit finds them, and the batch runs
// again reading them. No existing id is overwritten and none is lost.
func TestRerunsTakeNewIDsAsMissing(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	s.SetRuns("concurrent")
	ctx := t.Context()
	const n = 64
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for i := range n {
			if err := tx.Put(b("ids"), fmt.Appendf(nil, "taken-%02d", i), b("old")); err != nil {
				return err
			}
		}
		return nil
	}))
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var runs atomic.Int32
			err := s.Update(ctx, func(tx store.Tx) error {
				run := runs.Add(1)
				for draw := 0; ; draw++ {
					id := fmt.Appendf(nil, "new-%02d-%d-%d", i, run, draw)
					if run == 2 && draw == 0 {
						id = fmt.Appendf(nil, "taken-%02d", i)
					}
					_, err := tx.Get(b("ids"), id)
					if err == nil {
						continue // in use: draw another
					}
					if !errors.Is(err, store.ErrNotFound) {
						return err
					}
					if err := tx.Put(b("ids"), id, b("new")); err != nil {
						return err
					}
					return bump(tx, "c", "n")
				}
			})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	v, err := getValue(t, s, "c", "n")
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(n), v)
	require.Len(t, keys(t, s, "ids", store.ScanOptions{}), 2*n)
	for i := range n {
		v, err := getValue(t, s, "ids", fmt.Sprintf("taken-%02d", i))
		require.NoError(t, err)
		require.Equal(t, "old", v, "an id in use was taken again")
	}
	t.Logf("%+v", s.Stats())
}

// TestViewsSeeWhatCommittedBefore: Views share transactions, yet each
// sees every Update that returned before it began, while many other
// Views run at once.
func TestViewsSeeWhatCommittedBefore(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	ctx := t.Context()
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 16 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, err := getValue(t, s, "c", "n")
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					assert.NoError(t, err)
					return
				}
			}
		})
	}
	for i := 1; i <= 200; i++ {
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return bump(tx, "c", "n") }))
		v, err := getValue(t, s, "c", "n")
		require.NoError(t, err)
		require.Equal(t, strconv.Itoa(i), v, "a View missed an Update that returned before it")
	}
	close(stop)
	readers.Wait()
}

// TestLearnedIDBucketsChecked: once the committer has learned that a
// bucket holds new ids (many updates checked ids of their own there, all
// missing), functions run in order take its keys as missing unread. Then
// updates check ids that exist: the check before the commit finds them,
// and they are read, not overwritten.
func TestLearnedIDBucketsChecked(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	ctx := t.Context()
	const n = 48
	create := func(id []byte) func(tx store.Tx) error {
		return func(tx store.Tx) error {
			_, err := tx.Get(b("ids"), id)
			switch {
			case err == nil:
				return nil // in use: nothing to do
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
			if err := tx.Put(b("ids"), id, b("new")); err != nil {
				return err
			}
			return bump(tx, "c", "n")
		}
	}
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for i := range n {
			if err := tx.Put(b("ids"), fmt.Appendf(nil, "taken-%02d", i), b("old")); err != nil {
				return err
			}
		}
		return nil
	}))
	for round := range 8 {
		var wg sync.WaitGroup
		for i := range n {
			id := fmt.Appendf(nil, "new-%d-%02d", round, i)
			if round >= 4 && i%2 == 0 {
				id = fmt.Appendf(nil, "taken-%02d", i)
			}
			wg.Go(func() { assert.NoError(t, s.Update(ctx, create(id))) })
		}
		wg.Wait()
	}
	v, err := getValue(t, s, "c", "n")
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(8*n-4*n/2), v)
	for i := range n {
		v, err := getValue(t, s, "ids", fmt.Sprintf("taken-%02d", i))
		require.NoError(t, err)
		require.Equal(t, "old", v, "an id in use was taken again")
	}
	t.Logf("%+v", s.Stats())
}

// TestGetsOfOneBucketShareAStatement: the functions of a round run at once
// each read their own key of one bucket, present or missing, and a key of
// another bucket, so each round trip carries many Gets of a bucket in one
// statement. Every function reads exactly what is stored: a present key's
// value (an empty value included), a missing key as missing.
func TestGetsOfOneBucketShareAStatement(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	s.SetRuns("concurrent")
	ctx := t.Context()
	const n = 48
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for i := range n {
			switch i % 3 {
			case 0: // missing
			case 1:
				if err := tx.Put(b("accounts"), fmt.Appendf(nil, "org-%02d", i), fmt.Appendf(nil, "balance-%02d", i)); err != nil {
					return err
				}
			case 2:
				if err := tx.Put(b("accounts"), fmt.Appendf(nil, "org-%02d", i), nil); err != nil {
					return err
				}
			}
			if err := tx.Put(b("floors"), fmt.Appendf(nil, "org-%02d", i), strconv.AppendInt(nil, int64(i), 10)); err != nil {
				return err
			}
		}
		return nil
	}))
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := s.Update(ctx, func(tx store.Tx) error {
				key := fmt.Appendf(nil, "org-%02d", i)
				v, err := tx.Get(b("accounts"), key)
				switch i % 3 {
				case 0:
					assert.ErrorIs(t, err, store.ErrNotFound, "key %s", key)
				case 1:
					assert.NoError(t, err)
					assert.Equal(t, fmt.Sprintf("balance-%02d", i), string(v))
				case 2:
					assert.NoError(t, err)
					assert.NotNil(t, v)
					assert.Empty(t, v)
				}
				f, err := tx.Get(b("floors"), key)
				if err != nil {
					return err
				}
				assert.Equal(t, strconv.Itoa(i), string(f))
				return tx.Put(b("seen"), key, nil)
			})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		seen := 0
		err := tx.Scan(b("seen"), store.ScanOptions{}, func(_, _ []byte) (bool, error) { seen++; return true, nil })
		assert.Equal(t, n, seen)
		return err
	}))
}
