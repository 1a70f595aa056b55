// Package concurrent runs a bounded number of calls at once, with panic
// hand-off to the caller.
package concurrent

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls fn(i) for i in [0, n), in order of i, on up to
// workers goroutines at once; the calling goroutine is one of them. It
// stops taking new i once ctx ends and returns when every call it began has
// returned. A call that panics or calls runtime.Goexit stops the others from
// taking new work; once they return, the panic goes on (or the goroutine
// ends) in the caller.
func ForEach(ctx context.Context, workers, n int, fn func(i int)) {
	workers = max(1, min(workers, n))
	var (
		next     atomic.Int64
		stop     atomic.Bool
		mu       sync.Mutex
		panicked any
		exited   bool
	)
	work := func() {
		for !stop.Load() && ctx.Err() == nil {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(i)
		}
	}
	helper := func() {
		normal := false
		defer func() {
			if normal {
				return
			}
			v := recover() // nil after runtime.Goexit
			stop.Store(true)
			mu.Lock()
			if panicked == nil && !exited {
				panicked, exited = v, v == nil
			}
			mu.Unlock()
		}()
		work()
		normal = true
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(helper)
	}
	finished := false
	defer func() {
		if !finished { // fn panicked or called Goexit on this goroutine
			stop.Store(true)
			wg.Wait()
		}
	}()
	work()
	wg.Wait()
	finished = true
	if panicked != nil {
		panic(panicked)
	}
	if exited {
		runtime.Goexit()
	}
}
