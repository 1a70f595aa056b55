package tambala

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// Endpoint is an organization's webhook endpoint (package webhooks).
type Endpoint = webhooks.Endpoint

// WebhookDestinations is implemented by a WebhookSender that checks each
// address it connects to, after DNS, against the destination rule
// (adapters/webhookhttp.Sender). New hands it the engine's rule (the
// environment's, with Options.WebhookAllow and Options.OwnListeners) and
// sends through the sender it returns. The engine checks every URL itself
// before each send too, but a name may resolve anywhere: a sender without
// this check leaves that to its transport.
type WebhookDestinations interface {
	WithDestinations(webhooks.Policy) WebhookSender
}

// guardWebhooks sets the engine's destination rule and hands it to the
// sender.
func (e *Engine) guardWebhooks(allow []netip.Prefix, own []netip.AddrPort) {
	e.destinations = webhooks.Policy{Loopback: e.env == Sandbox, Allow: allow, Own: own}
	if g, ok := e.sender.(WebhookDestinations); ok {
		e.sender = g.WithDestinations(e.destinations)
	}
}

// Attempt is one recorded delivery attempt (package webhooks).
type Attempt = webhooks.Attempt

// DeliveryView is a delivery as the operator lists it (package webhooks).
type DeliveryView = webhooks.DeliveryView

// setWebhookEndpoint is Operator.SetWebhookEndpoint.
func (e *Engine) setWebhookEndpoint(ctx context.Context, orgID, rawURL string) (Endpoint, string, error) {
	if err := e.checkEndpointURL(rawURL); err != nil {
		return Endpoint{}, "", err
	}
	random := make([]byte, webhooks.SecretBytes)
	if _, err := io.ReadFull(e.random, random); err != nil {
		return Endpoint{}, "", err
	}
	secret, err := webhooks.NewSecret(random)
	if err != nil {
		return Endpoint{}, "", err
	}
	ep := Endpoint{URL: rawURL, SecretID: e.newID(), CreatedAt: e.nowUTC()}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		var prev Endpoint
		if err := loadEndpoint(tx, orgID, &prev, errNotFound); err != nil && !errors.Is(err, errNotFound) {
			return err
		}
		summary := "url " + prev.URL + " -> " + ep.URL + "; secret rotated"
		if prev.URL == "" {
			summary = "url none -> " + ep.URL + "; secret made"
		}
		if err := e.auditAs(ctx, tx, orgID, AuditWebhookEndpointSet, orgID, summary); err != nil {
			return err
		}
		// The secret is kept in the clear: it is an HMAC key the engine
		// signs with, not a credential it checks.
		if err := storage.SaveWebhookSecret(tx, ep.SecretID, codec.SecretRecord{Org: orgID, Secret: secret}); err != nil {
			return err
		}
		return storage.SaveEndpoint(tx, orgID, codec.EndpointRecord(ep))
	})
	if err != nil {
		return Endpoint{}, "", err
	}
	return ep, secret, nil
}

// checkEndpointURL checks a webhook URL against the engine's destination
// rule (webhooks.Policy): https to a public destination, plain http and
// loopback only in the sandbox, never the host's own listeners. Where a
// name resolves is checked again at every dial, by the sender.
func (e *Engine) checkEndpointURL(raw string) error {
	if err := e.destinations.CheckURL(raw); err != nil {
		return errcode.Newf(errcode.ValidationError, "%s", err.Error())
	}
	return nil
}

// webhookEndpoint is Operator.WebhookEndpoint.
func (e *Engine) webhookEndpoint(ctx context.Context, orgID string) (Endpoint, bool, error) {
	var ep Endpoint
	err := e.store.View(ctx, func(tx store.Tx) error {
		return loadEndpoint(tx, orgID, &ep, errNotFound)
	})
	if errors.Is(err, errNotFound) {
		return Endpoint{}, false, nil
	}
	return ep, err == nil, err
}

// deliveries is Operator.Deliveries.
func (e *Engine) deliveries(ctx context.Context, orgID string, page PageRequest) (Page[DeliveryView], error) {
	var out Page[DeliveryView]
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		out, err = listPage(tx, storage.DeliveriesByOrg, orgID, page, nil, func(id string) (DeliveryView, error) {
			return e.deliveryView(tx, id)
		})
		return err
	})
	return out, err
}

