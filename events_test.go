package tambala_test

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// eventLog is an EventHandler that keeps what it is told, and can be
// made to fail.
type eventLog struct {
	mu     sync.Mutex
	events []tambala.Event
	seen   map[string]int
	fail   error
}

func (l *eventLog) HandleEvent(_ context.Context, ev tambala.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]int{}
	}
	l.seen[ev.ID]++
	if l.fail != nil {
		return l.fail
	}
	l.events = append(l.events, ev)
	return nil
}

func (l *eventLog) snapshot() []tambala.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]tambala.Event(nil), l.events...)
}

// resourceID is the id of the one resource an event carries, checking
// that exactly one is set and that it suits the event's type.
func resourceID(t *testing.T, ev tambala.Event) string {
	t.Helper()
	var ids []string
	kind := ""
	if ev.Payout != nil {
		ids, kind = append(ids, ev.Payout.ID), "payout."
		assert.Equal(t, ev.Type, "payout."+string(ev.Payout.Status), "a payout event carries the payout as it was then")
	}
	if ev.PayoutV2 != nil {
		ids, kind = append(ids, ev.PayoutV2.ID), "payout_v2."
	}
	if ev.Order != nil {
		ids, kind = append(ids, ev.Order.ID), "order."
	}
	if ev.Conversion != nil {
		ids, kind = append(ids, ev.Conversion.ID), "conversion."
		assert.Equal(t, ev.Type, "conversion."+string(ev.Conversion.Status))
	}
	if ev.Collection != nil {
		ids, kind = append(ids, ev.Collection.ID), "collection."
	}
	if ev.CollectionV2 != nil {
		ids, kind = append(ids, ev.CollectionV2.ID), "collection_v2."
	}
	if ev.Trade != nil {
		ids, kind = append(ids, ev.Trade.ID), "trade."
	}
	if ev.BalanceLow != nil {
		ids, kind = append(ids, ev.Org), "balance."
	}
	require.Len(t, ids, 1, "event %s (%s) carries one resource", ev.ID, ev.Type)
	assert.Regexp(t, "^"+kind, ev.Type)
	return ids[0]
}

// TestEvents_InProcessMatchTheOutbox: every event an organization's
// endpoint gets is told to the in-process handler too, once, typed, with
// the resource as it was when the event committed; an organization
// without an endpoint has its events told as well.
func TestEvents_InProcessMatchTheOutbox(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		log := &eventLog{}
		d := newDeskEnv(t, s, func(o *tambala.Options) {
			o.Converter = sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: convDelay})
			o.Payouts = sandbox.New(&sandbox.Options{Clock: o.Clock, Delay: time.Second})
			o.Events = log
		})
		ctx := d.ctx
		op := d.e.Operator()
		_, err := op.SetAssets(ctx, d.org.ID, convAssets())
		require.NoError(t, err)
		require.NoError(t, op.Fund(ctx, d.org.ID, money.FromInt(money.MWK, 100000), "start-mwk"))
		c := d.e.Client(d.p)

		// A desk order to completed.
		o := d.toBank(t, "10")
		d.move(t, o.ID, orders.StartProcessing{})
		d.move(t, o.ID, orders.Complete{})
		// A conversion to completed.
		q, err := c.QuoteConversion(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("5")})
		require.NoError(t, err)
		_, err = c.CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: "conv"})
		require.NoError(t, err)
		_, err = d.e.Work().ProcessConversions(ctx)
		require.NoError(t, err)
		d.clock.Advance(convDelay + time.Second)
		_, err = d.e.Work().ProcessConversions(ctx)
		require.NoError(t, err)
		// A /v1 payout to succeeded, a collection, a trade.
		po, err := c.V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: "po"})
		require.NoError(t, err)
		_, err = d.e.Work().ProcessPayouts(ctx)
		require.NoError(t, err)
		d.clock.Advance(2 * time.Second)
		_, err = d.e.Work().ProcessPayouts(ctx)
		require.NoError(t, err)
		_, err = c.V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 50), Rail: payouts.Momo})
		require.NoError(t, err)
		_, err = op.Desk().RecordTrade(ctx, d.org.ID, tambala.NewTrade{Ref: "t-1", USDTAmount: money.FromInt(money.USDT, 1), ClientRate: money.MustRate("1750")})
		require.NoError(t, err)
		// A floor above the balance: the next payout emits balance.low.
		_, err = op.SetBalanceFloor(ctx, d.org.ID, money.FromInt(money.MWK, 100_000_000))
		require.NoError(t, err)
		_, err = c.V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: "po-2"})
		require.NoError(t, err)
		// An organization without an endpoint.
		quiet, err := op.CreateOrganization(ctx, tambala.NewOrganization{Name: "Quiet"})
		require.NoError(t, err)
		qp := actFor(d.e, quiet.ID)
		_, err = d.e.Client(qp).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 70)})
		require.NoError(t, err)

		for {
			n, err := d.e.Work().ProcessEvents(ctx)
			require.NoError(t, err)
			if n == 0 {
				break
			}
		}
		got := log.snapshot()
		byID := map[string]tambala.Event{}
		for _, ev := range got {
			_, dup := byID[ev.ID]
			require.False(t, dup, "event %s told twice", ev.ID)
			byID[ev.ID] = ev
			resourceID(t, ev)
		}
		// Every outbox event of the organization, and nothing else of it.
		outbox := map[string]string{}
		page := tambala.PageRequest{Limit: tambala.MaxPageSize}
		for {
			pg, err := op.Deliveries(ctx, d.org.ID, page)
			require.NoError(t, err)
			for _, dv := range pg.Items {
				outbox[dv.ID] = dv.EventType
			}
			if pg.NextBeforeID == "" {
				break
			}
			page.BeforeID = pg.NextBeforeID
		}
		var types []string
		for id, typ := range outbox {
			ev, ok := byID[id]
			if assert.True(t, ok, "outbox event %s (%s) told in-process", id, typ) {
				assert.Equal(t, typ, ev.Type)
				assert.Equal(t, d.org.ID, ev.Org)
			}
			types = append(types, typ)
		}
		sort.Strings(types)
		for _, want := range []string{"order.processing", "order.completed", "conversion.completed", "payout.succeeded",
			"collection.settled", "trade.settled", "balance.low"} {
			assert.Contains(t, types, want)
		}
		quietEvents := 0
		for _, ev := range got {
			if ev.Org == quiet.ID {
				quietEvents++
				require.NotNil(t, ev.Collection)
				assert.Equal(t, "70.00", ev.Collection.AmountMWK.String())
			}
		}
		assert.Equal(t, 1, quietEvents, "an organization without an endpoint has its events told")
		assert.Equal(t, len(outbox)+1, len(got))
		// The payout event carries the payout as it succeeded.
		for _, ev := range got {
			if ev.Payout != nil && ev.Payout.ID == po.Resource.ID {
				assert.Equal(t, payouts.Succeeded, ev.Payout.Status)
				assert.Equal(t, "100.00", ev.Payout.Amount.String())
			}
			if ev.BalanceLow != nil {
				assert.Equal(t, "100000000.00", ev.BalanceLow.Floor.String())
				assert.Equal(t, money.MWK, ev.BalanceLow.Balance.Asset)
			}
		}
		// Handled events are forgotten.
		n, err := d.e.Work().ProcessEvents(ctx)
		require.NoError(t, err)
		assert.Zero(t, n)
		d.check(t)
	})
}

