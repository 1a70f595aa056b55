package tambala_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

// collect simulates n collections of p's organization, each committing
// one collection.settled event, and returns their ids.
func collect(t *testing.T, e *tambala.Engine, p tambala.Principal, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		c, err := e.Client(p).V1().SimulateCollection(context.Background(), tambala.SimulatedCollection{Amount: mwkAmt(t, "1.00"), Rail: payouts.Bank})
		require.NoError(t, err)
		ids[i] = c.ID
	}
	return ids
}

// drain reads what sub has buffered until it ends or nothing more is
// buffered.
func drain(sub *tambala.Subscription) []tambala.Event {
	var out []tambala.Event
	for {
		select {
		case ev, ok := <-sub.C():
			if !ok {
				return out
			}
			out = append(out, ev)
		default:
			return out
		}
	}
}

// TestSubscribe_BlockedSubscriberBlocksNobody: a subscriber that never
// reads does not hold up the engine's commands, and costs the other
// subscribers no event; it is closed and told it lost events, after the
// events it had buffered.
func TestSubscribe_BlockedSubscriberBlocksNobody(t *testing.T) {
	e, err := tambala.New(memstore.New(), &tambala.Options{EventLoop: tambala.EventOptions{Buffer: 2}})
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "10.00")
	blocked := e.Events().Subscribe(tambala.EventFilter{}, 0)
	defer blocked.Close()

	// The reader keeps up: it reads each event after each command.
	reader := e.Events().Subscribe(tambala.EventFilter{}, 1)
	var ids []string
	for range 20 {
		// Each command returns although blocked is full from the third on.
		id := collect(t, e, p, 1)[0]
		ids = append(ids, id)
		ev, err := reader.Next(context.Background())
		require.NoError(t, err)
		assert.Equal(t, id, ev.ResourceID(), "the reader is given every event")
	}
	reader.Close()
	assert.NoError(t, reader.Err(), "a subscription closed by its reader did not overflow")

	kept := drain(blocked)
	require.Len(t, kept, 2, "the blocked subscriber keeps what its buffer held")
	assert.Equal(t, ids[:2], []string{kept[0].ResourceID(), kept[1].ResourceID()})
	_, open := <-blocked.C()
	assert.False(t, open, "an overflowed subscription is closed")
	assert.ErrorIs(t, blocked.Err(), tambala.ErrSubscriptionOverflow)
	_, err = blocked.Next(context.Background())
	assert.ErrorIs(t, err, tambala.ErrSubscriptionOverflow, "Next tells the reader it lost events")
	_, err = reader.Next(context.Background())
	assert.ErrorIs(t, err, tambala.ErrSubscriptionClosed)

	// A subscription made after the overflow is given events as usual.
	again := e.Events().Subscribe(tambala.EventFilter{}, 0)
	defer again.Close()
	later := collect(t, e, p, 1)
	ev, err := again.Next(context.Background())
	require.NoError(t, err)
	assert.Equal(t, later[0], ev.ResourceID())
	assert.Equal(t, "collection.settled", ev.Type)
	assert.Equal(t, p.Org.ID, ev.Org)
	require.NotNil(t, ev.Collection)
}

// TestSubscribe_ConcurrentCommandsAndSubscribers: commands committing
// events from many goroutines, while subscribers come and go and one
// never reads, all finish; every reader that kept up has every event of
// its organization (run under -race).
func TestSubscribe_ConcurrentCommandsAndSubscribers(t *testing.T) {
	e, err := tambala.New(memstore.New(), nil)
	require.NoError(t, err)
	const orgs, each = 4, 15
	ps := make([]tambala.Principal, orgs)
	for i := range ps {
		ps[i] = fundedPrincipal(t, e, "10.00")
	}
	stuck := e.Events().Subscribe(tambala.EventFilter{}, 1)
	defer stuck.Close()

	// One reader per organization, with room for all its events.
	readers := make([]*tambala.Subscription, orgs)
	seen := make([]chan map[string]bool, orgs)
	for i, p := range ps {
		readers[i] = e.Events().Subscribe(tambala.EventFilter{Org: p.Org.ID}, each)
		seen[i] = make(chan map[string]bool, 1)
		go func() {
			m := map[string]bool{}
			for ev := range readers[i].C() {
				m[ev.ResourceID()] = true
			}
			seen[i] <- m
		}()
	}
	var wg sync.WaitGroup
	made := make([][]string, orgs)
	for i, p := range ps {
		wg.Go(func() { made[i] = collect(t, e, p, each) })
		wg.Go(func() { // subscribers that come and go meanwhile
			for range each {
				s := e.Events().Subscribe(tambala.EventFilter{Org: p.Org.ID, Types: []string{"collection.*"}}, 1)
				drain(s)
				s.Close()
			}
		})
	}
	wg.Wait()
	assert.ErrorIs(t, stuck.Err(), tambala.ErrSubscriptionOverflow)
	for i := range ps {
		readers[i].Close()
		m := <-seen[i]
		assert.NoError(t, readers[i].Err())
		assert.Len(t, m, each)
		for _, id := range made[i] {
			assert.True(t, m[id], "organization %d's reader has collection %s", i, id)
		}
	}
}

