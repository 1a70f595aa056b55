package sandbox_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// backend opens a store and "restarts" it: the memstore stays the same
// object (a process restart keeps nothing of it, but a Provider restart
// over it keeps the store), the boltstore is closed and reopened on its
// file, as a server restart does.
type backend struct {
	name    string
	open    func(t *testing.T) store.Store
	restart func(t *testing.T, s store.Store) store.Store
}

func backends() []backend {
	return []backend{
		{"memstore",
			func(*testing.T) store.Store { return memstore.New() },
			func(_ *testing.T, s store.Store) store.Store { return s }},
		{"boltstore",
			func(t *testing.T) store.Store {
				s, err := boltstore.Open(filepath.Join(t.TempDir(), "tambala.bolt"), nil)
				require.NoError(t, err)
				return s
			},
			func(t *testing.T, s store.Store) store.Store {
				path := s.(*boltstore.Store).Path()
				require.NoError(t, s.Close())
				s2, err := boltstore.Open(path, nil)
				require.NoError(t, err)
				return s2
			}},
	}
}

func bankSub(ref, account string, amount int64) tambala.PayoutSubmission {
	return tambala.PayoutSubmission{Reference: ref, Rail: payouts.Bank, Amount: money.FromInt(money.MWK, amount),
		Destination: payouts.Destination{InstitutionID: 1, AccountNumber: account, BeneficiaryName: "T"}}
}

// scenario submits a mix of payouts to p at t0, and one more a second
// later, with every kind of decided outcome.
func scenario(t *testing.T, p *sandbox.Provider, c *clock) []string {
	ctx := context.Background()
	fee := money.FromInt(money.MWK, 7)
	p.ScriptDestination("111100000221", sandbox.Outcome{Fail: "provider_unavailable"})
	p.ScriptPayout("fee", sandbox.Outcome{Fee: &fee})
	p.ScriptPayout("nofee", sandbox.Outcome{NoFee: true})
	p.ScriptPayout("claw", sandbox.Outcome{Clawback: true})
	p.ScriptPayout("declined", sandbox.Outcome{Fail: "declined"})
	subs := []tambala.PayoutSubmission{
		sub("momo", "111100000112"), bankSub("bank", "3333888801", 150_000), sub("stranger", "265991234567"),
		sub("by-dest", "111100000221"), sub("fee", "111100000330"), sub("nofee", "111100000330"),
		sub("claw", "111100000330"), sub("declined", "111100000112"),
	}
	var refs []string
	for _, s := range subs {
		require.NoError(t, p.Submit(ctx, s))
		refs = append(refs, s.Reference)
	}
	c.t = c.t.Add(time.Second)
	require.NoError(t, p.Submit(ctx, sub("late", "111100000112")))
	return append(refs, "late")
}

func statuses(t *testing.T, p *sandbox.Provider, refs []string) map[string]string {
	out := map[string]string{}
	for _, ref := range refs {
		st, err := p.Status(context.Background(), ref)
		require.NoError(t, err, ref)
		s := string(st.State)
		if st.FailureCode != "" {
			s += " " + st.FailureCode
		}
		if st.Fee.IsSet() {
			s += " fee " + st.Fee.String()
		}
		out[ref] = s
	}
	return out
}

