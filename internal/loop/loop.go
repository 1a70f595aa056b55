// Package loop runs a background pass at an interval until its context
// ends, the way the engine's payout worker, webhook dispatcher and
// idempotency pruner run.
package loop

import (
	"context"
	"time"
)

// Run calls pass at once and then every interval until ctx ends. A pass
// that reports full (it took a whole batch, so more may be due already) is
// followed by the next at once. A pass's error goes to onErr unless ctx
// has ended. Run returns when ctx has ended and the pass under way has
// returned: it never starts a pass after ctx ends.
func Run(ctx context.Context, interval time.Duration, pass func(ctx context.Context) (full bool, err error), onErr func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for ctx.Err() == nil {
		full, err := pass(ctx)
		if err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
		if full && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