// TestEvents_FailedHandlingIsRetried: an event whose handler fails is
// handed over again after a delay, and kept until the handler accepts it.
func TestEvents_FailedHandlingIsRetried(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: deskT0}
	log := &eventLog{fail: errors.New("host is down")}
	e, err := tambala.New(memstore.New(), &tambala.Options{Clock: clock.Now, Events: log})
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "1000.00")
	_, err = e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 5)})
	require.NoError(t, err)

	n, err := e.Work().ProcessEvents(ctx)
	require.NoError(t, err)
	assert.Zero(t, n)
	n, err = e.Work().ProcessEvents(ctx) // not due again yet
	require.NoError(t, err)
	assert.Zero(t, n)
	log.mu.Lock()
	require.Len(t, log.seen, 1)
	for _, c := range log.seen {
		assert.Equal(t, 1, c)
	}
	log.fail = nil
	log.mu.Unlock()

	clock.Advance(time.Second)
	n, err = e.Work().ProcessEvents(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	require.Len(t, log.snapshot(), 1)
	assert.Equal(t, "collection.settled", log.snapshot()[0].Type)
	clock.Advance(time.Hour)
	n, err = e.Work().ProcessEvents(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "a handled event is forgotten")
}

// TestEvents_WithoutHandlerNothingIsKept: an engine without a handler
// refuses ProcessEvents and the event loop, and Run runs without them.
func TestEvents_WithoutHandler(t *testing.T) {
	e, err := tambala.New(memstore.New(), nil)
	require.NoError(t, err)
	_, err = e.Work().ProcessEvents(context.Background())
	assert.ErrorIs(t, err, tambala.ErrNoEventHandler)
	assert.ErrorIs(t, e.Run(context.Background(), tambala.LoopEvents), tambala.ErrNoEventHandler)
}

// TestRun_WithoutWebhookSender: Run's default loops need no sender; the
// payout worker runs and events reach the handler.
func TestRun_WithoutWebhookSender(t *testing.T) {
	log := &eventLog{}
	e, err := tambala.New(memstore.New(), &tambala.Options{
		Payouts: sandbox.New(&sandbox.Options{Delay: time.Millisecond}), Events: log,
		Worker: tambala.WorkerOptions{Interval: 5 * time.Millisecond}, EventLoop: tambala.EventOptions{Interval: 5 * time.Millisecond},
	})
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "10000.00")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	po, err := e.Client(p).V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: "k"})
	require.NoError(t, err)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var found bool
		for _, ev := range log.snapshot() {
			found = found || (ev.Payout != nil && ev.Payout.ID == po.Resource.ID && ev.Type == "payout.succeeded")
		}
		if found {
			break
		}
		require.True(t, time.Now().Before(deadline), "payout.succeeded never reached the handler")
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	require.NoError(t, <-done)
}