// TestRestartKeepsSubmissions: a Provider over the store of one that took
// submissions answers Status for every one of them with the outcome and at
// the time the first would have, and pays none of them twice.
func TestRestartKeepsSubmissions(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	// What one Provider that never restarts answers.
	rc := &clock{t: t0}
	ref := sandbox.New(&sandbox.Options{Clock: rc.now, Delay: 2 * time.Second})
	refs := scenario(t, ref, rc)
	rc.t = t0.Add(2 * time.Second)
	wantAt2 := statuses(t, ref, refs)
	rc.t = t0.Add(3 * time.Second)
	wantAt3 := statuses(t, ref, refs)
	assert.Equal(t, map[string]string{
		"momo": "succeeded fee 282.00", "bank": "succeeded fee 2022.50", "stranger": "failed recipient_account_invalid",
		"by-dest": "failed provider_unavailable", "fee": "succeeded fee 7.00", "nofee": "succeeded",
		"claw": "reversed fee 282.00", "declined": "failed declined", "late": "pending",
	}, wantAt2)
	assert.Equal(t, "succeeded fee 282.00", wantAt3["late"])

	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			c := &clock{t: t0}
			p1 := sandbox.New(&sandbox.Options{Store: s, Clock: c.now, Delay: 2 * time.Second})
			scenario(t, p1, c)
			for _, r := range refs {
				st, err := p1.Status(ctx, r)
				require.NoError(t, err)
				assert.Equal(t, tambala.ProviderPending, st.State, r)
			}

			// Restart: a new Provider, no scripts, over the reopened store.
			s = b.restart(t, s)
			defer s.Close()
			p2 := sandbox.New(&sandbox.Options{Store: s, Clock: c.now, Delay: 2 * time.Second})
			for _, r := range refs {
				st, err := p2.Status(ctx, r)
				require.NoError(t, err, r)
				assert.Equal(t, tambala.ProviderPending, st.State, "%s: still within its delay", r)
				assert.Equal(t, 1, p2.Payments(r), r)
			}
			c.t = t0.Add(2*time.Second - time.Nanosecond)
			assert.Equal(t, "pending", statuses(t, p2, refs)["momo"], "due 2s after the first submission, not before")
			c.t = t0.Add(2 * time.Second)
			assert.Equal(t, wantAt2, statuses(t, p2, refs))
			c.t = t0.Add(3 * time.Second)
			assert.Equal(t, wantAt3, statuses(t, p2, refs))

			// Submitting again, even with other details and under scripts
			// that would now decide otherwise, is the same payout.
			p2.ScriptDestination("265991234567", sandbox.Outcome{})
			p2.ScriptDestination("111100000112", sandbox.Outcome{Fail: "declined"})
			require.NoError(t, p2.Submit(ctx, sub("stranger", "265991234567")))
			require.NoError(t, p2.Submit(ctx, bankSub("momo", "3333888802", 99)))
			assert.Equal(t, wantAt3, statuses(t, p2, refs), "nothing decided at the first submission changed")
			for _, r := range refs {
				assert.Equal(t, 1, p2.Payments(r), "%s paid once", r)
			}
			assert.Equal(t, 1, p2.SubmitCalls("momo"), "calls are counted per Provider")

			// Only what was never submitted is unknown.
			_, err := p2.Status(ctx, "never")
			assert.ErrorIs(t, err, tambala.ErrUnknownReference)
			assert.Equal(t, 0, p2.Payments("never"))
			_, err = p2.Status(ctx, "")
			assert.ErrorIs(t, err, tambala.ErrUnknownReference)
		})
	}
}

// TestWithoutStoreNothingSurvives: without a Store each Provider has its
// own memory, as before.
func TestWithoutStoreNothingSurvives(t *testing.T) {
	ctx := context.Background()
	p1 := sandbox.New(&sandbox.Options{Delay: time.Nanosecond})
	require.NoError(t, p1.Submit(ctx, sub("r", "111100000112")))
	p2 := sandbox.New(&sandbox.Options{Delay: time.Nanosecond})
	_, err := p2.Status(ctx, "r")
	assert.ErrorIs(t, err, tambala.ErrUnknownReference)
	assert.Equal(t, 0, p2.Payments("r"))
	assert.Equal(t, 1, p1.Payments("r"))
}

// TestFeeDecidedAtSubmission: the fee and the time it is due are the ones
// decided when the payout was accepted, whatever schedule and delay the
// restarted Provider has.
func TestFeeDecidedAtSubmission(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			p1 := sandbox.New(&sandbox.Options{Store: s, Clock: c.now, Delay: time.Second})
			require.NoError(t, p1.Submit(ctx, sub("r", "111100000112")))

			s = b.restart(t, s)
			defer s.Close()
			dearer := payouts.DefaultFeeSchedule()
			dearer.Convenience = map[payouts.Rail]money.Amount{payouts.Momo: money.FromInt(money.MWK, 900)}
			p2 := sandbox.New(&sandbox.Options{Store: s, Clock: c.now, Delay: time.Hour, Fees: &dearer})
			c.t = c.t.Add(time.Second)
			st, err := p2.Status(ctx, "r")
			require.NoError(t, err)
			assert.Equal(t, tambala.ProviderSucceeded, st.State, "due when it was accepted, whatever the new delay")
			assert.Equal(t, "282.00", st.Fee.String())
			require.NoError(t, p2.Submit(ctx, sub("new", "111100000112")))
			c.t = c.t.Add(time.Hour)
			st, err = p2.Status(ctx, "new")
			require.NoError(t, err)
			assert.Equal(t, "1104.50", st.Fee.String(), "a new payout takes the new schedule: 900 + 40 + 164.50")
		})
	}
}