// deliveryView is delivery id as the faces show it. An attempt's error is
// shown in its fixed wording (an older version stored the raw error), and
// no answer is shown for a URL the destination rule refuses now: what an
// older version fetched from inside the network stays hidden.
func (e *Engine) deliveryView(tx store.Tx, id string) (DeliveryView, error) {
	d, err := storage.LoadDelivery(tx, id, errNotFound)
	if err != nil {
		return DeliveryView{}, err
	}
	refused := e.destinations.CheckURL(d.URL) != nil
	v := DeliveryView{ID: d.ID, EventType: d.EventType, URL: d.URL, State: d.State, Body: string(d.Body), CreatedAt: d.CreatedAt, Attempts: []Attempt{}}
	err = storage.EachAttempt(tx, id, func(r codec.AttemptRecord) error {
		a := Attempt(r)
		a.Error = webhooks.Shown(a.Error)
		a.Response = capResponse([]byte(a.Response))
		if refused {
			a.Response = ""
		}
		v.Attempts = append(v.Attempts, a)
		return nil
	})
	return v, err
}

// redeliver is Operator.Redeliver.
func (e *Engine) redeliver(ctx context.Context, orgID, id string) (DeliveryView, error) {
	var v DeliveryView
	err := e.store.Update(ctx, func(tx store.Tx) error {
		d, err := storage.LoadDelivery(tx, id, errNotFound)
		if err != nil {
			return err
		}
		if d.Org != orgID {
			return errNotFound
		}
		now := e.nowUTC()
		next, err := webhooks.Delivery{State: d.State, Attempts: d.Attempts}.Redeliver(now)
		if err != nil {
			return errcode.Newf(errcode.Conflict, "Only a dead-lettered delivery is re-delivered; this one is %s.", d.State)
		}
		// A new round of the schedule; attempt numbers keep counting so the
		// log keeps every attempt.
		d.State, d.NextAt, d.RoundStart = next.State, next.NextAt, d.Attempts
		if err := countDead(tx, -1); err != nil {
			return err
		}
		if err := storage.DeliveriesDue.Move(tx, d.ID, nil, &d.NextAt); err != nil {
			return err
		}
		if err := storage.SaveDelivery(tx, d); err != nil {
			return err
		}
		if err := e.auditAs(ctx, tx, orgID, AuditDeliveryRedelivered, d.ID, fmt.Sprintf("%s delivery to %s: dead -> %s after %d attempts",
			d.EventType, d.URL, d.State, d.Attempts)); err != nil {
			return err
		}
		v, err = e.deliveryView(tx, id)
		return err
	})
	return v, err
}

// emit writes an event for the organization, in the caller's transaction:
// into the outbox when it has an endpoint (the envelope rendered now, with
// the MWK balance as it stands after the change), and for the event
// handler when the engine has one (res, the resource as stored). Without
// either nothing is written. Either way the event is given to the
// engine's subscribers (Engine.Events) once tx commits.
func (e *Engine) emit(tx store.Tx, orgID, eventType string, data []byte, res eventResource) error {
	var ep Endpoint
	err := loadEndpoint(tx, orgID, &ep, errNotFound)
	endpoint := err == nil
	if err != nil && !errors.Is(err, errNotFound) {
		return err
	}
	if !endpoint && e.events == nil {
		// Nothing to write: the event's id and time are drawn only if a
		// subscriber wants it.
		keepForSubscribers(tx, pendingEvent{org: orgID, typ: eventType, res: res})
		return nil
	}
	now := e.nowUTC()
	id := e.newID()
	keepForSubscribers(tx, pendingEvent{id: id, org: orgID, typ: eventType, at: now, res: res})
	if err := e.keepEvent(tx, id, orgID, eventType, now, res); err != nil {
		return err
	}
	if !endpoint {
		return nil
	}
	bal, err := ledger.ReadBalance(tx, orgID, money.MWK)
	if err != nil {
		return err
	}
	body, err := webhooks.Envelope{
		ID: id, EventType: eventType, CreatedAt: now,
		Balance: webhooks.Balance{Available: bal.Available, Held: bal.Held, Currency: string(money.MWK.Code)},
		Data:    data,
	}.Render()
	if err != nil {
		return err
	}
	d := deliveryRecord{ID: id, Org: orgID, EventType: eventType, URL: ep.URL, SecretID: ep.SecretID, Body: body,
		State: webhooks.Pending, NextAt: now, CreatedAt: now}
	if err := storage.AddDelivery(tx, d); err != nil {
		return err
	}
	return storage.DeliveriesDue.Move(tx, id, nil, &now)
}

