package tambala

import (
	"context"
	"errors"
	"log/slog"
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

// Run runs the engine's background work until ctx ends: the payout worker
// (Options.Worker), the webhook dispatcher (Options.Dispatcher), the
// expiry sweep of unfunded desk orders (ProcessOrders, every
// OrderOptions.SweepInterval) and the pruning of idempotency outcomes and
// old quotes (Options.Prune), and, when Options.Converter is set, the
// conversion worker (Options.ConversionWorker; without a converter that
// loop is skipped, so conversions stay processing). It fails at once, with
// ErrNoPayoutProvider or ErrNoWebhookSender, when a port the work needs is
// missing. After ctx ends it returns nil only once every loop has finished
// the pass it was in, so the host may close the store right after.
//
// A host that schedules the work itself calls RunPayoutWorker,
// RunDispatcher and PruneIdempotency (or ProcessPayouts and
// ProcessDeliveries for single passes) instead.
func (e *Engine) Run(ctx context.Context) error {
	if e.provider == nil {
		return ErrNoPayoutProvider
	}
	if e.sender == nil {
		return ErrNoWebhookSender
	}
	if !e.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer e.running.Store(false)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Go(func() { errs <- e.RunPayoutWorker(ctx, e.worker.Interval) })
	wg.Go(func() { errs <- e.RunDispatcher(ctx, e.dispatch.Interval) })
	wg.Go(func() {
		loop.Run(ctx, e.prune.Interval, func(ctx context.Context) (bool, error) {
			n, err := e.PruneIdempotency(ctx, e.prune.Batch)
			if err != nil {
				return false, err
			}
			q, err := e.PruneQuotes(ctx, e.prune.Batch)
			return n == e.prune.Batch || q == e.prune.Batch, err
		}, func(err error) { e.log.Error("pruning", slog.Any("error", err)) })
	})
	wg.Go(func() {
		loop.Run(ctx, e.orderOpts.SweepInterval, func(ctx context.Context) (bool, error) {
			_, err := e.ProcessOrders(ctx)
			return false, err
		}, func(err error) { e.log.Error("order expiry sweep", slog.Any("error", err)) })
	})
	if e.converter != nil {
		wg.Go(func() {
			if err := e.RunConversionWorker(ctx, e.convOpts.Interval); err != nil {
				e.log.Error("conversion worker", slog.Any("error", err))
			}
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