// TestScriptAfterSubmissionPersists: scripting a payout already submitted
// rewrites its stored outcome, not its time.
func TestScriptAfterSubmissionPersists(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			p1 := sandbox.New(&sandbox.Options{Store: s, Clock: c.now, Delay: 2 * time.Second})
			require.NoError(t, p1.Submit(ctx, sub("r", "111100000112")))
			c.t = c.t.Add(time.Second)
			p1.ScriptPayout("r", sandbox.Outcome{Fail: "bank_on_fire"})

			s = b.restart(t, s)
			defer s.Close()
			p2 := sandbox.New(&sandbox.Options{Store: s, Clock: c.now, Delay: 2 * time.Second})
			st, err := p2.Status(ctx, "r")
			require.NoError(t, err)
			assert.Equal(t, tambala.ProviderPending, st.State)
			c.t = c.t.Add(time.Second)
			st, err = p2.Status(ctx, "r")
			require.NoError(t, err)
			assert.Equal(t, tambala.ProviderStatus{State: tambala.ProviderFailed, FailureCode: "bank_on_fire"}, st)
		})
	}
}

// TestScriptedTimeoutsArePerProcess: a scripted timeout is one call of one
// process failing; a restarted Provider answers the next calls.
func TestScriptedTimeoutsArePerProcess(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			p1 := sandbox.New(&sandbox.Options{Store: s, Delay: time.Nanosecond})
			p1.ScriptPayout("r", sandbox.Outcome{TimeoutSubmits: 2, TimeoutStatus: 2})
			assert.ErrorIs(t, p1.Submit(ctx, sub("r", "111100000112")), sandbox.ErrTimeout, "accepted, but the call failed")
			assert.Equal(t, 1, p1.Payments("r"))

			s = b.restart(t, s)
			defer s.Close()
			p2 := sandbox.New(&sandbox.Options{Store: s, Delay: time.Nanosecond})
			assert.NoError(t, p2.Submit(ctx, sub("r", "111100000112")))
			time.Sleep(time.Millisecond)
			st, err := p2.Status(ctx, "r")
			require.NoError(t, err)
			assert.Equal(t, tambala.ProviderSucceeded, st.State)
			assert.Equal(t, 1, p2.Payments("r"))
		})
	}
}

// TestQuoteErrorPersists: a payout the fee schedule cannot price is
// accepted and answered with the schedule's error once due, before and
// after a restart, as before submissions were stored.
func TestQuoteErrorPersists(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			bankOnly := payouts.DefaultFeeSchedule()
			bankOnly.Convenience = map[payouts.Rail]money.Amount{payouts.Bank: money.FromInt(money.MWK, 500)}
			c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			p1 := sandbox.New(&sandbox.Options{Store: s, Clock: c.now, Delay: time.Second, Fees: &bankOnly})
			require.NoError(t, p1.Submit(ctx, sub("r", "111100000112")))
			st, err := p1.Status(ctx, "r")
			require.NoError(t, err)
			assert.Equal(t, tambala.ProviderPending, st.State)
			c.t = c.t.Add(time.Second)
			_, err = p1.Status(ctx, "r")
			assert.Equal(t, errcode.RateUnavailable, errcode.Of(err))

			s = b.restart(t, s)
			defer s.Close()
			p2 := sandbox.New(&sandbox.Options{Store: s, Clock: c.now, Delay: time.Second})
			_, err = p2.Status(ctx, "r")
			assert.Equal(t, errcode.RateUnavailable, errcode.Of(err), "decided at submission")
		})
	}
}

// TestStoreErrors: a submission the store did not take is not accepted
// (the engine submits again), and Status reports the store's error rather
// than an unknown reference.
func TestStoreErrors(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	p := sandbox.New(&sandbox.Options{Store: s, Delay: time.Nanosecond})
	require.NoError(t, p.Submit(ctx, sub("kept", "111100000112")))
	require.NoError(t, s.Close())
	assert.ErrorIs(t, p.Submit(ctx, sub("lost", "111100000112")), store.ErrClosed)
	_, err := p.Status(ctx, "kept")
	assert.ErrorIs(t, err, store.ErrClosed)
	assert.NotErrorIs(t, err, tambala.ErrUnknownReference)
	assert.Panics(t, func() { p.Payments("kept") }, "a test hook fails loudly")

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, p.Submit(canceled, sub("r", "111100000112")), context.Canceled)
	_, err = p.Status(canceled, "r")
	assert.ErrorIs(t, err, context.Canceled)
	assert.Error(t, p.Submit(ctx, sub("", "111100000112")), "a submission needs a reference")
}