// checkBalanceLow emits balance.low when the organization's available MWK
// is below its floor, at most once per cooldown while that holds. Called
// in every transaction that lowers available.
func (e *Engine) checkBalanceLow(tx store.Tx, orgID string) error {
	fl, err := storage.OrgFloor(tx, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // no floor
	}
	if err != nil {
		return err
	}
	floor, err := money.Parse(money.MWK, string(fl))
	if err != nil {
		return err
	}
	bal, err := ledger.ReadBalance(tx, orgID, money.MWK)
	if err != nil {
		return err
	}
	if bal.Available.Cmp(floor) >= 0 {
		return nil
	}
	now := e.nowUTC()
	last, err := storage.LoadBalanceLow(tx, orgID)
	if err != nil {
		return err
	}
	if !last.IsZero() && now.Sub(last) < e.balanceLowCooldown {
		return nil
	}
	data := render.BalanceLow(bal, floor)
	res := jsonResource(eventBalanceLow, balanceLowRecord{Available: bal.Available.String(), Held: bal.Held.String(), Floor: floor.String()})
	if err := e.emit(tx, orgID, webhooks.BalanceLow, data, res); err != nil {
		return err
	}
	return storage.SaveBalanceLow(tx, orgID, now)
}

// ErrSubscriptionOverflow is a Subscription's Err once the engine had an
// event for it while its buffer was full: that event, and every later
// one, was not given to it. Its reader has lost events and reads again
// the state it cares about (ClientV1.Payout) before it subscribes anew.
var ErrSubscriptionOverflow = errors.New("tambala: subscription overflowed: its buffer was full and events were dropped")

// ErrSubscriptionClosed is returned by Subscription.Next once the
// subscription was closed by its own Close.
var ErrSubscriptionClosed = errors.New("tambala: subscription closed")

// EventFilter chooses the events a Subscription is given. A zero field
// matches every event; set fields must all match.
type EventFilter struct {
	// Org is the organization whose events are given.
	Org string
	// ID is the resource id (Event.ResourceID): one payout, order,
	// conversion, collection or trade.
	ID string
	// Types are the event types given, such as "payout.succeeded"
	// (webhooks.PayoutSucceeded); an entry ending in ".*" names every type
	// of one kind of resource ("payout.*", "order.*", "payout_v2.*").
	Types []string
}

// Match reports whether ev passes the filter.
func (f EventFilter) Match(ev Event) bool {
	return f.matchHead(ev.Org, ev.Type) && (f.ID == "" || f.ID == ev.ResourceID())
}

// matchHead is Match on what is known before the event's resource is
// decoded.
func (f EventFilter) matchHead(org, typ string) bool {
	if f.Org != "" && f.Org != org {
		return false
	}
	if len(f.Types) == 0 {
		return true
	}
	for _, t := range f.Types {
		if t == typ || (strings.HasSuffix(t, ".*") && strings.HasPrefix(typ, t[:len(t)-1])) {
			return true
		}
	}
	return false
}

// ResourceID is the id of the event's resource: the payout, order,
// conversion, collection or trade; "" for balance.low, whose resource is
// the organization's balance.
func (ev Event) ResourceID() string {
	switch {
	case ev.Payout != nil:
		return ev.Payout.ID
	case ev.PayoutV2 != nil:
		return ev.PayoutV2.ID
	case ev.Order != nil:
		return ev.Order.ID
	case ev.Conversion != nil:
		return ev.Conversion.ID
	case ev.Collection != nil:
		return ev.Collection.ID
	case ev.CollectionV2 != nil:
		return ev.CollectionV2.ID
	case ev.Trade != nil:
		return ev.Trade.ID
	}
	return ""
}

// EventStream is the engine's in-process fan-out of committed events
// (Engine.Events): any number of subscribers, each with its own filter
// and its own bounded buffer.
//
// A subscriber is given the events committed by this engine (this
// process), right after the transaction that made them commits, whether
// or not Options.Events or a webhook endpoint is set; each is the same
// event, with the same ID, that Options.Events and the organization's
// webhook endpoint are told of. An event committed by another engine
// sharing the store is not given to this engine's subscribers (that
// engine's own subscribers have it), which is why ClientV1.WaitPayout also
// reads the payout again every EventOptions.Recheck.
//
// Buffering and cost: the engine never waits for a subscriber. Handing
// an event over is a send that does not block, into the subscription's
// buffer (Subscribe's, or EventOptions.Buffer events, default 64), made
// by the goroutine whose transaction committed it (a request, or the
// worker). A subscriber that does not keep up costs nobody else
// anything: when its buffer is full the engine drops that event for it
// and closes it (Err is ErrSubscriptionOverflow), while the events
// already buffered stay readable, and every other subscriber is given
// the event as usual. So a subscriber holds at most its buffer's events
// in memory, and each committed event costs the committing goroutine one
// filter check
// per open subscription (and, when at least one matches its
// organization and type, one decoding of the resource, shared by every
// subscriber given it). With no subscription open an event costs
// nothing more than it did before subscriptions.
//
// Events are given in commit order per transaction; events of
// transactions committing at once may come in either order. Each is
// given at most once per subscription: a subscriber that must not miss
// one keeps up, and on overflow reads the state again.
type EventStream struct {
	e      *Engine
	buffer int
	mu     sync.Mutex                      // serializes changes of subs
	subs   atomic.Pointer[[]*Subscription] // read without the lock by publish
}

