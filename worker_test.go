package tambala_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type workerEnv struct {
	store    store.Store
	clock    *fakeClock
	provider *sandbox.Provider
	engine   *tambala.Engine
	p        tambala.Principal
}

func newWorkerEnv(t *testing.T, s store.Store) *workerEnv {
	t.Helper()
	clock := &fakeClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	prov := sandbox.New(&sandbox.Options{Clock: clock.Now, Delay: 2 * time.Second})
	w := &workerEnv{store: s, clock: clock, provider: prov}
	w.engine = w.open(t)
	w.p = fundedPrincipal(t, w.engine, "100000.00")
	t.Cleanup(func() {
		// w.store, not s: a restart test swaps the store.
		require.NoError(t, ledger.CheckStore(context.Background(), w.store))
		require.NoError(t, w.store.Close())
	})
	return w
}

// open makes an engine over the env's store: a restart is a new engine.
func (w *workerEnv) open(t *testing.T) *tambala.Engine {
	e, err := tambala.New(w.store, &tambala.Options{Clock: w.clock.Now, Payouts: w.provider})
	require.NoError(t, err)
	return e
}

func (w *workerEnv) payout(t *testing.T, rail payouts.Rail, body string) string {
	t.Helper()
	out, err := createFromBody(context.Background(), w.engine, w.p, rail, body, []byte(body))
	require.NoError(t, err)
	var po struct{ ID string }
	require.NoError(t, json.Unmarshal(out.Body, &po))
	return po.ID
}

func (w *workerEnv) read(t *testing.T, id string) map[string]any {
	t.Helper()
	b, err := payoutBytes(w.engine.Client(w.p).V1().Payout(context.Background(), id))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func (w *workerEnv) run(t *testing.T, steps int, step time.Duration) {
	t.Helper()
	for range steps {
		_, err := w.engine.Work().ProcessPayouts(context.Background())
		require.NoError(t, err)
		w.clock.Advance(step)
	}
}

func (w *workerEnv) balance(t *testing.T) ledger.Balance {
	b, err := w.engine.Client(w.p).V1().Balance(context.Background())
	require.NoError(t, err)
	return b
}

func momo(number string, amount int) string {
	return fmt.Sprintf(`{"amount_mwk":%d,"institution_id":101,"mobile_number":%q,"beneficiary_name":"Chikondi"}`, amount, number)
}

func TestWorkerSucceedsWithScheduleFee(t *testing.T) {
	w := newWorkerEnv(t, memstore.New())
	id := w.payout(t, payouts.Momo, momo("111100000112", 5000))
	assert.Equal(t, "held", w.read(t, id)["status"])
	w.run(t, 1, 0)
	assert.Equal(t, "pending", w.read(t, id)["status"])
	w.run(t, 4, time.Second)
	po := w.read(t, id)
	assert.Equal(t, "succeeded", po["status"])
	assert.Equal(t, "282.00", po["fee"])
	assert.NotNil(t, po["terminal_at"])
	assert.Nil(t, po["failure"])
	b := w.balance(t)
	assert.Equal(t, "94718.00", b.Available.String()) // 100000 - 5282.00 (total_debit)
	assert.Equal(t, "0.00", b.Held.String())
	assert.Equal(t, 1, w.provider.Payments(id))
}

func TestWorkerFailsAndReleases(t *testing.T) {
	w := newWorkerEnv(t, memstore.New())
	bad := w.payout(t, payouts.Momo, momo("265991234567", 1000)) // not a sandbox test wallet
	odd := w.payout(t, payouts.Momo, momo("111100000221", 1000))
	w.provider.ScriptPayout(odd, sandbox.Outcome{Fail: "bank_on_fire"})
	w.run(t, 5, time.Second)
	for id, code := range map[string]string{bad: "recipient_account_invalid", odd: "declined"} {
		po := w.read(t, id)
		assert.Equal(t, "failed", po["status"])
		assert.Equal(t, "0.00", po["fee"])
		assert.Equal(t, code, po["failure"].(map[string]any)["code"])
		assert.NotNil(t, po["terminal_at"])
	}
	b := w.balance(t)
	assert.Equal(t, "100000.00", b.Available.String())
	assert.Equal(t, "0.00", b.Held.String())
	// A failed payout is never retried.
	w.run(t, 5, time.Minute)
	assert.Equal(t, 1, w.provider.SubmitCalls(bad))
}

func TestWorkerClawback(t *testing.T) {
	w := newWorkerEnv(t, memstore.New())
	id := w.payout(t, payouts.Bank, `{"amount_mwk":10000,"institution_id":1,"account_number":"3333888800","beneficiary_name":"B"}`)
	w.run(t, 5, time.Second)
	before := w.read(t, id)
	require.Equal(t, "succeeded", before["status"])
	require.NoError(t, w.engine.Operator().BackOffice().ClawbackPayout(context.Background(), id))
	after := w.read(t, id)
	assert.Equal(t, "reversed", after["status"])
	assert.Equal(t, before["fee"], after["fee"], "a reversed payout keeps its fee")
	assert.Equal(t, before["terminal_at"], after["terminal_at"], "terminal_at never moves")
	assert.Nil(t, after["failure"])
	b := w.balance(t)
	// 10000 bank: fee 500 + 80 + 101.50 = 681.50; the amount came back, the fee did not.
	assert.Equal(t, "99318.50", b.Available.String())
	err := w.engine.Operator().BackOffice().ClawbackPayout(context.Background(), id)
	assert.Error(t, err, "a payout is clawed back once")

	// A clawback the provider reports at once is succeeded then reversed.
	id2 := w.payout(t, payouts.Bank, `{"amount_mwk":100,"institution_id":1,"account_number":"3333888801","beneficiary_name":"B"}`)
	w.provider.ScriptPayout(id2, sandbox.Outcome{Clawback: true})
	w.run(t, 5, time.Second)
	assert.Equal(t, "reversed", w.read(t, id2)["status"])
}

// TestWorkerTimeoutCrashRestart: the provider accepts a submission but the
// call times out; the worker process dies; a new engine over the same file
// resubmits with the same reference and the provider pays once.
func TestWorkerTimeoutCrashRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	w := newWorkerEnv(t, s)
	id := w.payout(t, payouts.Momo, momo("111100000330", 2000))
	w.provider.ScriptPayout(id, sandbox.Outcome{TimeoutSubmits: 1, TimeoutStatus: 1})
	w.run(t, 1, 0)
	assert.Equal(t, "submitted", w.read(t, id)["status"])
	assert.Equal(t, 1, w.provider.SubmitCalls(id))

	// Crash: close the store, reopen it, start a new engine.
	require.NoError(t, s.Close())
	s2, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	w.store = s2
	w.engine = w.open(t)
	w.run(t, 1, 0) // still backing off: nothing is sent
	assert.Equal(t, 1, w.provider.SubmitCalls(id))
	w.run(t, 10, 2*time.Second)
	assert.Equal(t, "succeeded", w.read(t, id)["status"])
	assert.Equal(t, 2, w.provider.SubmitCalls(id))
	assert.Equal(t, 1, w.provider.Payments(id), "never a second payment")
	require.NoError(t, ledger.CheckStore(context.Background(), s2))
}

