package pgstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tambalapay/tambala/store"
)

// asyncCommitSQL makes the commit of the transaction it runs in
// asynchronous: COMMIT returns before the commit's WAL is flushed.
// PostgreSQL and YugabyteDB accept it; a server that refuses it is found
// by the probe (asyncCommits), and its lazy commits are ordinary ones.
const asyncCommitSQL = "SET LOCAL synchronous_commit = off"

// asyncProbe is what the store knows of its server's asynchronous
// commits.
type asyncProbe struct {
	answer atomic.Int32 // unprobed, accepted or refused
	mu     sync.Mutex   // held while probing
	sql    string       // the probe's statement, "" for asyncCommitSQL (tests set another)
}

// The answers of the probe.
const (
	unprobed int32 = iota
	accepted
	refused
)

// asyncCommits reports whether the server accepts asyncCommitSQL,
// probing it the first time (Open probes at once, New at the first
// UpdateLazy): a transaction that runs it and rolls back. A refusal (an
// error the server sent) is the answer for good; any other failure leaves
// the question open, and this UpdateLazy commits as Update does.
func (s *Store) asyncCommits(ctx context.Context) (bool, error) {
	p := &s.async
	if a := p.answer.Load(); a != unprobed {
		return a == accepted, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if a := p.answer.Load(); a != unprobed {
		return a == accepted, nil
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Release()
	t, err := conn.Begin(ctx)
	if err != nil {
		return false, err
	}
	probe := p.sql
	if probe == "" {
		probe = asyncCommitSQL
	}
	_, err = t.Exec(ctx, probe)
	rerr := t.Rollback(ctx)
	switch {
	case err != nil && isServerError(err):
		p.answer.Store(refused)
		return false, nil
	case err != nil:
		return false, err
	case rerr != nil:
		return false, rerr
	}
	p.answer.Store(accepted)
	return true, nil
}

// UpdateLazy runs fn as Update does, in a transaction that, when the
// server accepts it, commits with SET LOCAL synchronous_commit = off
// (store.Lazy): COMMIT returns once the commit is visible, before the
// server has flushed its WAL. The transaction is as SERIALIZABLE, retried
// and isolated as any; a crash of the server may lose it (PostgreSQL: up
// to three times wal_writer_delay of such commits). The WAL is flushed in
// order, so a synchronous commit that read its writes makes them durable
// too.
//
// With group commit, lazy updates share the committer's batches with the
// others: a batch whose writes are all of lazy updates commits
// asynchronously, one that holds an Update's writes synchronously. (Lazy
// updates batched apart, in transactions of their own, measured slower:
// the committer pays a round trip per batch, which costs more than the
// flush spared.)
//
// On a server that refuses the setting (the probe failed), UpdateLazy is
// Update.
func (s *Store) UpdateLazy(ctx context.Context, fn func(store.Tx) error) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.inflight.Done()
	async, err := s.asyncCommits(ctx)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if s.reqs == nil {
		return s.updateAlone(ctx, fn, async)
	}
	return s.queue(ctx, fn, async)
}

// queue sends an update to the committer and waits for its outcome; a
// lazy one may commit asynchronously.
func (s *Store) queue(ctx context.Context, fn func(store.Tx) error, lazy bool) error {
	r := requestPool.Get().(*request)
	r.ctx, r.fn, r.start, r.lazy = ctx, fn, time.Now(), lazy
	s.reqs <- r
	<-r.done // once queued, wait for the outcome: the update may commit
	err, p := r.err, r.panic
	r.reset()
	requestPool.Put(r)
	if p != nil {
		panic(p)
	}
	return err
}

// probeAsync is Open's probe of the server's asynchronous commits.
func (s *Store) probeAsync(ctx context.Context) error {
	if _, err := s.asyncCommits(ctx); err != nil {
		return fmt.Errorf("pgstore: probing asynchronous commits: %w", s.failure(ctx, err))
	}
	return nil
}

// lazyOnly reports whether every update of reqs whose writes are in the
// batch is lazy: then the batch may commit asynchronously.
func lazyOnly(reqs []*request) bool {
	for _, r := range reqs {
		if r.state == written && !r.lazy {
			return false
		}
	}
	return true
}
