package pgstore_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/store"
)

// orgKeys are the keys of organization i in three buckets, the second
// of which it has no key in (i odd), and of a bucket of ids.
func orgKeys(i int) []store.KeyRef {
	k := fmt.Appendf(nil, "org-%02d", i)
	return []store.KeyRef{{Bucket: b("orgs"), Key: k}, {Bucket: b("floors"), Key: k}, {Bucket: b("balances"), Key: k}, {Bucket: b("ids"), Key: k}}
}

func seedOrgs(t *testing.T, s *pgstore.Store, n int) {
	t.Helper()
	require.NoError(t, s.Update(t.Context(), func(tx store.Tx) error {
		for i := range n {
			for j, k := range orgKeys(i) {
				if j == 3 || (j == 1 && i%2 == 1) {
					continue
				}
				if err := tx.Put(k.Bucket, k.Key, fmt.Appendf(nil, "%s-%d", k.Bucket, i)); err != nil {
					return err
				}
			}
		}
		return nil
	}))
}

// readOrg reads organization i's keys, one Get after the other, after
// naming them all to Prefetch when prefetch is set; it checks what each
// Get returns and writes a record of a new id.
func readOrg(t *testing.T, tx store.Tx, i int, prefetch bool) error {
	keys := orgKeys(i)
	if prefetch {
		store.Prefetch(tx, keys)
		keys[0].Key[0] = 'X' // the transaction keeps no reference to the keys
		keys = orgKeys(i)
	}
	for j, k := range keys {
		v, err := tx.Get(k.Bucket, k.Key)
		switch {
		case j == 3 || (j == 1 && i%2 == 1):
			assert.ErrorIs(t, err, store.ErrNotFound, "%s/%s", k.Bucket, k.Key)
		case err != nil:
			return err
		default:
			assert.Equal(t, fmt.Sprintf("%s-%d", k.Bucket, i), string(v))
		}
	}
	return tx.Put(b("ids"), keys[3].Key, []byte("new"))
}

// TestPrefetchedKeysShareARoundTrip: an Update that names the keys it
// reads to Prefetch reads them in one round trip, where one Get after the
// other takes one each, and the Gets return the same.
func TestPrefetchedKeysShareARoundTrip(t *testing.T) {
	s := fresh(t, pgstore.Options{NoGroupCommit: true})
	seedOrgs(t, s, 2)
	ctx := t.Context()
	trips := func(i int, prefetch bool) int64 {
		before := s.Stats().ReadRoundTrips
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return readOrg(t, tx, i, prefetch) }))
		return s.Stats().ReadRoundTrips - before
	}
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		assert.True(t, store.Prefetch(tx, nil), "a transaction of its own reads ahead")
		return nil
	}))
	assert.Equal(t, int64(4), trips(0, false), "one round trip a Get")
	assert.Equal(t, int64(1), trips(1, true), "the Gets of keys read ahead wait for one round trip")
}

// TestPrefetchInARoundRunAtOnce: functions of a round run at once, each
// naming its organization's keys to Prefetch, read them all in the
// round's first round trip; their outcomes are those of Gets alone, the
// keys of a bucket of ids that the store takes as missing included. (A
// function run in order reads nothing ahead: runReader.Prefetch.)
func TestPrefetchInARoundRunAtOnce(t *testing.T) {
	for _, prefetch := range []bool{false, true} {
		t.Run(fmt.Sprintf("prefetch=%v", prefetch), func(t *testing.T) {
			s := fresh(t, pgstore.Options{})
			s.SetRuns("concurrent")
			const n = 48
			seedOrgs(t, s, 2*n)
			ctx := t.Context()
			for round := range 2 { // the second round finds "ids" a bucket of ids
				before := s.Stats()
				var wg sync.WaitGroup
				for i := round * n; i < (round+1)*n; i++ {
					wg.Go(func() {
						assert.NoError(t, s.Update(ctx, func(tx store.Tx) error { return readOrg(t, tx, i, prefetch) }))
					})
				}
				wg.Wait()
				after := s.Stats()
				t.Logf("round %d: %d read round trips, %d commits, %d rounds, %d redone", round, after.ReadRoundTrips-before.ReadRoundTrips,
					after.Commits-before.Commits, after.Rounds-before.Rounds, after.Redone-before.Redone)
				if prefetch {
					// Every round of a batch reads in one round trip (the
					// updates that arrive while a batch runs are a round of
					// it), and every batch checks the ids it took as missing
					// in one more.
					assert.LessOrEqual(t, after.ReadRoundTrips-before.ReadRoundTrips, (after.Rounds-before.Rounds)+(after.Commits-before.Commits))
				}
			}
			require.NoError(t, s.View(ctx, func(tx store.Tx) error {
				for i := range 2 * n {
					v, err := tx.Get(b("ids"), orgKeys(i)[3].Key)
					if assert.NoError(t, err, "org %d", i) {
						assert.Equal(t, "new", string(v))
					}
				}
				return nil
			}))
		})
	}
}
