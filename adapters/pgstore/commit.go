package pgstore

import (
	"context"
	"sync"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

// request is an Update waiting for the committer.
type request struct {
	ctx   context.Context
	fn    func(store.Tx) error
	err   error
	panic any
	// rerun says the shared transaction failed to serialize: the caller
	// runs fn again alone.
	rerun bool
	// state is where the request stands in the batch being run.
	state reqState
	done  chan struct{}
}

type reqState int

const (
	pending  reqState = iota // fn not run yet
	written                  // fn returned nil; its writes are in the batch
	fnFailed                 // fn returned an error; valid once the batch commits
	final                    // the outcome is decided (panic, context ended)
)

func (r *request) reset() {
	r.ctx, r.fn, r.err, r.panic, r.rerun, r.state = nil, nil, nil, nil, false, pending
}

var requestPool = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

// commitLoop is the committer: it takes the updates waiting, runs their
// functions one after the other in one SERIALIZABLE transaction, each
// over its own write buffer on top of the writes of those before it, and
// commits their writes together. Updates that arrive while the functions
// run join the same transaction, up to MaxBatch.
func (s *Store) commitLoop() {
	defer close(s.stopped)
	var carry []*request // updates not run because the last batch broke
	for {
		var reqs []*request
		if len(carry) > 0 {
			reqs, carry = carry, nil
		} else {
			select {
			case r := <-s.reqs:
				reqs = []*request{r}
			case <-s.quit:
				return
			}
		}
		carry = s.runBatch(reqs)
	}
}

// runBatch runs and commits one batch and answers its callers. It returns
// the updates it did not run because the transaction broke first; they go
// into the next batch.
func (s *Store) runBatch(reqs []*request) (carry []*request) {
	t := &tx{s: s, ctx: s.bg}
	defer func() {
		t.end()
		t.release()
	}()
	acquired := false
	shared := txbuf.New(t) // the writes of the functions that succeeded
	var buf txbuf.Tx
	i := 0
run:
	for {
		for ; i < len(reqs); i++ {
			r := reqs[i]
			if err := r.ctx.Err(); err != nil {
				r.err, r.state = err, final
				continue
			}
			if !acquired {
				conn, err := s.pool.Acquire(s.bg)
				if err != nil {
					// The pool is closed or broken: nobody in the batch
					// can run.
					for _, r := range reqs[i:] {
						r.err, r.state = s.failure(r.ctx, err), final
					}
					i = len(reqs)
					break run
				}
				t.conn, acquired = conn, true
			}
			t.check = r.ctx.Err
			buf.Reset(shared)
			err, p := runFn(r.fn, &buf)
			switch {
			case p != nil:
				r.panic, r.state = p, final
			case t.err != nil:
				// The transaction is aborted: fn read through a failed
				// statement, whatever it returned.
			case err != nil:
				r.err, r.state = err, fnFailed
			default:
				shared.Merge(&buf)
				r.state = written
			}
			if t.err != nil {
				i++
				break run
			}
		}
		// Take the updates that arrived meanwhile into the same batch.
		grew := false
	drain:
		for len(reqs) < s.maxBatch {
			select {
			case r := <-s.reqs:
				reqs = append(reqs, r)
				grew = true
			default:
				break drain
			}
		}
		if !grew {
			break
		}
	}
	buf.Reset(nil)
	ran := reqs[:i]
	carry = reqs[i:]

	err := t.err
	if err == nil && acquired {
		err = t.commit(shared)
	}
	if err == nil && shared.Len() > 0 {
		s.stats.commits.Add(1)
	}
	retry := isRetryable(err)
	if retry {
		s.stats.retries.Add(1)
	}
	for _, r := range ran {
		switch {
		case r.state == final:
		case err == nil && r.state == written:
			r.err = nil
			s.stats.batched.Add(1)
		case err == nil: // fnFailed: its error stands
		case retry:
			r.rerun = true
		default:
			r.err = s.failure(r.ctx, err)
		}
		r.done <- struct{}{}
	}
	return carry
}