// TestSubscribe_Filter: a subscription is given the events its filter
// passes, and no other.
func TestSubscribe_Filter(t *testing.T) {
	e, err := tambala.New(memstore.New(), nil)
	require.NoError(t, err)
	a, b := fundedPrincipal(t, e, "10.00"), fundedPrincipal(t, e, "10.00")
	subs := map[string]tambala.EventFilter{
		"all":        {},
		"org a":      {Org: a.Org.ID},
		"kind":       {Types: []string{"collection.*"}},
		"type":       {Types: []string{"collection.settled"}},
		"other type": {Types: []string{"payout.succeeded", "order.*"}},
		"prefix":     {Types: []string{"collection_v2.*"}},
	}
	open := map[string]*tambala.Subscription{}
	for name, f := range subs {
		open[name] = e.Events().Subscribe(f, 0)
		defer open[name].Close()
	}
	ida := collect(t, e, a, 2)
	idb := collect(t, e, b, 1)
	one := e.Events().Subscribe(tambala.EventFilter{Org: a.Org.ID, ID: ida[1]}, 0)
	defer one.Close()
	wrongOrg := e.Events().Subscribe(tambala.EventFilter{Org: b.Org.ID, ID: ida[1]}, 0)
	defer wrongOrg.Close()
	// A reversal is a second event about the same resource.
	_, err = e.Operator().ReverseCollection(context.Background(), a.Org.ID, ida[1])
	require.NoError(t, err)

	ids := func(s *tambala.Subscription) []string {
		var out []string
		for _, ev := range drain(s) {
			out = append(out, ev.Type+" "+ev.ResourceID())
		}
		return out
	}
	settled := func(id string) string { return "collection.settled " + id }
	reversed := "collection.reversed " + ida[1]
	assert.Equal(t, []string{settled(ida[0]), settled(ida[1]), settled(idb[0]), reversed}, ids(open["all"]))
	assert.Equal(t, []string{settled(ida[0]), settled(ida[1]), reversed}, ids(open["org a"]))
	assert.Equal(t, []string{settled(ida[0]), settled(ida[1]), settled(idb[0]), reversed}, ids(open["kind"]))
	assert.Equal(t, []string{settled(ida[0]), settled(ida[1]), settled(idb[0])}, ids(open["type"]))
	assert.Empty(t, ids(open["other type"]))
	assert.Empty(t, ids(open["prefix"]), "collection_v2.* does not name collection.*")
	assert.Equal(t, []string{reversed}, ids(one), "subscribed after the settlement: only the reversal")
	assert.Empty(t, ids(wrongOrg))

	assert.True(t, tambala.EventFilter{Types: []string{"order.*"}}.Match(tambala.Event{Type: orders.EventCompleted}))
	assert.False(t, tambala.EventFilter{Types: []string{"order.*"}}.Match(tambala.Event{Type: "orders.completed"}))
	assert.Equal(t, "", tambala.Event{Type: "balance.low", BalanceLow: &tambala.BalanceLow{}}.ResourceID())
}

