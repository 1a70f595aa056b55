package tambala_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/store"
)

// heldProvider holds every Submit until the test lets it go, and counts
// the calls under way.
type heldProvider struct {
	tambala.PayoutProvider
	inCall  atomic.Int32
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func (p *heldProvider) Submit(ctx context.Context, s tambala.PayoutSubmission) error {
	p.inCall.Add(1)
	defer p.inCall.Add(-1)
	p.once.Do(func() { close(p.entered) })
	<-p.release // a provider call that ignores ctx: the worst case
	return p.PayoutProvider.Submit(ctx, s)
}

type nopSender struct{}

func (nopSender) Send(context.Context, string, []byte, string) (tambala.SendResult, error) {
	return tambala.SendResult{StatusCode: 200}, nil
}

// closedAware fails the test if the engine touches the store after Close.
type closedAware struct {
	store.Store
	closed atomic.Bool
	t      *testing.T
}

func (s *closedAware) View(ctx context.Context, fn func(store.Tx) error) error {
	if s.closed.Load() {
		s.t.Error("View after Close")
	}
	return s.Store.View(ctx, fn)
}

func (s *closedAware) Update(ctx context.Context, fn func(store.Tx) error) error {
	if s.closed.Load() {
		s.t.Error("Update after Close")
	}
	return s.Store.Update(ctx, fn)
}

func (s *closedAware) Close() error { s.closed.Store(true); return s.Store.Close() }

func TestRun_FailsFastWithoutPorts(t *testing.T) {
	ctx := context.Background()
	e, err := tambala.New(memstore.New(), &tambala.Options{Webhooks: nopSender{}})
	require.NoError(t, err)
	assert.ErrorIs(t, e.Run(ctx), tambala.ErrNoPayoutProvider)
	assert.ErrorIs(t, e.Work().RunPayoutWorker(ctx, time.Millisecond), tambala.ErrNoPayoutProvider)
	_, err = e.Work().ProcessPayouts(ctx)
	assert.ErrorIs(t, err, tambala.ErrNoPayoutProvider)

	e, err = tambala.New(memstore.New(), &tambala.Options{Payouts: sandbox.New(nil)})
	require.NoError(t, err)
	// Without a sender Run runs the other loops (deliveries wait); the
	// dispatcher named explicitly cannot run.
	assert.ErrorIs(t, e.Run(ctx, tambala.LoopDeliveries), tambala.ErrNoWebhookSender)
	assert.ErrorIs(t, e.Run(ctx, tambala.LoopConversions), tambala.ErrNoConverter)
	assert.ErrorIs(t, e.Run(ctx, tambala.LoopEvents), tambala.ErrNoEventHandler)
	assert.ErrorIs(t, e.Run(ctx, tambala.Loop(99)), tambala.ErrUnknownLoop)
	assert.ErrorIs(t, e.Work().RunDispatcher(ctx, time.Millisecond), tambala.ErrNoWebhookSender)
	_, err = e.Work().ProcessDeliveries(ctx)
	assert.ErrorIs(t, err, tambala.ErrNoWebhookSender)
	assert.Contains(t, tambala.ErrNoWebhookSender.Error(), "Options.Webhooks", "the error names what is missing")
}

// Run returns only after the pass under way has finished, so the store
// can be closed right after it; a second Run at once is refused.
func TestRun_ReturnsAfterPassesFinish(t *testing.T) {
	s := &closedAware{Store: memstore.New(), t: t}
	prov := &heldProvider{PayoutProvider: sandbox.New(nil), entered: make(chan struct{}), release: make(chan struct{})}
	e, err := tambala.New(s, &tambala.Options{Payouts: prov, Webhooks: nopSender{},
		Worker: tambala.WorkerOptions{Interval: time.Millisecond}, Dispatcher: tambala.DispatcherOptions{Interval: time.Millisecond}})
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "100000.00")
	_, err = e.Client(p).V1().CreatePayout(context.Background(), momoRequest("100"), tambala.Idempotency{Key: "k"})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	<-prov.entered // the worker is inside a provider call
	assert.ErrorIs(t, e.Run(ctx), tambala.ErrRunning)
	cancel()
	select {
	case err := <-done:
		t.Fatalf("Run returned (%v) while a provider call was under way", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(prov.release)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its passes finished")
	}
	assert.Zero(t, prov.inCall.Load())
	require.NoError(t, s.Close())
	time.Sleep(20 * time.Millisecond) // nothing may touch the store now
	// Run may run again once the first has returned.
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	e2, err := tambala.New(memstore.New(), &tambala.Options{Payouts: sandbox.New(nil), Webhooks: nopSender{}})
	require.NoError(t, err)
	assert.NoError(t, e2.Run(ctx2))
	assert.NoError(t, e2.Run(ctx2))
}

// Run drives a payout to succeeded with no other call from the host.
func TestRun_PayoutSucceeds(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		e, err := tambala.New(s, &tambala.Options{Payouts: sandbox.New(&sandbox.Options{Delay: time.Millisecond}), Webhooks: nopSender{},
			Worker: tambala.WorkerOptions{Interval: 5 * time.Millisecond, Poll: 5 * time.Millisecond}})
		require.NoError(t, err)
		p := fundedPrincipal(t, e, "100000.00")
		c, err := e.Client(p).V1().CreatePayout(context.Background(), momoRequest("5000"), tambala.Idempotency{Key: "run"})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- e.Run(ctx) }()
		deadline := time.Now().Add(10 * time.Second)
		for {
			po, err := e.Client(p).V1().Payout(context.Background(), c.Resource.ID)
			require.NoError(t, err)
			if po.Status.Terminal() {
				assert.Equal(t, "succeeded", string(po.Status))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("payout still %s", po.Status)
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		require.NoError(t, <-done)
	})
}
