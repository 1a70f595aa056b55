package pgstore_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
)

// TestLazyCommitsAsynchronously checks that UpdateLazy's transactions
// commit asynchronously and Update's never, with and without group
// commit, also when both run at once (a batch holds one kind only).
func TestLazyCommitsAsynchronously(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := fresh(t, m.opts)
			ctx := t.Context()
			require.NoError(t, s.UpdateLazy(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("lazy"), b("1")) }))
			require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("sync"), b("1")) }))
			st := s.Stats()
			require.Equal(t, int64(2), st.Commits)
			require.Equal(t, int64(1), st.Async)

			const goroutines, each = 16, 10
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range each {
						fn := func(tx store.Tx) error { return tx.Put(b("own"), b(fmt.Sprintf("%02d-%02d", g, i)), b("v")) }
						if g%2 == 0 {
							assert.NoError(t, s.UpdateLazy(ctx, fn))
						} else {
							assert.NoError(t, s.Update(ctx, fn))
						}
					}
				})
			}
			wg.Wait()
			require.Equal(t, goroutines*each, countKeys(t, s, "own"))
			st = s.Stats()
			// Each transaction is of one kind: the lazy ones, and only
			// they, committed asynchronously.
			lazyTx, syncTx := st.Async-1, st.Commits-st.Async-1
			require.Positive(t, lazyTx)
			require.Positive(t, syncTx)
			require.LessOrEqual(t, lazyTx, int64(goroutines/2*each))
			require.LessOrEqual(t, syncTx, int64(goroutines/2*each))
		})
	}
}

// TestLazyOnRefusingServer stands a refused statement for a server that
// refuses SET LOCAL synchronous_commit (CockroachDB, say): the probe says
// so, and UpdateLazy then commits as Update does.
func TestLazyOnRefusingServer(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			s := fresh(t, m.opts)
			ctx := t.Context()
			ok, err := s.Reprobe(ctx, "SET LOCAL no_such_setting_here = off")
			require.NoError(t, err)
			require.False(t, ok)
			require.NoError(t, s.UpdateLazy(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("1")) }))
			v, err := getValue(t, s, "b", "k")
			require.NoError(t, err)
			require.Equal(t, "1", v)
			require.Equal(t, int64(1), s.Stats().Commits)
			require.Zero(t, s.Stats().Async)

			ok, err = s.Reprobe(ctx, "")
			require.NoError(t, err)
			require.True(t, ok, "PostgreSQL accepts SET LOCAL synchronous_commit = off")
		})
	}
}

// TestLazyOnHostPool checks that a store over a host's pool (New, which
// does no I/O) probes at its first UpdateLazy.
func TestLazyOnHostPool(t *testing.T) {
	ctx := t.Context()
	_, schema := teststores.NewPGSchema(t)
	pool, err := pgxpool.New(ctx, teststores.PGURL(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	require.NoError(t, pgstore.Migrate(ctx, pool, schema))
	s, err := pgstore.New(pool, &pgstore.Options{Schema: schema})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.UpdateLazy(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("1")) }))
	require.Equal(t, int64(1), s.Stats().Async)
}

// countKeys counts the committed keys of bucket.
func countKeys(t testing.TB, s store.Store, bucket string) int {
	t.Helper()
	n := 0
	require.NoError(t, s.View(t.Context(), func(tx store.Tx) error {
		return tx.Scan(b(bucket), store.ScanOptions{}, func(_, _ []byte) (bool, error) {
			n++
			return true, nil
		})
	}))
	return n
}