// TestSubscribe_SameEventAsTheHandler: with Options.Events set, a
// subscriber is given the event the handler is later given, with the
// same ID and resource.
func TestSubscribe_SameEventAsTheHandler(t *testing.T) {
	log := &eventLog{}
	e, err := tambala.New(memstore.New(), &tambala.Options{Events: log})
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "10.00")
	sub := e.Events().Subscribe(tambala.EventFilter{Org: p.Org.ID}, 0)
	defer sub.Close()
	collect(t, e, p, 1)
	ev, err := sub.Next(context.Background())
	require.NoError(t, err)
	_, err = e.Work().ProcessEvents(context.Background())
	require.NoError(t, err)
	handled := log.snapshot()
	require.Len(t, handled, 1)
	assert.Equal(t, handled[0], ev)
}

// settledEngine is an engine with the sandbox provider on a clock the
// test moves, and a funded organization.
func settledEngine(t *testing.T, opts *tambala.Options) (*tambala.Engine, tambala.Principal, func()) {
	t.Helper()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	opts.Clock = clock
	opts.Payouts = sandbox.New(&sandbox.Options{Clock: clock, Delay: time.Second})
	e, err := tambala.New(memstore.New(), opts)
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "100000.00")
	settle := func() { // the worker's passes, as Run would make them
		for range 3 {
			_, err := e.Work().ProcessPayouts(context.Background())
			require.NoError(t, err)
			mu.Lock()
			now = now.Add(time.Second)
			mu.Unlock()
		}
	}
	return e, p, settle
}

// TestWaitPayout_ReturnsWhenItSettles: WaitPayout, called while the
// payout is held, returns it succeeded once the worker settles it,
// without any event handler configured.
func TestWaitPayout_ReturnsWhenItSettles(t *testing.T) {
	e, p, settle := settledEngine(t, &tambala.Options{EventLoop: tambala.EventOptions{Recheck: time.Hour}})
	ctx := context.Background()
	c := e.Client(p)
	po, err := c.V1().CreatePayout(ctx, momoRequest("5000"), tambala.Idempotency{Key: "k"})
	require.NoError(t, err)

	// The waiter's subscription exists once the worker may settle: a
	// probe subscription made after WaitPayout subscribed sees the same
	// events, so the test settles once the waiter is waiting.
	type result struct {
		p   payouts.Payout
		err error
	}
	done := make(chan result, 1)
	go func() {
		got, err := c.V1().WaitPayout(ctx, po.Resource.ID)
		done <- result{got, err}
	}()
	waitSubscribed(t, e, 1)
	settle()
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, payouts.Succeeded, r.p.Status)
	assert.Equal(t, po.Resource.ID, r.p.ID)
	read, err := c.V1().Payout(ctx, po.Resource.ID)
	require.NoError(t, err)
	assert.Equal(t, read, r.p, "the payout as the event carried it is the payout as read")
	assert.Equal(t, 0, tambala.OpenSubscriptions(e), "the waiter closed its subscription")
}

// TestWaitPayout_AlreadySettled: a payout that settled before the call is
// returned at once; an unknown or foreign id is not_found; a wait whose
// context ends returns its error.
func TestWaitPayout_AlreadySettled(t *testing.T) {
	e, p, settle := settledEngine(t, &tambala.Options{})
	ctx := context.Background()
	c := e.Client(p)
	po, err := c.V1().CreatePayout(ctx, momoRequest("5000"), tambala.Idempotency{Key: "k"})
	require.NoError(t, err)
	settle()
	got, err := c.V1().WaitPayout(ctx, po.Resource.ID)
	require.NoError(t, err)
	assert.Equal(t, payouts.Succeeded, got.Status)

	other := fundedPrincipal(t, e, "10.00")
	_, err = e.Client(other).V1().WaitPayout(ctx, po.Resource.ID)
	assert.Equal(t, errcode.NotFound, errcode.Of(err), "a foreign payout")

	held, err := c.V1().CreatePayout(ctx, momoRequest("100"), tambala.Idempotency{Key: "held"})
	require.NoError(t, err)
	short, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.V1().WaitPayout(short, held.Resource.ID)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 0, tambala.OpenSubscriptions(e))
}

