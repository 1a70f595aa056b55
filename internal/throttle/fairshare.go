package throttle

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/tambalapay/tambala/errcode"
)

// FairShare keeps one organization's burst from taking the engine from
// the others: while more than one organization is active (another
// organization entered within the window), each may have at most limit
// requests in the engine at once, and its further requests wait their
// turn, in order, outside it. An organization alone is never held back, so
// a single busy organization keeps every caller in flight (and the group
// commit's batches full); and many organizations with a request or two
// each never reach the limit. See docs/decisions.md, "A fair share of the
// engine".
type FairShare struct {
	limit  int // <= 0: off
	window time.Duration
	now    func() time.Time

	mu          sync.Mutex
	orgs        map[string]*orgShare
	lastOrg     string
	lastAt      time.Time
	sharedUntil time.Time // more than one organization is active until then
}

type orgShare struct {
	inFlight int
	waiting  []chan struct{} // closed when a slot is handed to the waiter
}

// ShareWindow is how long an organization counts as active after it
// last entered.
const ShareWindow = time.Second

// Init sets the share: at most limit requests of one organization in the
// engine at once while another is active (<= 0: no limit), with now the
// clock.
func (f *FairShare) Init(limit int, now func() time.Time) {
	f.limit, f.window, f.now, f.orgs = limit, ShareWindow, now, map[string]*orgShare{}
}

// shared reports whether the limit applies at now; f.mu is held.
func (f *FairShare) shared(now time.Time) bool { return now.Before(f.sharedUntil) }

// Enter admits one request of org, or has it wait its turn until one of
// org's own ends (or ctx does: service_unavailable). release ends the
// request.
func (f *FairShare) Enter(ctx context.Context, org string) (release func(), err error) {
	if f.limit <= 0 {
		return func() {}, nil
	}
	now := f.now()
	f.mu.Lock()
	if org != f.lastOrg {
		if now.Sub(f.lastAt) < f.window {
			f.sharedUntil = now.Add(f.window)
		}
		f.lastOrg = org
	}
	f.lastAt = now
	s := f.orgs[org]
	if s == nil {
		s = &orgShare{}
		f.orgs[org] = s
	}
	release = func() { f.leave(org) }
	f.handOver(s, now) // the share may have ended since the last request
	if len(s.waiting) == 0 && (s.inFlight < f.limit || !f.shared(now)) {
		s.inFlight++
		f.mu.Unlock()
		return release, nil
	}
	turn := make(chan struct{})
	s.waiting = append(s.waiting, turn)
	f.mu.Unlock()
	select {
	case <-turn:
		return release, nil
	case <-ctx.Done():
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if i := slices.Index(s.waiting, turn); i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
		f.forget(org, s)
		return nil, &errcode.Error{Code: errcode.ServiceUnavailable,
			Message: "The request waited too long for its organization's turn; try again.", Err: ctx.Err()}
	}
	// The slot was handed over as the context ended: take it, the caller
	// releases it.
	return release, nil
}

// leave ends a request: its slot goes to the organization's next waiter
// while the organization is within its share (or alone).
func (f *FairShare) leave(org string) {
	now := f.now()
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.orgs[org]
	s.inFlight--
	f.handOver(s, now)
	f.forget(org, s)
}

// handOver gives slots to the organization's waiters, in order, while it
// is within its share or alone; f.mu is held.
func (f *FairShare) handOver(s *orgShare, now time.Time) {
	for len(s.waiting) > 0 && (s.inFlight < f.limit || !f.shared(now)) {
		turn := s.waiting[0]
		s.waiting = s.waiting[1:]
		s.inFlight++
		close(turn)
	}
}

// forget drops an organization with nothing in flight or waiting; f.mu is
// held.
func (f *FairShare) forget(org string, s *orgShare) {
	if s.inFlight == 0 && len(s.waiting) == 0 {
		delete(f.orgs, org)
	}
}
