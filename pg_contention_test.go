package tambala_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// conflictCounter counts the Updates that gave up with store.ErrConflict,
// the worker's included (it logs its errors and goes on).
type conflictCounter struct {
	store.Store
	n *atomic.Int64
}

func (c conflictCounter) Update(ctx context.Context, fn func(store.Tx) error) error {
	err := c.Store.Update(ctx, fn)
	if errors.Is(err, store.ErrConflict) {
		c.n.Add(1)
	}
	return err
}

// TestTwoInstances_HotOrganizationOnPostgres is two servers on one
// PostgreSQL database paying out for one organization while both payout
// workers settle its payouts: contention on its balance costs time,
// never an error, and no update is lost.
func TestTwoInstances_HotOrganizationOnPostgres(t *testing.T) {
	if !teststores.PGAvailable(t) {
		t.Skip("no PostgreSQL answers (set TAMBALA_PG_URL)")
	}
	// A small retry count (the default is 30): the budget is the time
	// (pgstore.Options.RetryFor), which contention must not spend.
	sa, sb := teststores.Pgstore(&pgstore.Options{MaxRetries: 5}).OpenTwo(t)
	var conflicts atomic.Int64
	clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	prov := sandbox.New(&sandbox.Options{Clock: clock.Now, Delay: time.Second})
	var engines []*tambala.Engine
	for _, s := range []store.Store{sa, sb} {
		e, err := tambala.New(conflictCounter{s, &conflicts}, &tambala.Options{Clock: clock.Now, Payouts: prov})
		require.NoError(t, err)
		engines = append(engines, e)
	}
	ctx := context.Background()
	p := fundedPrincipal(t, engines[0], "1000000.00")
	const callers, each = 12, 6 // per server
	var wg sync.WaitGroup
	for i, e := range engines {
		pr := actFor(e, p.Org.ID)
		for c := range callers {
			wg.Go(func() {
				for n := range each {
					_, err := e.Client(pr).V1().CreatePayout(ctx, momoRequest("500"), tambala.Idempotency{Key: fmt.Sprintf("k-%d-%d-%d", i, c, n)})
					assert.NoError(t, err)
				}
			})
		}
	}
	// Both workers run meanwhile, moving the clock so that payouts settle.
	done := make(chan struct{})
	var workers sync.WaitGroup
	for _, e := range engines {
		workers.Go(func() {
			for {
				_, err := e.Work().ProcessPayouts(ctx)
				assert.NoError(t, err)
				clock.Advance(250 * time.Millisecond)
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	wg.Wait()
	close(done)
	workers.Wait()
	// What is left settles.
	for range 20 {
		bal, err := engines[1].Client(p).V1().Balance(ctx)
		require.NoError(t, err)
		if bal.Held.IsZero() {
			break
		}
		for _, e := range engines {
			_, err := e.Work().ProcessPayouts(ctx)
			require.NoError(t, err)
		}
		clock.Advance(time.Second)
	}

	require.Zero(t, conflicts.Load(), "updates gave up with store.ErrConflict")
	const n = 2 * callers * each
	page, err := engines[0].Client(p).V1().Payouts(ctx, tambala.PageRequest{Limit: 200}, tambala.PayoutFilter{})
	require.NoError(t, err)
	require.Len(t, page.Items, n)
	// Every payout took its amount and the fee the provider charged.
	want := mustParse(money.MWK, "1000000.00")
	for _, po := range page.Items {
		require.Equal(t, payouts.Succeeded, po.Status, po.ID)
		require.NotNil(t, po.Fee, po.ID)
		if want, err = want.Sub(po.Amount); err == nil {
			want, err = want.Sub(*po.Fee)
		}
		require.NoError(t, err)
	}
	bal, err := engines[1].Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.True(t, bal.Held.IsZero(), "held %s", bal.Held)
	assert.Equal(t, want.String(), bal.Available.String(), "a lost or doubled update")
	require.NoError(t, ledger.CheckStore(ctx, sa))
	for _, s := range []store.Store{sa, sb} {
		t.Logf("%+v", s.(*pgstore.Store).Stats())
	}
}