// TestWaitPayout_SettledByAnotherEngine: an engine sharing the store
// settles the payout; the waiter, told of none of that engine's events,
// finds it terminal when it reads again (EventOptions.Recheck).
func TestWaitPayout_SettledByAnotherEngine(t *testing.T) {
	worker, p, settle := settledEngine(t, &tambala.Options{})
	api, err := tambala.New(worker.Settings().Store(), &tambala.Options{EventLoop: tambala.EventOptions{Recheck: time.Millisecond}})
	require.NoError(t, err)
	ctx := context.Background()
	po, err := worker.Client(p).V1().CreatePayout(ctx, momoRequest("5000"), tambala.Idempotency{Key: "k"})
	require.NoError(t, err)
	done := make(chan payouts.Payout, 1)
	go func() {
		got, err := api.Client(p).V1().WaitPayout(ctx, po.Resource.ID)
		assert.NoError(t, err)
		done <- got
	}()
	waitSubscribed(t, api, 1)
	settle()
	assert.Equal(t, payouts.Succeeded, (<-done).Status)
}

// waitSubscribed waits until e has n open subscriptions.
func waitSubscribed(t *testing.T, e *tambala.Engine, n int) {
	t.Helper()
	for tambala.OpenSubscriptions(e) < n {
		time.Sleep(time.Millisecond)
	}
}

// TestWaitPayoutV2: WaitPayoutV2 returns a /v2 payout once terminal,
// failed as well as succeeded; a /v1 payout's id is not_found to it.
func TestWaitPayoutV2(t *testing.T) {
	d := newPV2Env(t, memstore.New(), func(o *tambala.Options) { o.EventLoop.Recheck = time.Hour })
	c := d.e.Client(d.p)
	ok := d.pay(t, "MWK", "MWK", "1000.00", momoDest())
	d.prov.ScriptDestination(pv2EVM, sandbox.Outcome{Fail: string(payouts.Declined)})
	declined := d.pay(t, "USDT", "USDT", "5", walletDest("ethereum", pv2EVM))
	got := make(chan tambala.PayoutV2, 2)
	for _, id := range []string{ok.ID, declined.ID} {
		go func() {
			p, err := c.WaitPayout(d.ctx, id)
			assert.NoError(t, err)
			got <- p
		}()
	}
	waitSubscribed(t, d.e, 2)
	d.drain(t)
	status := map[string]payouts.Status{}
	for range 2 {
		p := <-got
		status[p.ID] = p.Status
	}
	assert.Equal(t, map[string]payouts.Status{ok.ID: payouts.Succeeded, declined.ID: payouts.Failed}, status)

	v1, err := c.V1().CreatePayout(d.ctx, momoRequest("100"), tambala.Idempotency{Key: "v1"})
	require.NoError(t, err)
	_, err = c.WaitPayout(d.ctx, v1.Resource.ID)
	assert.Equal(t, errcode.NotFound, errcode.Of(err))
}

// runsTwice is a store that runs every update's function twice, the
// first run rolled back, as a store does after a write conflict.
type runsTwice struct{ store.Store }

var errRunAgain = errors.New("run again")

func (s runsTwice) Update(ctx context.Context, fn func(store.Tx) error) error {
	first := true
	for {
		err := s.Store.Update(ctx, func(tx store.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			if first {
				first = false
				return errRunAgain
			}
			return nil
		})
		if !errors.Is(err, errRunAgain) {
			return err
		}
	}
}

// TestSubscribe_OnlyCommittedEvents: a subscriber is given the events of
// the run of a transaction that committed, once, and nothing of a
// transaction that did not commit.
func TestSubscribe_OnlyCommittedEvents(t *testing.T) {
	fault := storetest.NewFaultStore(runsTwice{memstore.New()})
	e, err := tambala.New(fault, nil)
	require.NoError(t, err)
	p := fundedPrincipal(t, e, "10.00")
	sub := e.Events().Subscribe(tambala.EventFilter{}, 0)
	defer sub.Close()

	fault.FailCommit(1)
	_, err = e.Client(p).V1().SimulateCollection(context.Background(), tambala.SimulatedCollection{Amount: mwkAmt(t, "1.00"), Rail: payouts.Bank})
	require.ErrorIs(t, err, storetest.ErrInjected)
	assert.Empty(t, drain(sub), "a transaction that did not commit gives nothing")

	ids := collect(t, e, p, 1)
	got := drain(sub)
	require.Len(t, got, 1, "a transaction run twice gives its event once")
	assert.Equal(t, ids[0], got[0].ResourceID())
}
