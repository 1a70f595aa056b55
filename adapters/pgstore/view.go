package pgstore

import (
	"context"

	"github.com/tambalapay/tambala/store"
)

// viewGroup is a REPEATABLE READ, READ ONLY transaction that concurrent
// Views share: its snapshot is taken by its first round trip, after every
// View of the group began, so each of them reads committed data as of a
// moment after it was called. Their reads go together in round trips, and
// Gets of one key share one read. One group at a time sends its first
// round trip; the Views that begin meanwhile form the next group. The
// first round trip also reads the keys the Views of each of the last two
// groups read.
type viewGroup struct {
	t       *tx
	members int // Views running in it, guarded by Store.viewMu
}

// View runs fn in a REPEATABLE READ, READ ONLY transaction: one snapshot
// of committed data for all its reads, taken after View was called, which
// never waits for writers and never fails to serialize. Concurrent Views
// share one transaction (see viewGroup) unless Options.NoGroupCommit; fn's
// context is checked before each of its reads, and the statements run
// under the store's (Options.StatementTimeout bounds them).
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.inflight.Done()
	if s.reqs == nil {
		return s.viewAlone(ctx, fn)
	}
	g := s.joinView()
	fnErr, p := runFn(fn, readTx{t: g.t, check: ctx.Err})
	err := g.t.failed()
	s.leaveView(g)
	if p != nil {
		panic(p)
	}
	if err != nil {
		// A read failed: that is the cause, whatever fn made of it.
		return s.failure(ctx, err)
	}
	return fnErr
}

// viewAlone runs fn in a transaction of its own, whose statements ctx
// cancels.
func (s *Store) viewAlone(ctx context.Context, fn func(store.Tx) error) error {
	conn, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	t := newTx(s, conn, ctx, true)
	defer t.release()
	fnErr, p := runFn(fn, readTx{t: t})
	t.end()
	if p != nil {
		panic(p)
	}
	if err := t.failed(); err != nil {
		return s.failure(ctx, err)
	}
	return fnErr
}

// joinView returns the group a View joins: the one forming, or a new one.
func (s *Store) joinView() *viewGroup {
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	g := s.forming
	if g == nil {
		g = &viewGroup{}
		g.t = &tx{s: s, ctx: s.bg, readOnly: true, start: func() error { return s.startView(g) }, started: s.startedView}
		s.forming = g
	}
	g.members++
	return g
}

// startView runs before g's first round trip: it waits for the group
// before to have sent its own, takes a connection and closes g to the
// Views that begin from now on.
func (s *Store) startView(g *viewGroup) error {
	s.viewGate <- struct{}{}
	conn, err := s.pool.Acquire(s.bg)
	s.viewMu.Lock()
	if s.forming == g {
		s.forming = nil
	}
	s.viewMu.Unlock()
	if err != nil {
		<-s.viewGate
		return err
	}
	g.t.conn = conn
	s.viewMu.Lock()
	g.t.readAhead = s.viewRecurring
	s.viewMu.Unlock()
	return nil
}

// startedView runs once a group's first round trip is back: the next
// group may send its own.
func (s *Store) startedView() { <-s.viewGate }

// leaveView records that a View of g returned; the last one ends the
// transaction.
func (s *Store) leaveView(g *viewGroup) {
	s.viewMu.Lock()
	g.members--
	last := g.members == 0
	if last && s.forming == g {
		s.forming = nil
	}
	s.viewMu.Unlock()
	if last {
		g.t.end()
		g.t.release()
		s.learnViewReads(g.t)
	}
}

// learnViewReads keeps the keys that t's Views read and that the Views of
// the group that ended before read too: the next group reads them ahead,
// in its first round trip. They are the keys most Views read (an API
// key, an organization, settings).
func (s *Store) learnViewReads(t *tx) {
	keys := t.readKeys()
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	last := s.viewLast
	s.viewLast = make(map[string]struct{}, len(keys))
	var recurring []string
	for _, ck := range keys {
		s.viewLast[ck] = struct{}{}
		if _, ok := last[ck]; ok && len(recurring) < maxRecurring {
			recurring = append(recurring, ck)
		}
	}
	s.viewRecurring = recurring
}
