package tambala

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/work"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// Event is a committed change a host is told of in-process
// (Options.Events): the same events an organization's webhook endpoint
// receives, with the resource as a Go value instead of JSON. Exactly one
// of the resource fields is set, by the event's type:
//
//   - payout.succeeded, payout.failed, payout.reversed: Payout;
//   - payout_v2.succeeded, payout_v2.failed, payout_v2.reversed: PayoutV2;
//   - order.*: Order;
//   - conversion.completed, conversion.failed: Conversion;
//   - collection.settled, collection.reversed: Collection;
//   - collection_v2.settled: CollectionV2;
//   - trade.settled: Trade;
//   - balance.low: BalanceLow.
//
// Each resource is as it stood when the event was committed.
type Event struct {
	ID        string // unique; a handler that sees an ID again has seen the event
	Type      string
	Org       string
	CreatedAt time.Time

	Payout       *payouts.Payout
	PayoutV2     *PayoutV2
	Order        *orders.Order
	Conversion   *Conversion
	Collection   *Collection
	CollectionV2 *CollectionV2
	Trade        *Trade
	BalanceLow   *BalanceLow
}

// BalanceLow is the resource of a balance.low event: the organization's
// MWK balance after the change that took it under its floor.
type BalanceLow struct {
	Balance ledger.Balance
	Floor   money.Amount
}

// EventHandlerFunc adapts a function to EventHandler.
type EventHandlerFunc func(ctx context.Context, ev Event) error

// HandleEvent calls f.
func (f EventHandlerFunc) HandleEvent(ctx context.Context, ev Event) error { return f(ctx, ev) }

// ErrNoEventHandler is returned by ProcessEvents, and by Run when asked
// for LoopEvents, when the engine has no Options.Events.
var ErrNoEventHandler = errors.New("tambala: no event handler configured (Options.Events)")

// Resource kinds of a stored event.
const (
	eventPayout       = "payout"
	eventPayoutV2     = "payout_v2"
	eventOrder        = "order"
	eventConversion   = "conversion"
	eventCollection   = "collection"
	eventCollectionV2 = "collection_v2"
	eventTrade        = "trade"
	eventBalanceLow   = "balance_low"
)

// eventResource is what emit keeps of an event's resource for the event
// handler: its kind and its stored record, encoded only when the engine
// has a handler.
type eventResource struct {
	kind   string
	record func() ([]byte, error)
}

func jsonResource(kind string, v any) eventResource {
	return eventResource{kind: kind, record: func() ([]byte, error) { return storage.Encode(v) }}
}

func rawResource(kind string, b []byte) eventResource {
	return eventResource{kind: kind, record: func() ([]byte, error) { return b, nil }}
}

func orderResource(o orders.Order) eventResource {
	return eventResource{kind: eventOrder, record: func() ([]byte, error) { return codec.EncodeOrder(o), nil }}
}

// eventRecord is an event waiting for the handler.
type eventRecord = codec.EventRecord

// balanceLowRecord is the stored resource of balance.low.
type balanceLowRecord = codec.BalanceLowRecord

// keepEvent writes the event for the handler, in the transaction that
// makes it; without a handler it writes nothing.
func (e *Engine) keepEvent(tx store.Tx, id, orgID, eventType string, at time.Time, res eventResource) error {
	if e.events == nil {
		return nil
	}
	rec, err := storedResource(res)
	if err != nil {
		return err
	}
	r := eventRecord{ID: id, Type: eventType, Org: orgID, CreatedAt: at, Kind: res.kind, Record: rec, NextAt: at}
	return storage.SaveEvent(tx, r, nil)
}

// storedResource is an event's resource as an eventRecord keeps it.
func storedResource(res eventResource) ([]byte, error) {
	rec, err := res.record()
	if err != nil {
		return nil, err
	}
	if res.kind == eventOrder {
		// orders' storage codec is binary: keep it as a JSON string.
		return storage.Encode(rec)
	}
	return rec, nil
}

// event decodes a stored event into its typed value.
func (e *Engine) event(r eventRecord) (Event, error) {
	ev := Event{ID: r.ID, Type: r.Type, Org: r.Org, CreatedAt: r.CreatedAt}
	var err error
	switch r.Kind {
	case eventPayout, eventPayoutV2:
		err = decodePayoutEvent(r, &ev)
	case eventOrder:
		var b []byte
		if err := storage.Decode(r.Record, &b); err != nil {
			return ev, err
		}
		o, err := codec.DecodeOrder(b)
		ev.Order = &o
		return ev, err
	case eventConversion:
		var cr conversionRecord
		if err := storage.Decode(r.Record, &cr); err != nil {
			return ev, err
		}
		c, err := e.conversionOf(cr)
		ev.Conversion = &c
		return ev, err
	case eventCollection, eventCollectionV2:
		err = e.decodeCollectionEvent(r, &ev)
	case eventTrade:
		var tr tradeRecord
		if err := storage.Decode(r.Record, &tr); err != nil {
			return ev, err
		}
		t, err := fromTradeRecord(tr)
		ev.Trade = &t
		return ev, err
	case eventBalanceLow:
		ev.BalanceLow, err = decodeBalanceLow(r.Record)
	default:
		err = fmt.Errorf("tambala: stored event %s has an unknown kind %q", r.ID, r.Kind)
	}
	return ev, err
}

// decodePayoutEvent sets ev's Payout or PayoutV2 from r's record.
func decodePayoutEvent(r eventRecord, ev *Event) error {
	var pr payoutRecord
	if err := storage.Decode(r.Record, &pr); err != nil {
		return err
	}
	if r.Kind == eventPayout {
		p, err := storage.PayoutOf(pr)
		ev.Payout = &p
		return err
	}
	p, err := storage.PayoutV2Of(pr)
	ev.PayoutV2 = &p
	return err
}

