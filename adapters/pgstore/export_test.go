package pgstore

import "context"

// SetRuns sets how the committer runs a round of functions: "auto",
// "in-order" or "concurrent". Set it before the first Update.
func (s *Store) SetRuns(policy string) {
	switch policy {
	case "auto":
		s.runs = runsAuto
	case "in-order":
		s.runs = runsInOrder
	case "concurrent":
		s.runs = runsConcurrent
	default:
		panic("pgstore: unknown run policy " + policy)
	}
}

// Queued returns how many updates wait for the committer.
func (s *Store) Queued() int { return len(s.reqs) }

// ErrGoexit is the panic of an update whose function called
// runtime.Goexit in a round run at once.
var ErrGoexit = errGoexit

// Reprobe forgets what the store knows of the server's asynchronous
// commits and probes again with sql in place of SET LOCAL
// synchronous_commit = off (a statement the server refuses stands for a
// server that refuses that one).
func (s *Store) Reprobe(ctx context.Context, sql string) (bool, error) {
	s.async.mu.Lock()
	s.async.answer.Store(unprobed)
	s.async.sql = sql
	s.async.mu.Unlock()
	return s.asyncCommits(ctx)
}
