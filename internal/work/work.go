package work

import (
	"context"
	"log/slog"
	"runtime"
	"sync"

	"github.com/tambalapay/tambala/store"
)

// Job is one kind of work: how an item of type T is claimed, called and
// recorded, with R the outcome of the call.
type Job[T, R any] struct {
	// Name names the work in logs ("payout worker").
	Name string
	// Item is the log attribute naming an item's id ("payout").
	Item string
	// ID is the id of a claimed item, for logs.
	ID func(item T) string
	// Claim claims the item id inside tx under a lease; ok is false when
	// it is not due any more (finished, or claimed elsewhere). It may run
	// for several ids in one transaction, and again if the store runs the
	// transaction again.
	Claim func(tx store.Tx, id string) (item T, ok bool, err error)
	// Claimed, if set, is told of each item once its claim committed.
	Claimed func(item T)
	// Call calls the port for item with no transaction open. ok false
	// means nothing is to be recorded (the call was cut short by the end
	// of ctx: the lease brings the item back).
	Call func(ctx context.Context, item T) (out R, ok bool)
	// Record records the outcome of the call in a transaction of its own,
	// and reports whether the item counts as advanced.
	Record func(ctx context.Context, item T, out R) (advanced bool, err error)
}

// Pass runs job over ids (those due when the pass began, in order) on up
// to workers goroutines, the caller's among them, and returns how many
// items advanced. It stops taking items once ctx ends, and returns when
// every call it began has been recorded.
func Pass[T, R any](ctx context.Context, s store.Store, log *slog.Logger, workers int, ids []string, job Job[T, R]) int {
	p := &pass[T, R]{ctx: ctx, s: s, log: log, job: job, ids: ids, workers: max(1, min(workers, len(ids)))}
	p.cond.L = &p.mu
	var wg sync.WaitGroup
	for range p.workers - 1 {
		wg.Go(p.helper)
	}
	finished := false
	defer func() {
		if !finished {
			// A call on this goroutine panicked or called Goexit: let the
			// helpers record what they called, then go on dying.
			p.halt(nil, false)
			wg.Wait()
		}
	}()
	p.work()
	wg.Wait()
	finished = true
	if p.panicked != nil {
		panic(p.panicked)
	}
	if p.exited {
		runtime.Goexit()
	}
	return p.advanced
}

type pass[T, R any] struct {
	ctx     context.Context
	s       store.Store
	log     *slog.Logger
	job     Job[T, R]
	workers int

	mu       sync.Mutex
	cond     sync.Cond // signalled when a claim ends or the pass halts
	ids      []string  // due when the pass began, not claimed yet
	ready    []T       // claimed, waiting for a free worker
	busy     int       // workers calling
	claiming bool      // a claim is under way (one at a time)
	halted   bool
	advanced int
	panicked any  // a helper's call panicked
	exited   bool // a helper's call called runtime.Goexit
}

// helper is a worker on a goroutine of its own: a panic or Goexit in it is
// handed to the pass's caller.
func (p *pass[T, R]) helper() {
	normal := false
	defer func() {
		if !normal {
			v := recover() // nil after runtime.Goexit
			p.halt(v, v == nil)
		}
	}()
	p.work()
	normal = true
}

func (p *pass[T, R]) halt(panicked any, exited bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.halted = true
	if p.panicked == nil && !p.exited {
		p.panicked, p.exited = panicked, exited
	}
	p.cond.Broadcast()
}

func (p *pass[T, R]) work() {
	for {
		item, ok := p.next()
		if !ok {
			return
		}
		out, ok := p.job.Call(p.ctx, item)
		p.mu.Lock()
		p.busy-- // free: the next claim may be for this worker while it records
		p.mu.Unlock()
		if !ok {
			continue
		}
		advanced, err := p.job.Record(p.ctx, item, out)
		if err != nil && p.ctx.Err() == nil {
			p.log.Error(p.job.Name, slog.String(p.job.Item, p.job.ID(item)), slog.Any("error", err))
		}
		if advanced {
			p.mu.Lock()
			p.advanced++
			p.mu.Unlock()
		}
	}
}

// next hands the calling worker a claimed item; false when the pass is
// over for it.
func (p *pass[T, R]) next() (T, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.halted || p.ctx.Err() != nil {
			var zero T
			return zero, false
		}
		if len(p.ready) > 0 {
			item := p.ready[0]
			p.ready = p.ready[1:]
			p.busy++
			return item, true
		}
		if p.claiming { // what it claims may be for this worker
			p.cond.Wait()
			continue
		}
		if len(p.ids) == 0 {
			var zero T
			return zero, false
		}
		// Claim for every worker free now (this one at least), in one
		// transaction: none waits in ready for more than a record, so its
		// lease covers its call.
		n := max(1, min(p.workers-p.busy, len(p.ids)))
		take := p.ids[:n:n]
		p.ids = p.ids[n:]
		p.ready = append(p.ready, p.claim(take)...)
	}
}

// claim runs claimAll without the lock; called and returning with it
// held, also when claimAll panics.
func (p *pass[T, R]) claim(ids []string) []T {
	p.claiming = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.claiming = false
		p.cond.Broadcast()
	}()
	return p.claimAll(ids)
}

// claimAll claims those of ids still due in one transaction. Should that
// fail, it claims them one transaction each, so one bad item holds back no
// other; failures are logged.
func (p *pass[T, R]) claimAll(ids []string) []T {
	out, err := p.claimIn(ids)
	if err == nil {
		return out
	}
	if p.ctx.Err() != nil {
		return nil
	}
	if len(ids) == 1 {
		p.log.Error(p.job.Name, slog.String(p.job.Item, ids[0]), slog.Any("error", err))
		return nil
	}
	out = nil
	for _, id := range ids {
		got, err := p.claimIn([]string{id})
		if err != nil {
			if p.ctx.Err() != nil {
				return out
			}
			p.log.Error(p.job.Name, slog.String(p.job.Item, id), slog.Any("error", err))
			continue
		}
		out = append(out, got...)
	}
	return out
}

func (p *pass[T, R]) claimIn(ids []string) ([]T, error) {
	var out []T
	err := p.s.Update(p.ctx, func(tx store.Tx) error {
		out = out[:0] // the store may run fn again
		for _, id := range ids {
			item, ok, err := p.job.Claim(tx, id)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, item)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if p.job.Claimed != nil {
		for _, item := range out {
			p.job.Claimed(item)
		}
	}
	return out, nil
}