// decodeCollectionEvent sets ev's Collection or CollectionV2 from r's
// record.
func (e *Engine) decodeCollectionEvent(r eventRecord, ev *Event) error {
	if r.Kind == eventCollectionV2 {
		c, err := storage.DecodeCollectionV2(r.Record, e.assets)
		ev.CollectionV2 = &c
		return err
	}
	var cr codec.CollectionRecord
	if err := storage.Decode(r.Record, &cr); err != nil {
		return err
	}
	c, err := storage.FromCollectionRecord(cr)
	ev.Collection = &c
	return err
}

// decodeBalanceLow reads the stored resource of balance.low.
func decodeBalanceLow(record []byte) (*BalanceLow, error) {
	var br balanceLowRecord
	if err := storage.Decode(record, &br); err != nil {
		return nil, err
	}
	var bl BalanceLow
	var err error
	bl.Balance.Asset = money.MWK
	if bl.Balance.Available, err = money.ParseSigned(money.MWK, br.Available); err != nil {
		return nil, err
	}
	if bl.Balance.Held, err = money.ParseSigned(money.MWK, br.Held); err != nil {
		return nil, err
	}
	if bl.Floor, err = money.Parse(money.MWK, br.Floor); err != nil {
		return nil, err
	}
	return &bl, nil
}

// processEventsOfEngine is Work.ProcessEvents.
func (e *Engine) processEventsOfEngine(ctx context.Context) (int, error) {
	if e.events == nil {
		return 0, ErrNoEventHandler
	}
	ids, err := storage.DueEvents(ctx, e.store, e.now(), e.eventOpts.Batch)
	if err != nil {
		return 0, err
	}
	// One at a time, in the order they became due.
	return work.Pass(ctx, e.store, e.log, 1, ids, e.eventJob()), ctx.Err()
}

// eventJob is the event loop's work: an event claimed under a lease,
// handed to the handler, then forgotten or scheduled again.
func (e *Engine) eventJob() work.Job[eventRecord, handled] {
	return work.Job[eventRecord, handled]{
		Name: "event loop", Item: "event",
		ID:    func(r eventRecord) string { return r.ID },
		Claim: e.claimEvent,
		Call: func(ctx context.Context, r eventRecord) (handled, bool) {
			ev, err := e.event(r)
			if err == nil {
				err = e.events.HandleEvent(ctx, ev)
			}
			return handled{err: err}, true
		},
		Record: func(ctx context.Context, r eventRecord, h handled) (bool, error) {
			return h.err == nil, e.settleEvent(ctx, r, h.err)
		},
	}
}

// handled is the handler's answer about one event.
type handled struct{ err error }

// claimEvent takes a due event under a lease inside tx.
func (e *Engine) claimEvent(tx store.Tx, id string) (eventRecord, bool, error) {
	r, err := storage.LoadEvent(tx, id, errNotFound)
	if err != nil {
		if errors.Is(err, errNotFound) {
			return r, false, nil // handed over by another instance
		}
		return r, false, err
	}
	now := e.now()
	if r.NextAt.After(now) {
		return r, false, nil // claimed by another instance meanwhile
	}
	old := r.NextAt
	r.NextAt = now.Add(e.eventOpts.Lease)
	return r, true, storage.SaveEvent(tx, r, &old)
}

// settleEvent forgets a handled event, or schedules it again after a
// failure.
func (e *Engine) settleEvent(ctx context.Context, r eventRecord, handleErr error) error {
	return e.store.Update(ctx, func(tx store.Tx) error {
		cur, err := storage.LoadEvent(tx, r.ID, errNotFound)
		if err != nil {
			if errors.Is(err, errNotFound) {
				return nil
			}
			return err
		}
		if handleErr == nil {
			return storage.DeleteEvent(tx, cur)
		}
		e.log.Warn("event handler failed; the event will be handed over again",
			slog.String("event", r.ID), slog.String("type", r.Type), slog.Any("error", handleErr))
		old := cur.NextAt
		cur.Attempts++
		delay := time.Second << min(cur.Attempts-1, 16)
		delay = min(delay, e.eventOpts.MaxBackoff)
		cur.NextAt = e.now().Add(delay)
		return storage.SaveEvent(tx, cur, &old)
	})
}

// An endpoint is stored as codec.EndpointRecord, field for field: Endpoint
// converts to it and back. Its secret is a codec.SecretRecord.

// loadEndpoint reads org's endpoint into ep; none is notFound.
func loadEndpoint(tx store.Tx, org string, ep *Endpoint, notFound error) error {
	r, err := storage.LoadEndpoint(tx, org, notFound)
	if err != nil {
		return err
	}
	*ep = Endpoint(r)
	return nil
}

// deliveryRecord is an outbox row, as stored.
type deliveryRecord = codec.DeliveryRecord

// An attempt is stored as codec.AttemptRecord, field for field: Attempt
// converts to it and back.

// decodeAttempt decodes a stored attempt.
func decodeAttempt(raw []byte) (Attempt, error) {
	r, err := cache.DecodeJSON[codec.AttemptRecord](raw)
	return Attempt(r), err
}

// ProcessEvents hands the events that are due to Options.Events, once
// each, and returns how many the handler accepted. Each is claimed under
// a lease first, so that instances sharing a store do not hand over the
// same event at once. Run calls it in its event loop; a host that
// schedules its own work calls it instead. Without a handler it returns
// ErrNoEventHandler.
func (u Work) ProcessEvents(ctx context.Context) (int, error) {
	return u.x.processEventsOfEngine(ctx)
}
