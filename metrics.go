package tambala

import (
	"context"
	"log/slog"
	"time"

	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// Metrics receives what the engine counts, so a host can use its own
// metrics system (adapters/prommetrics serves Prometheus). Every method is
// called after the change it reports has committed, never from inside a
// storage transaction, and must be quick and safe for concurrent use.
type Metrics interface {
	// PayoutAccepted: a payout was accepted (not a replay).
	PayoutAccepted(rail payouts.Rail)
	// PayoutFinished: a payout reached status (succeeded, failed or
	// reversed); by is "worker" or "operator".
	PayoutFinished(rail payouts.Rail, status payouts.Status, by string)
	// IdempotentReplay: a create answered with a decided outcome.
	IdempotentReplay(op Operation)
	// WorkerPass and DispatcherPass: one pass of the loop, how long it
	// took and how many items it advanced.
	WorkerPass(d time.Duration, advanced int)
	DispatcherPass(d time.Duration, sent int)
	// WebhookAttempt: one delivery attempt recorded, with the state the
	// delivery is in after it (delivered, pending: to be retried, dead).
	WebhookAttempt(state webhooks.State)
	// OrderMoved: a desk order was created in, or moved to, status; by
	// is "api" (the client), "desk" (the desk or operator) or "sweep" (the
	// expiry sweep).
	OrderMoved(direction orders.Direction, status orders.Status, by string)
	// ConversionMoved: a conversion was accepted (processing) or finished
	// (completed, failed); by is "api" or "worker".
	ConversionMoved(status ConversionStatus, by string)
}

// noMetrics counts nothing.
type noMetrics struct{}

func (noMetrics) PayoutAccepted(payouts.Rail)                         {}
func (noMetrics) PayoutFinished(payouts.Rail, payouts.Status, string) {}
func (noMetrics) IdempotentReplay(Operation)                          {}
func (noMetrics) WorkerPass(time.Duration, int)                       {}
func (noMetrics) DispatcherPass(time.Duration, int)                   {}
func (noMetrics) WebhookAttempt(webhooks.State)                       {}
func (noMetrics) OrderMoved(orders.Direction, orders.Status, string)  {}
func (noMetrics) ConversionMoved(ConversionStatus, string)            {}

// Backlog is what waits on the engine's background work, for gauges.
type Backlog struct {
	// PayoutsDue and DeliveriesDue are the items due now in the worker's
	// and the dispatcher's due index.
	PayoutsDue, DeliveriesDue int
	// PayoutsInFlight counts payouts not terminal by status (held,
	// submitted, pending); PayoutsOverdue those older than
	// WorkerOptions.OverdueAfter.
	PayoutsInFlight map[payouts.Status]int
	PayoutsOverdue  int
}

// backlog is Operator.Backlog.
func (e *Engine) backlog(ctx context.Context) (Backlog, error) {
	now := e.nowUTC()
	b := Backlog{PayoutsInFlight: map[payouts.Status]int{payouts.Held: 0, payouts.Submitted: 0, payouts.Pending: 0}}
	err := e.store.View(ctx, func(tx store.Tx) error {
		var err error
		if b.DeliveriesDue, err = deliveriesDue.CountDue(tx, now); err != nil {
			return err
		}
		b.PayoutsDue, err = payoutsDue.CountDue(tx, now)
		return err
	})
	if err != nil {
		return b, err
	}
	list, err := e.payoutsInFlight(ctx, InFlightFilter{Limit: maxInFlightList})
	for _, p := range list {
		b.PayoutsInFlight[p.Payout.Status]++
		if p.Overdue {
			b.PayoutsOverdue++
		}
	}
	return b, err
}

// stateChange is a payout's move, reported once its transaction commits.
type stateChange struct {
	id, org  string
	rail     payouts.Rail
	from, to payouts.Status
	by       string
}

// reportPayout logs a committed payout state change at info level and
// counts a finish.
func (e *Engine) reportPayout(c stateChange) {
	if c.to == "" || c.from == c.to {
		return
	}
	if e.log.Enabled(context.Background(), slog.LevelInfo) { // the attributes cost allocations even when dropped
		e.log.LogAttrs(context.Background(), slog.LevelInfo, "payout", slog.String("payout", c.id), slog.String("org", c.org),
			slog.String("rail", string(c.rail)), slog.String("from", string(c.from)), slog.String("to", string(c.to)), slog.String("by", c.by))
	}
	if c.to.Terminal() {
		e.metrics.PayoutFinished(c.rail, c.to, c.by)
	}
}