// Events returns the engine's in-process event stream, to subscribe to
// the committed events of every organization (a face for the host; an
// organization's Client waits for its own payouts with WaitPayout).
func (e *Engine) Events() *EventStream { return e.stream }

func newEventStream(e *Engine, buffer int) *EventStream {
	s := &EventStream{e: e, buffer: buffer}
	s.subs.Store(&[]*Subscription{})
	return s
}

// Subscribe opens a subscription to the events that pass f, committed
// from now on, with a buffer of buffer events (0 or less:
// EventOptions.Buffer). Close it when done: an open subscription costs
// every committed event a filter check. Its reader must keep up (see
// EventStream): a subscription whose buffer is full when an event comes
// is closed, and told so by Err.
func (s *EventStream) Subscribe(f EventFilter, buffer int) *Subscription {
	if buffer <= 0 {
		buffer = s.buffer
	}
	f.Types = slices.Clone(f.Types)
	sub := &Subscription{stream: s, filter: f, ch: make(chan Event, buffer)}
	s.mu.Lock()
	subs := append(slices.Clone(*s.subs.Load()), sub)
	s.subs.Store(&subs)
	s.mu.Unlock()
	return sub
}

// open counts the open subscriptions (for tests and metrics).
func (s *EventStream) open() int { return len(*s.subs.Load()) }

func (s *EventStream) remove(sub *Subscription) {
	s.mu.Lock()
	defer s.mu.Unlock()
	subs := slices.DeleteFunc(slices.Clone(*s.subs.Load()), func(x *Subscription) bool { return x == sub })
	s.subs.Store(&subs)
}

// publish gives the events a transaction committed to the subscriptions
// they pass. It never blocks.
func (s *EventStream) publish(pending []pendingEvent) {
	subs := *s.subs.Load()
	if len(subs) == 0 {
		return
	}
	for _, p := range pending {
		wanted := slices.ContainsFunc(subs, func(sub *Subscription) bool { return sub.filter.matchHead(p.org, p.typ) })
		if !wanted {
			continue
		}
		ev, err := s.e.pendingEvent(p)
		if err != nil {
			s.e.log.Error("event for subscribers", slog.String("type", p.typ), slog.Any("error", err))
			continue
		}
		for _, sub := range subs {
			if sub.filter.Match(ev) {
				sub.offer(ev)
			}
		}
	}
}

// Subscription is one subscriber's view of the EventStream: the events
// that pass its filter, in a buffer its reader drains through C or Next.
// The resources of an Event are shared by every subscriber given it:
// read them, never change them. A Subscription is safe for concurrent
// use.
type Subscription struct {
	stream *EventStream
	filter EventFilter
	ch     chan Event

	mu     sync.Mutex
	closed bool
	err    error
}

// C is the subscription's events. It is closed once the subscription
// ends, by Close or by overflow, after the events already buffered.
func (s *Subscription) C() <-chan Event { return s.ch }

// Err is why the subscription ended: ErrSubscriptionOverflow when events
// were dropped for it, nil while it is open or after Close.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Next returns the next event, waiting for it until ctx ends. Once the
// subscription has ended and its buffer is drained it returns Err, or
// ErrSubscriptionClosed after Close.
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	select {
	case ev, ok := <-s.ch:
		if ok {
			return ev, nil
		}
		if err := s.Err(); err != nil {
			return Event{}, err
		}
		return Event{}, ErrSubscriptionClosed
	case <-ctx.Done():
		return Event{}, ctx.Err()
	}
}

