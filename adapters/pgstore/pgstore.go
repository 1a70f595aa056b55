package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

// Defaults of Options.
const (
	DefaultMaxBatch   = 256
	DefaultMaxRetries = 30
	DefaultRetryFor   = 10 * time.Second
)

// Backoff before the attempt of an update after one that failed to
// serialize having written nothing (an attempt after one that wrote locks
// what that one wrote instead): a random wait up to minBackoff << attempt,
// capped at maxBackoff.
const (
	minBackoff = 500 * time.Microsecond
	maxBackoff = 50 * time.Millisecond
)

// Options configure a Store. The zero value (or nil) is the default: the
// connection's current schema, group commit on, batches of up to
// DefaultMaxBatch updates, retries for at least DefaultRetryFor and
// DefaultMaxRetries times, no statement timeout.
type Options struct {
	// Schema holds the store's tables; Migrate creates it when missing.
	// Empty means the connection's current schema (its search_path).
	Schema string
	// MaxConns is the size of the pool Open creates (default pgxpool's,
	// max(4, GOMAXPROCS)). New ignores it: the host sized its pool.
	MaxConns int32
	// StatementTimeout bounds every statement of a transaction (SET LOCAL
	// statement_timeout); 0 leaves the server's setting.
	StatementTimeout time.Duration
	// NoGroupCommit runs every Update and every View in a transaction of
	// its own, whose statements the caller's context cancels. By default
	// concurrent Updates share one transaction and one commit, and
	// concurrent Views one snapshot.
	NoGroupCommit bool
	// MaxBatch caps how many updates share one commit (default 256).
	MaxBatch int
	// MaxRetries and RetryFor are the retry budget: an update that failed
	// to serialize or was a deadlock's victim runs again until it has
	// been run again MaxRetries times (default 30) AND RetryFor (default
	// 10 s) has passed since Update was called; only then, or when the
	// caller's context ends, does Update give up (store.ErrConflict, or
	// the context's error). The budget is in time so that contention,
	// however many attempts it costs under load, costs latency and not
	// an error; the count keeps a floor for a fast machine. Waiting for
	// the locks of hot keys runs no function and counts as no retry (see
	// Contention in the package documentation).
	MaxRetries int
	RetryFor   time.Duration
}

// Store is a store.Store over one table of a PostgreSQL database.
type Store struct {
	pool       *pgxpool.Pool
	ownPool    bool
	sql        statements
	timeout    string // SET LOCAL statement_timeout value, "" for none
	maxBatch   int
	maxRetries int
	retryFor   time.Duration

	mu       sync.RWMutex // guards closed and inflight.Add
	closed   bool
	inflight sync.WaitGroup // View and Update calls under way

	reqs    chan *request // nil without group commit
	quit    chan struct{}
	stopped chan struct{}
	workers *fnWorkers // the committer's, for functions run at once
	async   asyncProbe // the server's asynchronous commits (UpdateLazy)
	// bg is the context of the committer's statements: a caller's context
	// must not cancel a transaction other callers share.
	bg context.Context

	// Views share transactions (see viewGroup): forming is the group new
	// Views join, viewGate lets one group at a time send its first round
	// trip.
	viewMu   sync.Mutex
	forming  *viewGroup
	viewGate chan struct{}
	// viewLast are the keys the last group to end read, viewRecurring
	// those of them the group before read too.
	viewLast      map[string]struct{}
	viewRecurring []string

	runs runPolicy // how a batch's functions run; tests set it
	// recentReads and recentFns are the committer's decayed sums of the
	// reads its rounds sent to the server and of their functions.
	recentReads, recentFns float64
	// again and relock are the updates of the committer's last batch and
	// the keys it wrote, when it failed to serialize.
	again  []*request
	relock []write
	hot    hotSet
	// lastReads are the keys the last batch's functions read from the
	// server, recurring those of them the batch before read too.
	lastReads map[string]struct{}
	recurring []string
	// idBuckets are the buckets of new records, whose keys a batch takes
	// as missing (see readBuckets); present the keys so taken that the last
	// batch found, which the next reads first; redoing says the next
	// batch runs the last one again, and readAbsent that it takes no key
	// as missing (a batch run again found a key so taken).
	idBuckets           map[string]bool
	present             []string
	redoing, readAbsent bool

	stats struct {
		commits, batched, reran, retries, requeued, relocks, redone, conflicts, async, reads, rounds atomic.Int64
	}
}

var (
	_ store.Store       = (*Store)(nil)
	_ store.Lazy        = (*Store)(nil)
	_ store.AheadReader = (*Store)(nil)
)

// runPolicy says how the committer runs a round of functions.
type runPolicy int

const (
	runsAuto       runPolicy = iota // chosen per round from the last one
	runsInOrder                     // one after the other
	runsConcurrent                  // at once, then validated in order
)