// TestWorkersRace: several workers over one store finish every payout
// exactly once.
func TestWorkersRace(t *testing.T) {
	eachStore(t, testWorkersRace)
}

func testWorkersRace(t *testing.T, s store.Store) {
	w := newWorkerEnv(t, s)
	var ids []string
	for i := range 20 {
		ids = append(ids, w.payout(t, payouts.Momo, momo(tambala.SandboxWallets[i%len(tambala.SandboxWallets)], 100+i)))
	}
	engines := []*tambala.Engine{w.engine, w.open(t), w.open(t)}
	for range 8 {
		var wg sync.WaitGroup
		for _, e := range engines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := e.Work().ProcessPayouts(context.Background())
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		w.clock.Advance(time.Second)
	}
	for _, id := range ids {
		assert.Equal(t, "succeeded", w.read(t, id)["status"])
		assert.Equal(t, 1, w.provider.SubmitCalls(id), "claimed by one worker at a time")
	}
	assert.Equal(t, "0.00", w.balance(t).Held.String())
}

// TestWorkerFeeAboveHold: a provider charging more than the quoted fee is
// charged in full; what available cannot cover becomes the shortfall,
// which the next collection covers first.
func TestWorkerFeeAboveHold(t *testing.T) {
	w := newWorkerEnv(t, memstore.New())
	ctx := context.Background()
	fee, err := money.Parse(money.MWK, "300.00") // a 500.00 momo payout is quoted 239.70
	require.NoError(t, err)

	// With money available, the excess 60.30 comes out of available.
	id := w.payout(t, payouts.Momo, momo("111100000445", 500))
	w.provider.ScriptPayout(id, sandbox.Outcome{Fee: &fee})
	w.run(t, 5, time.Second)
	po := w.read(t, id)
	assert.Equal(t, "succeeded", po["status"])
	assert.Equal(t, "300.00", po["fee"])
	b := w.balance(t)
	assert.Equal(t, "99200.00", b.Available.String()) // 100000 - 500 - 300
	assert.Equal(t, "0.00", b.Shortfall.String())

	// With exactly one debit funded, the excess becomes the shortfall.
	w.p = fundedPrincipal(t, w.engine, "739.70")
	id = w.payout(t, payouts.Momo, momo("111100000553", 500))
	w.provider.ScriptPayout(id, sandbox.Outcome{Fee: &fee})
	w.run(t, 5, time.Second)
	assert.Equal(t, "succeeded", w.read(t, id)["status"])
	b = w.balance(t)
	assert.Equal(t, "0.00", b.Available.String())
	assert.Equal(t, "0.00", b.Held.String())
	assert.Equal(t, "60.30", b.Shortfall.String())

	// The next collection covers the shortfall first: 100 less 1.50 is 98.50.
	_, err = w.engine.Client(w.p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 100)})
	require.NoError(t, err)
	b = w.balance(t)
	assert.Equal(t, "38.20", b.Available.String())
	assert.Equal(t, "0.00", b.Shortfall.String())
}

