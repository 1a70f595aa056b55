package tambala_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// losingProvider acknowledges submissions without passing them on while
// lose says so: the provider's answer to a later Status is then "unknown
// reference". down makes every call fail without an answer.
type losingProvider struct {
	*sandbox.Provider
	mu      sync.Mutex
	lose    func(ref string, n int) bool // n: submissions of ref so far, this one included
	submits map[string]int
	down    bool
}

func (p *losingProvider) Submit(ctx context.Context, s tambala.PayoutSubmission) error {
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		return errors.New("connection refused")
	}
	if p.submits == nil {
		p.submits = map[string]int{}
	}
	p.submits[s.Reference]++
	lost := p.lose != nil && p.lose(s.Reference, p.submits[s.Reference])
	p.mu.Unlock()
	if lost {
		return nil // acknowledged, never accepted
	}
	return p.Provider.Submit(ctx, s)
}

func (p *losingProvider) Status(ctx context.Context, ref string) (tambala.ProviderStatus, error) {
	p.mu.Lock()
	down := p.down
	p.mu.Unlock()
	if down {
		return tambala.ProviderStatus{}, errors.New("connection refused")
	}
	return p.Provider.Status(ctx, ref)
}

func (p *losingProvider) submissions(ref string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.submits[ref]
}

func newLosingEnv(t *testing.T, lose func(string, int) bool) (*workerEnv, *losingProvider) {
	t.Helper()
	w := &workerEnv{store: memstore.New(), clock: &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}}
	w.provider = sandbox.New(&sandbox.Options{Clock: w.clock.Now, Delay: 2 * time.Second})
	lp := &losingProvider{Provider: w.provider, lose: lose}
	e, err := tambala.New(w.store, &tambala.Options{Clock: w.clock.Now, Payouts: lp})
	require.NoError(t, err)
	w.engine = e
	w.p = fundedPrincipal(t, e, "100000.00")
	return w, lp
}

// A submission the provider acknowledged but never accepted: its status
// is "unknown reference", so the worker submits it again under the same
// reference, and it is paid once.
func TestWorkerResubmitsUnknownReference(t *testing.T) {
	w, lp := newLosingEnv(t, func(_ string, n int) bool { return n == 1 })
	id := w.payout(t, payouts.Momo, momo("111100000112", 5000))
	w.run(t, 10, time.Second)
	po := w.read(t, id)
	assert.Equal(t, "succeeded", po["status"])
	assert.Equal(t, 2, lp.submissions(id), "submitted again once")
	assert.Equal(t, 1, w.provider.Payments(id))
	assert.Equal(t, "94718.00", w.balance(t).Available.String())
}

// A reference the provider never accepts, however often it is submitted:
// after MaxUnknownAnswers unknown answers the payout fails with
// provider_unavailable and its hold is released whole; nothing was paid.
func TestWorkerFailsAfterUnknownAnswers(t *testing.T) {
	w, lp := newLosingEnv(t, func(string, int) bool { return true })
	id := w.payout(t, payouts.Momo, momo("111100000112", 5000))
	w.run(t, 20, time.Second)
	po := w.read(t, id)
	assert.Equal(t, "failed", po["status"])
	assert.Equal(t, "provider_unavailable", po["failure"].(map[string]any)["code"])
	assert.Equal(t, 3, lp.submissions(id), "the first submission and two more")
	assert.Equal(t, 0, w.provider.Payments(id))
	b := w.balance(t)
	assert.Equal(t, "100000.00", b.Available.String())
	assert.Equal(t, "0.00", b.Held.String())
}