// Open connects to the database at url (a PostgreSQL URL or DSN), runs
// Migrate for opts.Schema and returns a store that owns its pool: Close
// closes it.
func Open(ctx context.Context, url string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	if o.StatementTimeout > 0 {
		// For the connection's every statement, the preparation of a
		// statement too (which waits for the locks of the tables named).
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = timeoutSetting(o.StatementTimeout)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	if err := Migrate(ctx, pool, o.Schema); err != nil {
		pool.Close()
		return nil, err
	}
	s, err := newStore(pool, o, true)
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.probeAsync(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

func timeoutSetting(d time.Duration) string {
	return fmt.Sprintf("%dms", max(1, d.Milliseconds()))
}

// New returns a store over a pool the host owns: Close leaves the pool
// open. It does no I/O; run Migrate on the schema first.
//
// Options.StatementTimeout is set in each transaction (SET LOCAL); the
// preparation of a statement on a new connection, before its first
// transaction, runs under the pool's own statement_timeout.
func New(pool *pgxpool.Pool, opts *Options) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgstore: nil pool")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	return newStore(pool, o, false)
}

func newStore(pool *pgxpool.Pool, o Options, ownPool bool) (*Store, error) {
	switch {
	case o.MaxBatch < 0:
		return nil, fmt.Errorf("pgstore: MaxBatch %d is negative", o.MaxBatch)
	case o.MaxRetries < 0:
		return nil, fmt.Errorf("pgstore: MaxRetries %d is negative", o.MaxRetries)
	case o.StatementTimeout < 0:
		return nil, fmt.Errorf("pgstore: StatementTimeout %v is negative", o.StatementTimeout)
	case o.RetryFor < 0:
		return nil, fmt.Errorf("pgstore: RetryFor %v is negative", o.RetryFor)
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.RetryFor == 0 {
		o.RetryFor = DefaultRetryFor
	}
	s := &Store{
		pool:       pool,
		ownPool:    ownPool,
		sql:        newStatements(o.Schema),
		maxBatch:   o.MaxBatch,
		maxRetries: o.MaxRetries,
		retryFor:   o.RetryFor,
		bg:         context.Background(),
	}
	if o.StatementTimeout > 0 && !ownPool {
		s.timeout = timeoutSetting(o.StatementTimeout)
	}
	if !o.NoGroupCommit {
		s.viewGate = make(chan struct{}, 1)
		s.reqs = make(chan *request, o.MaxBatch)
		s.quit = make(chan struct{})
		s.stopped = make(chan struct{})
		s.workers = newFnWorkers()
		go s.commitLoop()
	}
	return s, nil
}

// ReadsAhead reports whether the store reads the keys named on an
// Update's context (store.WithReadsAhead): with group commit, a round of
// updates reads them all in its first round trip.
func (s *Store) ReadsAhead() bool { return s.reqs != nil }

// Pool returns the pool the store runs on.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Stats are counters since the store was opened.
type Stats struct {
	// Commits counts the transactions of Updates that committed writes.
	Commits int64
	// Batched counts the updates whose writes committed in a shared
	// transaction (group commit); Batched/Commits is the mean batch size
	// when every update goes through group commit.
	Batched int64
	// Reran counts functions of a batch run a second time, in order,
	// because a function before them in the batch wrote a key they had
	// read when they ran at once with the others.
	Reran int64
	// Retries counts transactions run again after a serialization failure
	// or a deadlock.
	Retries int64
	// Requeued counts updates run again in the committer's next batch
	// after the shared transaction they were part of failed to serialize.
	Requeued int64
	// Relocks counts statements locking keys up front that failed to
	// serialize (they waited for a transaction that wrote a row) and were
	// sent again in a new transaction.
	Relocks int64
	// Redone counts batches run again because a key that a function
	// run again took as missing was not (see Group commit in the package
	// documentation).
	Redone int64
	// Conflicts counts the Updates that gave up with store.ErrConflict.
	Conflicts int64
	// Async counts the transactions of UpdateLazy that committed writes
	// asynchronously (they count in Commits too).
	Async int64
	// ReadRoundTrips counts the round trips that carried reads (Gets,
	// pages of Scans, keys read ahead) of Updates and Views.
	ReadRoundTrips int64
	// Rounds counts the rounds of functions the committer ran: a batch
	// runs the updates waiting when it begins, then those that arrived
	// meanwhile, each group a round, before its one commit.
	Rounds int64
}

// Stats returns the store's counters.
func (s *Store) Stats() Stats {
	return Stats{
		Commits:        s.stats.commits.Load(),
		Batched:        s.stats.batched.Load(),
		Reran:          s.stats.reran.Load(),
		Retries:        s.stats.retries.Load(),
		Requeued:       s.stats.requeued.Load(),
		Relocks:        s.stats.relocks.Load(),
		Redone:         s.stats.redone.Load(),
		Conflicts:      s.stats.conflicts.Load(),
		Async:          s.stats.async.Load(),
		ReadRoundTrips: s.stats.reads.Load(),
		Rounds:         s.stats.rounds.Load(),
	}
}

// enter registers a call of ctx: ctx's error when it is done, else
// store.ErrClosed when the store is closed. After nil the caller defers
// s.inflight.Done().
func (s *Store) enter(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return store.ErrClosed
	}
	s.inflight.Add(1)
	return nil
}

// Update runs fn in a SERIALIZABLE transaction, shared with concurrent
// Updates unless Options.NoGroupCommit, and runs it again after a
// serialization failure or deadlock, holding locks on what it wrote.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.inflight.Done()
	if s.reqs == nil {
		return s.updateAlone(ctx, fn, false)
	}
	return s.queue(ctx, fn, false)
}

// retrying reports whether an update begun at start that has failed to
// serialize failures times may run again: until both the count and the
// time of the retry budget are spent (Options.MaxRetries, RetryFor).
func (s *Store) retrying(failures int, start time.Time) bool {
	return failures <= s.maxRetries || time.Since(start) < s.retryFor
}

// updateAlone runs fn in transactions of its own until one commits, fn
// fails, the caller's context ends, or the retry budget is spent. Each attempt locks the hot keys
// first (see hotSet), and one after an attempt that failed to serialize
// every key that attempt wrote too; an attempt after one that wrote
// nothing waits a random backoff first instead.
func (s *Store) updateAlone(ctx context.Context, fn func(store.Tx) error, lazy bool) error {
	var last error
	var relock []write
	start := time.Now()
	attempt := 0
	for ; attempt == 0 || s.retrying(attempt, start); attempt++ {
		if attempt > 0 && len(relock) == 0 {
			if err := backoff(ctx, attempt); err != nil {
				return err
			}
		}
		retry, wrote, err := s.tryAlone(ctx, fn, relock, lazy)
		if !retry {
			return err
		}
		s.stats.retries.Add(1)
		last, relock = err, wrote
	}
	s.stats.conflicts.Add(1)
	// last wraps store.ErrConflict and the database's error.
	return fmt.Errorf("pgstore: gave up after %d attempts in %v: %w", attempt, time.Since(start).Round(time.Millisecond), last)
}

// tryAlone makes one attempt of fn in a transaction of its own, which
// locks the hot keys and relock first. retry says the transaction failed
// to serialize and fn may be run again; wrote is then what fn wrote. A
// lazy transaction commits asynchronously.
func (s *Store) tryAlone(ctx context.Context, fn func(store.Tx) error, relock []write, lazy bool) (retry bool, wrote []write, err error) {
	conn, err := s.acquire(ctx)
	if err != nil {
		return false, nil, err
	}
	t := newTx(s, conn, ctx, false)
	t.lazy = lazy
	defer func() { t.release() }()
	t, err = s.lockFirst(t, relock, func() bool { return ctx.Err() == nil })
	if err != nil {
		t.end()
		return isRetryable(err), nil, s.failure(ctx, err)
	}
	var buf txbuf.Tx
	buf.Reset(t)
	fnErr, p := runFn(fn, &buf)
	if p != nil {
		t.end()
		panic(p)
	}
	if err := t.failed(); err != nil {
		t.end()
		return isRetryable(err), nil, s.failure(ctx, err)
	}
	if fnErr != nil {
		buf.Reset(nil)
	}
	// A failed fn's writes are dropped, but its reads are validated by the
	// commit too: an error decided on a snapshot that cannot serialize is
	// decided again.
	wroteAny := buf.Len() > 0
	err = t.commit(&buf)
	retry = isRetryable(err)
	if wroteAny && (retry || !s.hot.empty()) {
		var keys writtenSet
		_ = buf.Apply(&keys) // it applied once already
		if retry {
			s.hot.failed(&keys, t)
			wrote = keys.list()
		}
		s.hot.wrote(&keys)
	}
	switch {
	case err == nil && fnErr != nil:
		return false, nil, fnErr
	case err == nil:
		if wroteAny {
			s.stats.commits.Add(1)
			if lazy {
				s.stats.async.Add(1)
			}
		}
		return false, nil, nil
	}
	t.end()
	return retry, wrote, s.failure(ctx, err)
}

// acquire takes a connection from the pool.
func (s *Store) acquire(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, s.failure(ctx, err)
	}
	return conn, nil
}

// backoff waits a random time that grows with attempt.
func backoff(ctx context.Context, attempt int) error {
	limit := minBackoff << min(attempt, 16)
	if limit > maxBackoff {
		limit = maxBackoff
	}
	d := rand.N(limit) + minBackoff/2
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// Close waits for the calls under way, stops the committer and closes the
// pool if Open created it. Calls after Close return store.ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	s.closed = true
	s.mu.Unlock()
	s.inflight.Wait()
	if s.quit != nil {
		close(s.quit)
		<-s.stopped
	}
	if s.ownPool {
		s.pool.Close()
	}
	return nil
}

// runFn runs fn, catching a panic so that the transaction can be ended
// before the panic goes on.
func runFn(fn func(store.Tx) error, tx store.Tx) (err error, p any) {
	defer func() {
		if v := recover(); v != nil {
			p = v
		}
	}()
	return fn(tx), nil
}
