package main

import (
	"context"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/orders"
)

// outcomes is the program's tambala.EventHandler: it forwards the typed
// resource of each event the program waits for to a channel, so a step
// waits for its outcome without sleeping or polling. The engine calls it
// from Run's event loop after each change commits.
type outcomes struct {
	orders      chan orders.Order       // order.*: every move of the desk
	conversions chan tambala.Conversion // conversion.completed, conversion.failed
	payouts     chan tambala.PayoutV2   // payout_v2.succeeded, .failed, .reversed
}

func newOutcomes() *outcomes {
	const buffered = 16 // the handler never waits for the program
	return &outcomes{
		orders:      make(chan orders.Order, buffered),
		conversions: make(chan tambala.Conversion, buffered),
		payouts:     make(chan tambala.PayoutV2, buffered),
	}
}

// HandleEvent implements tambala.EventHandler. Events the program does not
// wait for (the deposit's collection_v2.settled) are accepted and dropped.
func (o *outcomes) HandleEvent(ctx context.Context, ev tambala.Event) error {
	switch {
	case ev.Order != nil:
		return send(ctx, o.orders, *ev.Order)
	case ev.Conversion != nil:
		return send(ctx, o.conversions, *ev.Conversion)
	case ev.PayoutV2 != nil:
		return send(ctx, o.payouts, *ev.PayoutV2)
	}
	return nil
}

// send hands v over, or gives up when the event loop stops: the error
// makes the engine hand the event over again later.
func send[T any](ctx context.Context, ch chan<- T, v T) error {
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// await returns the first value from ch that match accepts. Others are
// skipped: an event may come twice (the handler is called at least once
// per event), and a resource's earlier events come before its outcome.
func await[T any](ctx context.Context, ch <-chan T, match func(T) bool) (T, error) {
	for {
		select {
		case v := <-ch:
			if match(v) {
				return v, nil
			}
		case <-ctx.Done():
			var zero T
			return zero, context.Cause(ctx)
		}
	}
}