// Close ends the subscription; the events already buffered stay
// readable. Closing twice does nothing.
func (s *Subscription) Close() {
	s.mu.Lock()
	was := s.closed
	if !was {
		s.closed = true
		close(s.ch)
	}
	s.mu.Unlock()
	if !was {
		s.stream.remove(s)
	}
}

// offer hands ev over without blocking; a full buffer ends the
// subscription with ErrSubscriptionOverflow.
func (s *Subscription) offer(ev Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	select {
	case s.ch <- ev:
		s.mu.Unlock()
		return
	default:
	}
	s.closed, s.err = true, ErrSubscriptionOverflow
	close(s.ch)
	s.mu.Unlock()
	s.stream.remove(s)
}

// pendingEvent is an event a transaction made, kept until it commits.
// id and at are "" and zero when the transaction wrote the event nowhere
// (no handler, no endpoint): they are drawn only if a subscriber wants it.
type pendingEvent struct {
	id, org, typ string
	at           time.Time
	res          eventResource
}

// pendingEvent decodes an event a transaction committed, as the event
// handler would be given it.
func (e *Engine) pendingEvent(p pendingEvent) (Event, error) {
	if p.id == "" {
		p.id, p.at = e.newID(), e.nowUTC()
	}
	rec, err := storedResource(p.res)
	if err != nil {
		return Event{}, err
	}
	return e.event(eventRecord{ID: p.id, Type: p.typ, Org: p.org, CreatedAt: p.at, Kind: p.res.kind, Record: rec})
}

// eventsStore is the engine's store, with the events each update commits
// given to the subscribers once it has committed.
type eventsStore struct {
	store.Store
	stream *EventStream
}

// eventsTx is an update's transaction with the events it makes. It
// also notes a write to a record Authenticate reads, for which the update
// advances the authentication epoch before it commits (keys.go).
type eventsTx struct {
	store.Tx
	events []pendingEvent
	// authWrites is set by a Put or Delete in a bucket Authenticate
	// reads (storage.ReadByAuthentication).
	authWrites bool
}

func (t *eventsTx) Put(bucket, key, value []byte) error {
	if !t.authWrites && storage.ReadByAuthentication(bucket) {
		t.authWrites = true
	}
	return t.Tx.Put(bucket, key, value)
}

func (t *eventsTx) Delete(bucket, key []byte) error {
	if !t.authWrites && storage.ReadByAuthentication(bucket) {
		t.authWrites = true
	}
	return t.Tx.Delete(bucket, key)
}

// Lend lends what the transaction under it can lend (lend.Get).
func (t *eventsTx) Lend(bucket, key []byte) ([]byte, error) { return lend.Get(t.Tx, bucket, key) }

// Prefetch passes keys on to the transaction under it (store.Prefetch).
func (t *eventsTx) Prefetch(keys []store.KeyRef) bool { return store.Prefetch(t.Tx, keys) }

// Defer passes update on to the transaction under it (store.Defer).
func (t *eventsTx) Defer(bucket, key []byte, update store.Deferred) bool {
	return store.Defer(t.Tx, bucket, key, update)
}

// eventsRun is one Update through eventsStore: fn, and the transaction
// of its last run. They are pooled, so that an update costs no
// allocation for the subscribers when it makes no event.
type eventsRun struct {
	fn  func(store.Tx) error
	tx  eventsTx
	run func(store.Tx) error // r.do, bound once
}

var eventsRuns = sync.Pool{New: func() any {
	r := &eventsRun{}
	r.run = r.do
	return r
}}

func (r *eventsRun) do(tx store.Tx) error {
	clear(r.tx.events) // a run again after a conflict starts afresh
	r.tx = eventsTx{Tx: tx, events: r.tx.events[:0]}
	if err := r.fn(&r.tx); err != nil {
		return err
	}
	if r.tx.authWrites {
		// In the same transaction: every instance's Authenticate sees the
		// write and the new epoch together.
		return storage.AdvanceAuthEpoch(tx)
	}
	return nil
}

func (s eventsStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, s.Store.Update, fn)
}

// UpdateLazy is the wrapped store's lazy commit (store.Lazy), whose
// events go to the subscribers once it has committed, as an Update's.
func (s eventsStore) UpdateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, s.updateLazy, fn)
}

func (s eventsStore) updateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return store.UpdateLazy(ctx, s.Store, fn)
}