// slowProvider is the sandbox provider with each Submit taking a while,
// counting the calls under way at once.
// With overlap set, the first call waits (up to 10 s) for a second to
// begin, so that overlapping calls do not depend on the scheduler.
type slowProvider struct {
	*sandbox.Provider
	delay          time.Duration
	overlap        bool
	inFlight, most atomic.Int64
	second         chan struct{}
	once           sync.Once
}

func (s *slowProvider) Submit(ctx context.Context, sub tambala.PayoutSubmission) error {
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for m := s.most.Load(); cur > m && !s.most.CompareAndSwap(m, cur); m = s.most.Load() {
	}
	if s.overlap {
		if cur >= 2 {
			s.once.Do(func() { close(s.second) })
		}
		select {
		case <-s.second:
		case <-time.After(10 * time.Second):
		}
	}
	time.Sleep(s.delay)
	return s.Provider.Submit(ctx, sub)
}

// TestWorkerConcurrency: one pass makes up to Concurrency provider calls at
// once, never two for one payout, and each payout is submitted once.
func TestWorkerConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name        string
		store       func(t *testing.T) store.Store
		concurrency int
	}{
		{"memstore, default", func(*testing.T) store.Store { return memstore.New() }, 0},
		{"memstore, one", func(*testing.T) store.Store { return memstore.New() }, 1},
		{"boltstore, 4", func(t *testing.T) store.Store {
			s, err := boltstore.Open(filepath.Join(t.TempDir(), "w.db"), nil)
			require.NoError(t, err)
			return s
		}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkerEnv(t, tc.store(t))
			slow := &slowProvider{Provider: w.provider, delay: time.Millisecond,
				overlap: tc.concurrency != 1, second: make(chan struct{})}
			e, err := tambala.New(w.store, &tambala.Options{Clock: w.clock.Now, Payouts: slow,
				Worker: tambala.WorkerOptions{Concurrency: tc.concurrency}})
			require.NoError(t, err)
			var ids []string
			for i := range 24 {
				ids = append(ids, w.payout(t, payouts.Momo, momo(tambala.SandboxWallets[i%len(tambala.SandboxWallets)], 100+i)))
			}
			n, err := e.Work().ProcessPayouts(context.Background())
			require.NoError(t, err)
			require.Equal(t, 24, n)
			want := int64(max(1, tc.concurrency))
			if tc.concurrency == 0 {
				want = 8
			}
			require.LessOrEqual(t, slow.most.Load(), want)
			if want > 1 {
				require.Greater(t, slow.most.Load(), int64(1), "calls overlapped")
			}
			for _, id := range ids {
				require.Equal(t, 1, w.provider.SubmitCalls(id))
				require.Equal(t, "pending", w.read(t, id)["status"])
			}
			w.clock.Advance(3 * time.Second)
			_, err = e.Work().ProcessPayouts(context.Background())
			require.NoError(t, err)
			for _, id := range ids {
				require.Equal(t, "succeeded", w.read(t, id)["status"])
			}
			require.Equal(t, "0.00", w.balance(t).Held.String())
		})
	}
}

// TestRunPayoutWorkerDrainsBacklog: a pass that takes a whole Batch is
// followed by the next at once, not after the interval.
func TestRunPayoutWorkerDrainsBacklog(t *testing.T) {
	w := newWorkerEnv(t, memstore.New())
	e, err := tambala.New(w.store, &tambala.Options{Clock: w.clock.Now, Payouts: w.provider,
		Worker: tambala.WorkerOptions{Batch: 5}})
	require.NoError(t, err)
	var ids []string
	for i := range 23 {
		ids = append(ids, w.payout(t, payouts.Momo, momo(tambala.SandboxWallets[i%len(tambala.SandboxWallets)], 100+i)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.Work().RunPayoutWorker(ctx, time.Hour) }()
	require.Eventually(t, func() bool {
		for _, id := range ids {
			if w.read(t, id)["status"] != "pending" {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond, "five passes in a row, none waiting out the hour")
	cancel()
	require.NoError(t, <-done)
}
