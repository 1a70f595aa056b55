package loop

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
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

// Every is Run as a loop of a Group: it runs pass every interval until
// ctx ends, its errors to onErr, and returns nil.
func Every(interval time.Duration, pass func(ctx context.Context) (full bool, err error), onErr func(error)) func(context.Context) error {
	return func(ctx context.Context) error {
		Run(ctx, interval, pass, onErr)
		return nil
	}
}

// Group runs one set of loops at a time.
type Group struct {
	running atomic.Bool
}

// Run runs every loop on a goroutine of its own until ctx ends, and
// returns once every one has returned, their errors joined. started is
// false, and nothing runs, while another Run of g is under way.
func (g *Group) Run(ctx context.Context, loops ...func(context.Context) error) (started bool, err error) {
	if !g.running.CompareAndSwap(false, true) {
		return false, nil
	}
	defer g.running.Store(false)
	var wg sync.WaitGroup
	errs := make([]error, len(loops))
	for i, l := range loops {
		wg.Go(func() { errs[i] = l(ctx) })
	}
	wg.Wait()
	return true, errors.Join(errs...)
}

// Backoff is the wait after attempts consecutive failed calls: the capped
// exponential d (1s, 2s, 4s, ... maxWait), jittered into [d/2, d] and
// whole milliseconds (the engine's clock has millisecond precision, and a
// due time finer than it would not be claimed until the next millisecond).
func Backoff(attempts int, maxWait time.Duration) time.Duration {
	d := time.Second
	for i := 1; i < attempts && d < maxWait; i++ {
		d *= 2
	}
	d = min(d, maxWait)
	return (d/2 + rand.N(d/2+1)).Truncate(time.Millisecond)
}