// update runs fn by do, keeping the events of its last run for the
// subscribers.
func (s eventsStore) update(ctx context.Context, do func(context.Context, func(store.Tx) error) error, fn func(store.Tx) error) error {
	r := eventsRuns.Get().(*eventsRun)
	r.fn = fn
	err := do(ctx, r.run)
	if err == nil && len(r.tx.events) > 0 {
		s.stream.publish(r.tx.events)
	}
	clear(r.tx.events)
	r.fn, r.tx = nil, eventsTx{events: r.tx.events[:0]}
	eventsRuns.Put(r)
	return err
}

// keepForSubscribers keeps an event tx makes for the subscribers, who
// are given it once tx commits.
func keepForSubscribers(tx store.Tx, p pendingEvent) {
	if t, ok := tx.(*eventsTx); ok {
		t.events = append(t.events, p)
	}
}

// waitPayoutOfClient is ClientV1.WaitPayout.
func (c *Client) waitPayoutOfClient(ctx context.Context, id string) (_ payouts.Payout, err error) {
	ctx, span := c.span(ctx, "tambala.WaitPayout")
	defer span.end(&err)
	return waitFor(ctx, c.e, EventFilter{Org: c.p.Org.ID, ID: id, Types: []string{"payout.*"}},
		func(ctx context.Context) (payouts.Payout, bool, error) {
			p, err := c.e.payout(ctx, c.p, id)
			return p, p.Status.Terminal(), err
		},
		func(ev Event) (payouts.Payout, bool) {
			if ev.Payout == nil {
				return payouts.Payout{}, false
			}
			return *ev.Payout, ev.Payout.Status.Terminal()
		})
}

// WaitPayout is ClientV1.WaitPayout for a /v2 payout: it returns the payout
// once terminal (or ctx's error), read as Payout does.
func (c *Client) WaitPayout(ctx context.Context, id string) (_ PayoutV2, err error) {
	ctx, span := c.span(ctx, "tambala.WaitPayoutV2")
	defer span.end(&err)
	return waitFor(ctx, c.e, EventFilter{Org: c.p.Org.ID, ID: id, Types: []string{"payout_v2.*"}},
		func(ctx context.Context) (PayoutV2, bool, error) {
			p, err := c.e.payoutV2(ctx, c.p, id)
			return p, p.Status.Terminal(), err
		},
		func(ev Event) (PayoutV2, bool) {
			if ev.PayoutV2 == nil {
				return PayoutV2{}, false
			}
			return *ev.PayoutV2, ev.PayoutV2.Status.Terminal()
		})
}

// waitFor subscribes with f, then reads the state (so nothing committed
// before the subscription is missed), and waits for an event that ends
// the wait; an overflow, and every Recheck, read the state again.
func waitFor[T any](ctx context.Context, e *Engine, f EventFilter,
	read func(context.Context) (T, bool, error), done func(Event) (T, bool)) (T, error) {
	recheck := time.NewTicker(e.eventOpts.Recheck)
	defer recheck.Stop()
	for {
		sub := e.stream.Subscribe(f, 0)
		v, ok, err := read(ctx)
		if err != nil || ok {
			sub.Close()
			return v, err
		}
		v, ok, err = waitOn(ctx, sub, recheck.C, read, done)
		sub.Close()
		if err != nil || ok {
			return v, err
		}
		// The subscription overflowed: subscribe and read again.
	}
}

// waitOn waits on sub until an event or a recheck ends the wait (ok), or
// sub overflows (not ok, no error).
func waitOn[T any](ctx context.Context, sub *Subscription, recheck <-chan time.Time,
	read func(context.Context) (T, bool, error), done func(Event) (T, bool)) (T, bool, error) {
	var zero T
	for {
		select {
		case ev, open := <-sub.C():
			if !open {
				return zero, false, nil
			}
			if v, ok := done(ev); ok {
				return v, true, nil
			}
		case <-recheck:
			if v, ok, err := read(ctx); err != nil || ok {
				return v, true, err
			}
		case <-ctx.Done():
			return zero, false, ctx.Err()
		}
	}
}

// WaitPayout waits until payout id is terminal (succeeded, failed or
// reversed) and returns it, or until ctx ends. It reads the payout first,
// so a payout already terminal is returned at once, then waits for its
// events (Engine.Events), reading it again whenever an event may have
// been missed: after an overflow, and every EventOptions.Recheck for
// changes committed by another engine sharing the store. Each read is
// the call Payout, under the same rules: an unknown or foreign id is
// not_found, a suspension or pause ends the wait with its error. A
// payout that succeeds and is later reversed is returned succeeded.
func (u ClientV1) WaitPayout(ctx context.Context, id string) (payouts.Payout, error) {
	return u.x.waitPayoutOfClient(ctx, id)
}
