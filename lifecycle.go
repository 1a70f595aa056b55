package tambala

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/tambalapay/tambala/internal/loop"
)

// PruneOptions tune the pruning of decided idempotency outcomes.
type PruneOptions struct {
	// Interval is how often Run prunes (default 5m).
	Interval time.Duration
	// Batch is the most outcomes one prune deletes (default 1000); a full
	// batch is followed by the next at once.
	Batch int
}

func (p *PruneOptions) defaults() {
	if p.Interval <= 0 {
		p.Interval = 5 * time.Minute
	}
	if p.Batch <= 0 {
		p.Batch = 1000
	}
}

// ErrRunning is returned by Run while another Run of the engine is under
// way.
var ErrRunning = errors.New("tambala: Run is already running")

// Loop names one of the loops Run runs.
type Loop int

const (
	// LoopPayouts is the payout worker (Options.Payouts, Options.Worker).
	LoopPayouts Loop = iota + 1
	// LoopDeliveries is the webhook dispatcher (Options.Webhooks,
	// Options.Dispatcher).
	LoopDeliveries
	// LoopConversions is the conversion worker (Options.Converter,
	// Options.ConversionWorker).
	LoopConversions
	// LoopEvents hands committed events to Options.Events
	// (Options.EventLoop).
	LoopEvents
	// LoopOrderExpiry is the expiry sweep of unfunded desk orders
	// (ProcessOrders, every OrderOptions.SweepInterval).
	LoopOrderExpiry
	// LoopPruning prunes decided idempotency outcomes, old quotes, and
	// old sessions and sign-in throttles (Options.Prune).
	LoopPruning
)

func (l Loop) String() string {
	switch l {
	case LoopPayouts:
		return "payouts"
	case LoopDeliveries:
		return "deliveries"
	case LoopConversions:
		return "conversions"
	case LoopEvents:
		return "events"
	case LoopOrderExpiry:
		return "order_expiry"
	case LoopPruning:
		return "pruning"
	}
	return "loop(" + strconv.Itoa(int(l)) + ")"
}

// ErrUnknownLoop is returned by Run for a Loop it does not know.
var ErrUnknownLoop = errors.New("tambala: unknown loop")

// Run runs the engine's background work until ctx ends: the loops named,
// or, when none is, every loop whose port is configured. That is the
// payout worker (which needs Options.Payouts: without it Run fails at once
// with ErrNoPayoutProvider), the order expiry sweep and pruning always;
// the webhook dispatcher when Options.Webhooks is set (without it
// deliveries wait in the outbox); the conversion worker when
// Options.Converter is set; and the event loop when Options.Events is
// set. A loop named whose port is missing fails Run at once
// (ErrNoPayoutProvider, ErrNoWebhookSender, ErrNoConverter,
// ErrNoEventHandler). After ctx ends Run returns nil only once every loop
// has finished the pass it was in, so the host may close the store right
// after; a second Run while one is under way gets ErrRunning.
//
// A host that schedules the work itself calls the single passes instead:
// ProcessPayouts, ProcessDeliveries, ProcessConversions, ProcessEvents,
// ProcessOrders, PruneIdempotency and PruneQuotes.
func (e *Engine) Run(ctx context.Context, loops ...Loop) error {
	if len(loops) == 0 {
		if e.provider == nil {
			return ErrNoPayoutProvider
		}
		loops = []Loop{LoopPayouts, LoopOrderExpiry, LoopPruning}
		if e.sender != nil {
			loops = append(loops, LoopDeliveries)
		}
		if e.converter != nil {
			loops = append(loops, LoopConversions)
		}
		if e.events != nil {
			loops = append(loops, LoopEvents)
		}
	}
	run := make(map[Loop]bool, len(loops))
	for _, l := range loops {
		var missing error
		switch l {
		case LoopPayouts:
			if e.provider == nil {
				missing = ErrNoPayoutProvider
			}
		case LoopDeliveries:
			if e.sender == nil {
				missing = ErrNoWebhookSender
			}
		case LoopConversions:
			if e.converter == nil {
				missing = ErrNoConverter
			}
		case LoopEvents:
			if e.events == nil {
				missing = ErrNoEventHandler
			}
		case LoopOrderExpiry, LoopPruning:
		default:
			missing = fmt.Errorf("%w: %d", ErrUnknownLoop, int(l))
		}
		if missing != nil {
			return missing
		}
		run[l] = true
	}
	if !e.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer e.running.Store(false)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	if run[LoopPayouts] {
		wg.Go(func() { errs <- e.RunPayoutWorker(ctx, e.worker.Interval) })
	}
	if run[LoopDeliveries] {
		wg.Go(func() { errs <- e.RunDispatcher(ctx, e.dispatch.Interval) })
	}
	if run[LoopPruning] {
		wg.Go(func() {
			loop.Run(ctx, e.prune.Interval, func(ctx context.Context) (bool, error) {
				n, err := e.PruneIdempotency(ctx, e.prune.Batch)
				if err != nil {
					return false, err
				}
				q, err := e.PruneQuotes(ctx, e.prune.Batch)
				if err != nil {
					return false, err
				}
				s, err := e.PruneSessions(ctx, e.prune.Batch)
				return n == e.prune.Batch || q == e.prune.Batch || s >= e.prune.Batch, err
			}, func(err error) { e.log.Error("pruning", slog.Any("error", err)) })
		})
	}
	if run[LoopOrderExpiry] {
		wg.Go(func() {
			loop.Run(ctx, e.orderOpts.SweepInterval, func(ctx context.Context) (bool, error) {
				_, err := e.ProcessOrders(ctx)
				return false, err
			}, func(err error) { e.log.Error("order expiry sweep", slog.Any("error", err)) })
		})
	}
	if run[LoopConversions] {
		wg.Go(func() {
			if err := e.RunConversionWorker(ctx, e.convOpts.Interval); err != nil {
				e.log.Error("conversion worker", slog.Any("error", err))
			}
		})
	}
	if run[LoopEvents] {
		wg.Go(func() {
			loop.Run(ctx, e.eventOpts.Interval, func(ctx context.Context) (bool, error) {
				n, err := e.ProcessEvents(ctx)
				return n == e.eventOpts.Batch, err
			}, func(err error) { e.log.Error("event loop", slog.Any("error", err)) })
		})
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}
