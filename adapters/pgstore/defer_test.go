package pgstore_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

// TestDeferredCounterRunsNoFunctionAgain: functions of a round run at
// once, each writing a record of its own and bumping one shared counter
// through store.Defer, all keep their first run (none read the counter,
// so none runs again in order), and the counter counts each of them.
// Bumped at once instead, every function but the first runs again; with
// half of them deferring, those that read it see every update before
// them, deferred or not, and the count is exact.
func TestDeferredCounterRunsNoFunctionAgain(t *testing.T) {
	for _, mode := range []string{"deferred", "at once", "mixed"} {
		t.Run(mode, func(t *testing.T) {
			s := fresh(t, pgstore.Options{})
			s.SetRuns("concurrent")
			ctx := t.Context()
			const n = 48
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					assert.NoError(t, s.Update(ctx, func(tx store.Tx) error {
						key := fmt.Appendf(nil, "rec-%02d", i)
						if _, err := tx.Get(b("records"), key); !errors.Is(err, store.ErrNotFound) {
							return fmt.Errorf("record %s: %v", key, err)
						}
						if err := tx.Put(b("records"), key, b("x")); err != nil {
							return err
						}
						deferred := mode == "deferred" || (mode == "mixed" && i%2 == 0)
						if deferred && store.Defer(tx, b("counters"), b("accepted"), storetest.AddOne) {
							return nil
						}
						old, err := tx.Get(b("counters"), b("accepted"))
						if err != nil && !errors.Is(err, store.ErrNotFound) {
							return err
						}
						v, err := storetest.AddOne(old, err == nil)
						if err != nil {
							return err
						}
						return tx.Put(b("counters"), b("accepted"), v)
					}))
				})
			}
			wg.Wait()
			require.NoError(t, s.View(ctx, func(tx store.Tx) error {
				v, err := tx.Get(b("counters"), b("accepted"))
				if assert.NoError(t, err) {
					assert.Equal(t, strconv.Itoa(n), string(v))
				}
				return nil
			}))
			st := s.Stats()
			t.Logf("%d commits, %d functions run again", st.Commits, st.Reran)
			switch mode {
			case "deferred":
				assert.Zero(t, st.Reran, "no function reads the counter, so none runs again")
			default: // those that read it run again after the first that wrote it
				assert.NotZero(t, st.Reran)
			}
		})
	}
}