// TestConcurrentSubmitsPayOnce: many calls, from two Providers over one
// store, for the same references: each is paid once, with one outcome.
func TestConcurrentSubmitsPayOnce(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := b.open(t)
			defer s.Close()
			ps := []*sandbox.Provider{
				sandbox.New(&sandbox.Options{Store: s, Delay: time.Nanosecond}),
				sandbox.New(&sandbox.Options{Store: s, Delay: time.Nanosecond}),
			}
			// The two would decide differently: the first Submit decides.
			ps[1].ScriptDestination("111100000112", sandbox.Outcome{Fail: "declined"})
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Go(func() {
					for r := range 5 {
						assert.NoError(t, ps[i%2].Submit(ctx, sub(fmt.Sprint("r", r), "111100000112")))
					}
				})
			}
			wg.Wait()
			time.Sleep(time.Millisecond)
			for r := range 5 {
				ref := fmt.Sprint("r", r)
				a, err := ps[0].Status(ctx, ref)
				require.NoError(t, err)
				b, err := ps[1].Status(ctx, ref)
				require.NoError(t, err)
				assert.Equal(t, a, b, "one outcome for %s", ref)
				assert.Equal(t, 1, ps[0].Payments(ref))
				assert.Equal(t, 16, ps[0].SubmitCalls(ref)+ps[1].SubmitCalls(ref))
			}
		})
	}
}

// TestStoredRecord documents the layout: one JSON record per reference in
// the sandbox's own bucket, beside the engine's.
func TestStoredRecord(t *testing.T) {
	s := memstore.New()
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := sandbox.New(&sandbox.Options{Store: s, Clock: c.now})
	require.NoError(t, p.Submit(context.Background(), sub("payout-1", "111100000112")))
	var raw []byte
	require.NoError(t, s.View(context.Background(), func(tx store.Tx) error {
		var err error
		raw, err = tx.Get([]byte(sandbox.Bucket), []byte("payout-1"))
		return err
	}))
	var rec map[string]any
	require.NoError(t, json.Unmarshal(raw, &rec))
	assert.Equal(t, map[string]any{
		"submitted_at": "2026-01-01T00:00:00Z", "due_at": "2026-01-01T00:00:02Z", "rail": "momo",
		"amount": map[string]any{"value": "5000.00", "asset": "MWK", "decimals": 2.0},
		"fee":    map[string]any{"value": "282.00", "asset": "MWK", "decimals": 2.0},
	}, rec)
}

// TestEngineRestart is issue #14's bug: payouts in flight when the server
// restarts used to stay pending forever, the new sandbox not knowing them.
// With the engine's store given to the sandbox they finish, paid once.
func TestEngineRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tambala.bolt")
	var mu sync.Mutex // the engine reads the clock from its goroutines
	at := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	locked := func() time.Time { mu.Lock(); defer mu.Unlock(); return at }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); at = at.Add(d) }

	start := func() (store.Store, *sandbox.Provider, *tambala.Engine) {
		s, err := boltstore.Open(path, nil)
		require.NoError(t, err)
		prov := sandbox.New(&sandbox.Options{Store: s, Clock: locked, Delay: 2 * time.Second})
		e, err := tambala.New(s, &tambala.Options{Clock: locked, Payouts: prov})
		require.NoError(t, err)
		return s, prov, e
	}
	s, _, e := start()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Restart"})
	require.NoError(t, err)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "start"))
	p, err := e.Act(ctx, org.ID)
	require.NoError(t, err)
	var ids []string
	for i, wallet := range []string{"111100000112", "265991234567"} {
		req := payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
			Destination: payouts.Destination{InstitutionID: 101, MobileNumber: wallet, BeneficiaryName: "Chikondi"}}
		out, err := e.Client(p).V1().CreatePayout(ctx, req, tambala.Idempotency{Key: fmt.Sprint("k", i)})
		require.NoError(t, err)
		ids = append(ids, out.Resource.ID)
	}
	status := func(e *tambala.Engine, id string) string {
		po, err := e.Client(p).V1().Payout(ctx, id)
		require.NoError(t, err)
		return string(po.Status)
	}
	_, err = e.Work().ProcessPayouts(ctx)
	require.NoError(t, err)
	for _, id := range ids {
		require.Equal(t, "pending", status(e, id), "submitted, in flight")
	}

	// The server restarts: a new store handle, sandbox and engine.
	require.NoError(t, s.Close())
	s, prov, e := start()
	defer s.Close()
	for range 10 {
		advance(time.Second)
		_, err := e.Work().ProcessPayouts(ctx)
		require.NoError(t, err)
	}
	assert.Equal(t, "succeeded", status(e, ids[0]))
	assert.Equal(t, "failed", status(e, ids[1]))
	for _, id := range ids {
		assert.Equal(t, 1, prov.Payments(id))
		assert.Equal(t, 0, prov.SubmitCalls(id), "the new process only asked for the status")
	}
	require.NoError(t, ledger.CheckStore(ctx, s))
}
