package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/store"
)

// TestReadsNamedOnTheContext: updates that name the keys they read on
// their contexts (store.WithReadsAhead) find them read by their round's
// first round trip, even when the round runs its functions one after the
// other; without the names, each function's Gets wait for their own
// round trips. The outcomes are the same.
func TestReadsNamedOnTheContext(t *testing.T) {
	require.False(t, fresh(t, pgstore.Options{NoGroupCommit: true}).ReadsAhead(), "without group commit, nothing reads ahead")
	trips := map[bool]int64{}
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("named=%v", named), func(t *testing.T) {
			s := fresh(t, pgstore.Options{})
			require.True(t, s.ReadsAhead())
			require.True(t, store.ReadsAheadOf(s))
			s.SetRuns("in-order")
			const n = 48
			seedOrgs(t, s, n)
			before := s.Stats()
			// A first update holds the committer until the n others wait,
			// so that they run as one round, after it.
			release := make(chan struct{})
			unblock := sync.OnceFunc(func() { close(release) })
			t.Cleanup(unblock) // before the store closes, should a check fail
			running := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				assert.NoError(t, s.Update(t.Context(), func(store.Tx) error {
					select {
					case <-running:
					default:
						close(running)
					}
					<-release
					return nil
				}))
			})
			<-running
			for i := range n {
				wg.Go(func() {
					ctx := t.Context()
					if named {
						ctx = store.WithReadsAhead(ctx, orgKeys(i)...)
					}
					assert.NoError(t, s.Update(ctx, func(tx store.Tx) error { return readOrg(t, tx, i, false) }))
				})
			}
			require.Eventually(t, func() bool { return s.Queued() == n }, 10*time.Second, time.Millisecond)
			unblock()
			wg.Wait()
			after := s.Stats()
			trips[named] = after.ReadRoundTrips - before.ReadRoundTrips
			t.Logf("%d read round trips, %d commits", trips[named], after.Commits-before.Commits)
			if named {
				// One round trip for the named keys of the round, one to
				// check the keys of new ids taken as missing.
				assert.LessOrEqual(t, trips[named], int64(2))
			}
			require.NoError(t, s.View(t.Context(), func(tx store.Tx) error {
				for i := range n {
					v, err := tx.Get(b("ids"), orgKeys(i)[3].Key)
					if assert.NoError(t, err, "org %d", i) {
						assert.Equal(t, "new", string(v))
					}
				}
				return nil
			}))
		})
	}
	assert.Less(t, 4*trips[true], trips[false], "naming the keys spares most round trips")
}

// WithReadsAhead keeps the keys named before, and naming more on one
// context leaves another made from it as it was.
func TestWithReadsAheadAppends(t *testing.T) {
	ctx := store.WithReadsAhead(context.Background(), store.KeyRef{Bucket: b("a"), Key: b("1")})
	ctx2 := store.WithReadsAhead(ctx, store.KeyRef{Bucket: b("b"), Key: b("2")})
	ctx3 := store.WithReadsAhead(ctx, store.KeyRef{Bucket: b("c"), Key: b("3")})
	assert.Len(t, store.ReadsAhead(ctx), 1)
	assert.Equal(t, []store.KeyRef{{Bucket: b("a"), Key: b("1")}, {Bucket: b("b"), Key: b("2")}}, store.ReadsAhead(ctx2))
	assert.Equal(t, []store.KeyRef{{Bucket: b("a"), Key: b("1")}, {Bucket: b("c"), Key: b("3")}}, store.ReadsAhead(ctx3))
	assert.Equal(t, ctx, store.WithReadsAhead(ctx), "naming no key changes nothing")
	assert.Nil(t, store.ReadsAhead(context.Background()))
}

// TestScanPagesReadOncePerTransaction: a page of a Scan read again in the
// same transaction, by the same function or another of its batch, is not
// sent to the server again; each Scan still gets rows of its own, and a
// function's own writes still show in its Scans.
func TestScanPagesReadOncePerTransaction(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	s.SetRuns("in-order")
	ctx := t.Context()
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for i := range 5 {
			if err := tx.Put(b("corridors"), fmt.Appendf(nil, "c%d", i), fmt.Appendf(nil, "v%d", i)); err != nil {
				return err
			}
		}
		return nil
	}))
	scan := func(tx store.Tx) (map[string]string, error) {
		got := map[string]string{}
		err := tx.Scan(b("corridors"), store.ScanOptions{}, func(k, v []byte) (bool, error) {
			got[string(k)] = string(v)
			k[0], v[0] = 'X', 'X' // the Scan's own copies
			return true, nil
		})
		return got, err
	}
	want := map[string]string{"c0": "v0", "c1": "v1", "c2": "v2", "c3": "v3", "c4": "v4"}

	before := s.Stats().ReadRoundTrips
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		got, err := scan(tx)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		require.NoError(t, tx.Put(b("corridors"), b("c5"), b("v5")))
		require.NoError(t, tx.Delete(b("corridors"), b("c0")))
		got, err = scan(tx)
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"c1": "v1", "c2": "v2", "c3": "v3", "c4": "v4", "c5": "v5"}, got, "the function's own writes show")
		return nil
	}))
	assert.Equal(t, int64(1), s.Stats().ReadRoundTrips-before, "the page is read once")

	// Functions of one batch, in order: the first reads the page, the
	// others find it; each sees the writes of those before it. The bucket
	// stays within a Scan's first page (32 rows) however the functions
	// fall into batches: with more rows, a batch after the first would
	// read a second page.
	const n = 16
	before = s.Stats().ReadRoundTrips
	commits := s.Stats().Commits
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			assert.NoError(t, s.Update(ctx, func(tx store.Tx) error {
				got, err := scan(tx)
				if err != nil {
					return err
				}
				if got["c1"] != "v1" || len(got) < 5 {
					return fmt.Errorf("scan %d read %v", i, got)
				}
				return tx.Put(b("corridors"), fmt.Appendf(nil, "n%02d", i), b("x"))
			}))
		})
	}
	wg.Wait()
	batches := s.Stats().Commits - commits
	assert.LessOrEqual(t, s.Stats().ReadRoundTrips-before, batches, "a page a batch")
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		got, err := scan(tx)
		require.NoError(t, err)
		assert.Len(t, got, 5+n)
		return nil
	}))
}