// A provider that does not answer at all keeps the payout in flight (the
// money may have moved), retried with capped, jittered backoff, and shown
// to the operator as overdue; once it answers, the payout finishes.
func TestWorkerUnreachableProviderKeepsPayoutInFlight(t *testing.T) {
	w, lp := newLosingEnv(t, nil)
	id := w.payout(t, payouts.Momo, momo("111100000112", 5000))
	w.run(t, 1, time.Second) // submitted and accepted: pending, polled next after 1s
	lp.mu.Lock()
	lp.down = true
	lp.mu.Unlock()
	for i := range 40 {
		w.run(t, 1, 0)
		list, err := w.engine.Operator().BackOffice().PayoutsInFlight(context.Background(), tambala.InFlightFilter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		f := list[0]
		assert.Equal(t, payouts.Pending, f.Payout.Status)
		require.NotNil(t, f.NextAttemptAt)
		wait := f.NextAttemptAt.Sub(w.clock.Now())
		assert.LessOrEqual(t, wait, 5*time.Minute, "capped at MaxBackoff")
		if f.FailedCalls >= 10 {
			assert.GreaterOrEqual(t, wait, 150*time.Second, "at least half the cap")
		}
		assert.Equal(t, i+1, f.FailedCalls)
		w.clock.Advance(wait)
	}
	list, err := w.engine.Operator().BackOffice().PayoutsInFlight(context.Background(), tambala.InFlightFilter{Status: payouts.Pending, OlderThan: time.Hour})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.True(t, list[0].Overdue)
	lp.mu.Lock()
	lp.down = false
	lp.mu.Unlock()
	w.clock.Advance(5 * time.Minute)
	w.run(t, 3, time.Second)
	assert.Equal(t, "succeeded", w.read(t, id)["status"])
	assert.Equal(t, 1, w.provider.Payments(id))
	list, err = w.engine.Operator().BackOffice().PayoutsInFlight(context.Background(), tambala.InFlightFilter{})
	require.NoError(t, err)
	assert.Empty(t, list)
}

func TestPayoutsInFlightFilters(t *testing.T) {
	w := newWorkerEnv(t, memstore.New())
	ctx := context.Background()
	a := w.payout(t, payouts.Momo, momo("111100000112", 100))
	w.run(t, 1, 0) // a: pending
	w.clock.Advance(time.Hour)
	b := w.payout(t, payouts.Momo, momo("111100000221", 100)) // held
	other := fundedPrincipal(t, w.engine, "1000.00")
	req := momoRequest("10")
	_, err := w.engine.Client(other).V1().CreatePayout(ctx, req, tambala.Idempotency{Key: "o"})
	require.NoError(t, err)
	ids := func(f tambala.InFlightFilter) []string {
		list, err := w.engine.Operator().BackOffice().PayoutsInFlight(ctx, f)
		require.NoError(t, err)
		var out []string
		for _, p := range list {
			out = append(out, p.Payout.ID)
		}
		return out
	}
	assert.Len(t, ids(tambala.InFlightFilter{}), 3)
	assert.Equal(t, []string{a}, ids(tambala.InFlightFilter{Status: payouts.Pending}))
	assert.Equal(t, []string{a}, ids(tambala.InFlightFilter{OlderThan: 30 * time.Minute}))
	assert.Equal(t, []string{a, b}, ids(tambala.InFlightFilter{OrgID: w.p.Org.ID}))
	assert.Equal(t, []string{a}, ids(tambala.InFlightFilter{OrgID: w.p.Org.ID, Limit: 1}))
	_, err = w.engine.Operator().BackOffice().PayoutsInFlight(ctx, tambala.InFlightFilter{Status: payouts.Succeeded})
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
}

// The operator's resolutions go through the worker's own transitions,
// ledger entries and events: a payout resolved as succeeded with a fee
// leaves the books and the event exactly as the worker's capture with the
// same observed fee; failed releases the hold whole.
func TestResolvePayout(t *testing.T) {
	ctx := context.Background()
	fee := func(s string) money.Amount { return mustParse(money.MWK, s) }

	t.Run("refusals", func(t *testing.T) {
		w := newWorkerEnv(t, memstore.New())
		held := w.payout(t, payouts.Momo, momo("111100000112", 100))
		done := w.payout(t, payouts.Momo, momo("111100000221", 100))
		w.run(t, 6, time.Second) // both finish; held is submitted again below
		held2 := w.payout(t, payouts.Momo, momo("111100000330", 100))
		for name, c := range map[string]struct {
			id   string
			r    tambala.Resolution
			code errcode.Code
		}{
			"held":             {held2, tambala.Resolution{Outcome: payouts.Failed, FailureCode: payouts.Declined, Reason: "r"}, errcode.Conflict},
			"succeeded":        {done, tambala.Resolution{Outcome: payouts.Failed, FailureCode: payouts.Declined, Reason: "r"}, errcode.Conflict},
			"unknown id":       {"nope", tambala.Resolution{Outcome: payouts.Failed, FailureCode: payouts.Declined, Reason: "r"}, errcode.NotFound},
			"no reason":        {held, tambala.Resolution{Outcome: payouts.Failed, FailureCode: payouts.Declined}, errcode.ValidationError},
			"bad outcome":      {held, tambala.Resolution{Outcome: payouts.Reversed, Reason: "r"}, errcode.ValidationError},
			"bad failure code": {held, tambala.Resolution{Outcome: payouts.Failed, FailureCode: "on_fire", Reason: "r"}, errcode.ValidationError},
			"negative fee":     {held, tambala.Resolution{Outcome: payouts.Succeeded, Fee: mustSubAmt(money.Zero(money.MWK), money.FromInt(money.MWK, 1)), Reason: "r"}, errcode.ValidationError},
			"USDT fee":         {held, tambala.Resolution{Outcome: payouts.Succeeded, Fee: money.FromInt(money.USDT, 1), Reason: "r"}, errcode.ValidationError},
		} {
			_, err := w.engine.Operator().BackOffice().ResolvePayout(ctx, c.id, c.r)
			assert.Equal(t, c.code, errcode.Of(err), name)
		}
	})

	for _, c := range []struct {
		name   string
		r      tambala.Resolution
		status string
	}{
		{"succeeded with the observed fee", tambala.Resolution{Outcome: payouts.Succeeded, Fee: fee("300.00"), Reason: "paid per statement 42"}, "succeeded"},
		{"succeeded without a fee", tambala.Resolution{Outcome: payouts.Succeeded, Reason: "paid"}, "succeeded"},
		{"failed", tambala.Resolution{Outcome: payouts.Failed, FailureCode: payouts.RecipientAccountInvalid, Reason: "bounced"}, "failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// One payout finished by the worker, one by the operator, with
			// the same outcome: same books, same event.
			worker, lp := newLosingEnv(t, nil)
			operator, olp := newLosingEnv(t, nil)
			var sent [2]string
			for i, w := range []*workerEnv{worker, operator} {
				_, _, err := w.engine.Operator().SetWebhookEndpoint(ctx, w.p.Org.ID, "https://hooks.example.com/x")
				require.NoError(t, err)
				sent[i] = w.payout(t, payouts.Momo, momo("111100000445", 5000))
			}
			if c.r.Outcome == payouts.Failed {
				worker.provider.ScriptPayout(sent[0], sandbox.Outcome{Fail: string(c.r.FailureCode)})
			} else if c.r.Fee.IsSet() {
				fee := c.r.Fee
				worker.provider.ScriptPayout(sent[0], sandbox.Outcome{Fee: &fee})
			} else {
				worker.provider.ScriptPayout(sent[0], sandbox.Outcome{NoFee: true})
			}
			worker.run(t, 6, time.Second)
			operator.run(t, 1, 0) // pending at the provider
			olp.mu.Lock()
			olp.down = true // the provider stops answering; the operator reconciles
			olp.mu.Unlock()
			got, err := operator.engine.Operator().BackOffice().ResolvePayout(ctx, sent[1], c.r)
			require.NoError(t, err)
			assert.Equal(t, c.status, string(got.Status))
			_, err = operator.engine.Operator().BackOffice().ResolvePayout(ctx, sent[1], c.r)
			assert.Equal(t, errcode.Conflict, errcode.Of(err), "resolved once")
			operator.run(t, 3, time.Minute) // the worker leaves it alone
			_ = lp

			wp, op := worker.read(t, sent[0]), operator.read(t, sent[1])
			for _, k := range []string{"status", "fee", "failure", "amount_mwk"} {
				assert.Equal(t, fmt.Sprint(wp[k]), fmt.Sprint(op[k]), k)
			}
			wb, ob := worker.balance(t), operator.balance(t)
			assert.Equal(t, wb.Available.String(), ob.Available.String())
			assert.Equal(t, wb.Held.String(), ob.Held.String())
			assert.Equal(t, wb.Shortfall.String(), ob.Shortfall.String())
			events := func(w *workerEnv) []string {
				page, err := w.engine.Operator().Deliveries(ctx, w.p.Org.ID, tambala.PageRequest{Limit: 10})
				require.NoError(t, err)
				var out []string
				for _, d := range page.Items {
					out = append(out, d.EventType)
				}
				return out
			}
			assert.Equal(t, events(worker), events(operator))
			list, err := operator.engine.Operator().BackOffice().PayoutsInFlight(ctx, tambala.InFlightFilter{})
			require.NoError(t, err)
			assert.Empty(t, list)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func mustSubAmt(a, b money.Amount) money.Amount {
	d, err := a.Sub(b)
	if err != nil {
		panic(err)
	}
	return d
}
