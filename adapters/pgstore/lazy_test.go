package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
)

// TestLazyCommitsAsynchronously checks that UpdateLazy's transactions
// commit asynchronously and Update's never, with and without group
// commit; with it, that a batch of lazy updates only commits
// asynchronously and one that holds an Update does not.
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
			require.Equal(t, []string{"lazy", "sync"}, keys(t, s, "b", store.ScanOptions{}))
		})
	}
	put := func(k string) func(store.Tx) error {
		return func(tx store.Tx) error { return tx.Put(b("own"), b(k), b("v")) }
	}
	t.Run("GroupCommit/batches", func(t *testing.T) {
		s := fresh(t, pgstore.Options{})
		ctx := t.Context()
		// batch runs first, whose function waits, and more behind it,
		// which then share its transaction.
		batch := func(first func(context.Context, func(store.Tx) error) error, more ...func() error) {
			release := make(chan struct{})
			unblock := sync.OnceFunc(func() { close(release) })
			t.Cleanup(unblock) // before the store closes, should a check fail
			running := make(chan struct{}, 1)
			var wg sync.WaitGroup
			wg.Go(func() {
				assert.NoError(t, first(ctx, func(tx store.Tx) error {
					select {
					case running <- struct{}{}:
					default:
					}
					<-release
					return put(fmt.Sprintf("first-%d", s.Stats().Commits))(tx)
				}))
			})
			<-running // the committer runs first's function: the others queue
			for _, m := range more {
				wg.Go(func() { assert.NoError(t, m()) })
			}
			require.Eventually(t, func() bool { return s.Queued() == len(more) }, 10*time.Second, time.Millisecond)
			unblock()
			wg.Wait()
		}
		before := s.Stats()
		batch(s.UpdateLazy,
			func() error { return s.UpdateLazy(ctx, put("lazy-1")) },
			func() error { return s.UpdateLazy(ctx, put("lazy-2")) })
		st := s.Stats()
		require.Equal(t, before.Commits+1, st.Commits, "one batch")
		require.Equal(t, before.Async+1, st.Async, "a batch of lazy updates only commits asynchronously")

		batch(s.UpdateLazy, func() error { return s.Update(ctx, put("sync-1")) })
		st2 := s.Stats()
		require.Equal(t, st.Commits+1, st2.Commits, "one batch")
		require.Equal(t, st.Async, st2.Async, "a batch with an Update commits synchronously")
		require.Len(t, keys(t, s, "own", store.ScanOptions{}), 5)
	})
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
