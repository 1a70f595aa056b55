package pgstore

// fnWorkers run the functions of a round run at once (batch.run) on
// goroutines kept from round to round. A fresh goroutine per function
// starts on a small stack and grows it by copying as the engine's calls
// go deeper: with 1,000 organizations, whose rounds run most functions at
// once, stack growth was 4% of the server's CPU (runtime.newstack under
// the functions). A kept goroutine keeps its grown stack until the
// garbage collector shrinks an idle one.
//
// Only the committer starts work, and it stops the workers (stop) when it
// ends. A function that ends its goroutine (runtime.Goexit) ends that
// worker only; the next round starts another.
type fnWorkers struct {
	work chan func() // unbuffered: a send succeeds only to an idle worker
}

func newFnWorkers() *fnWorkers { return &fnWorkers{work: make(chan func())} }

// run runs f on an idle worker, or on a new one if none is idle.
func (w *fnWorkers) run(f func()) {
	select {
	case w.work <- f:
	default:
		go w.loop(f)
	}
}

func (w *fnWorkers) loop(f func()) {
	for {
		f()
		var ok bool
		if f, ok = <-w.work; !ok {
			return
		}
	}
}

// stop ends the idle workers; those at work end when their function
// returns. run must not be called after stop.
func (w *fnWorkers) stop() { close(w.work) }
