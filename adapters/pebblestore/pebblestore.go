package pebblestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

// Server defaults; docs/decisions.md ("Pebble store") says why.
const (
	// DefaultCacheSize is the block cache: 128 MiB.
	DefaultCacheSize = 128 << 20
	// DefaultMemTableSize is the memtable: 64 MiB.
	DefaultMemTableSize = 64 << 20
	// DefaultMaxBatch caps the updates that share one commit.
	DefaultMaxBatch = 1000
)

// memTablesHeld is how many memtables pebble may hold (the one written and
// those waiting for their flush) before it stalls writes.
const memTablesHeld = 2

// maxBatchBytes closes a batch to more updates once its pebble batch holds
// this much, far below pebble's 4 GiB limit on one batch.
const maxBatchBytes = 256 << 20

var (
	// ErrLocked is returned by Open when the directory is in use by another
	// process, or by another Store of this one.
	ErrLocked = errors.New("pebblestore: directory locked by another process or store")
	// ErrFailed is wrapped by the error of a commit that failed, and by every
	// later Update's, together with the failure's cause: once a commit has
	// failed the store refuses updates until it is closed and reopened (see
	// the package documentation). Views go on reading the last durable state.
	ErrFailed = errors.New("pebblestore: a commit failed; close and reopen the store")
)

// Options configure a Store. The zero value (or nil) is the server default:
// fsync on, a 128 MiB block cache, 64 MiB memtables, batches of up to 1000
// updates. The store's memory is about CacheSize + 2 × MemTableSize
// (256 MiB by default).
type Options struct {
	// NoSync commits without waiting for fsync: faster, and a crash can lose
	// the last commits. Only for tests and throwaway data.
	NoSync bool
	// CacheSize is the block cache in bytes (default DefaultCacheSize),
	// beside the memtables.
	CacheSize int64
	// MemTableSize is the memtable in bytes (default DefaultMemTableSize).
	// Up to two are held, the one written and one being flushed; writes
	// stall while both are full.
	MemTableSize int64
	// MaxBatch caps how many updates share one commit (default
	// DefaultMaxBatch).
	MaxBatch int

	fs vfs.FS // tests only (export_test.go); nil is the operating system's
}

// Store is a store.Store over one pebble database directory.
type Store struct {
	db       *pebble.DB
	lock     *pebble.Lock
	cache    *pebble.Cache
	dir      string
	noSync   bool
	maxBatch int

	mu      sync.RWMutex // guards closed, sends on reqs and active.Add
	closed  bool
	reqs    chan *request
	stopped chan struct{} // closed when the committer and syncer have ended
	active  sync.WaitGroup

	pubMu sync.RWMutex
	pub   *published // the last durable state, which Views read

	failure    atomic.Pointer[failure] // the earliest commit that failed
	failedCh   chan struct{}           // closed at the first failure
	failedOnce sync.Once

	latest *latestValues // the committer's alone
	views  viewMemory    // what Views read, across snapshots

	// commitHook, set only by tests before the first Update, runs in the
	// syncer after a batch is durable; an error fails the batch as a failed
	// fsync would.
	commitHook func(seq int64, updates int) error
}

var (
	_ store.Store = (*Store)(nil)
	_ store.Lazy  = (*Store)(nil)
)

// published is a snapshot of durable state, released when the last View
// reading it ends after a newer one was published.
type published struct {
	snap *pebble.Snapshot
	refs atomic.Int64
	// values are the Gets of this snapshot's Views, shared by them: a
	// snapshot never changes, so nothing invalidates them. Views read the
	// same few keys in request after request (an API key, its
	// organization, settings), and the snapshot changes once a batch.
	values  sync.Map // pebble key (string) -> knownValue
	entries atomic.Int64
	seq     int64 // the last batch in snap; 0 for the state at Open
}

// maxSnapValues bounds the Gets a snapshot remembers.
const maxSnapValues = 1024

func (p *published) release() {
	if p.refs.Add(-1) == 0 {
		_ = p.snap.Close() // fails only on a double close, which refs rules out
	}
}

type request struct {
	ctx   context.Context
	fn    func(store.Tx) error
	err   error
	panic any
	ran   bool // fn ran (not skipped for ctx or a failed store)
	ok    bool // fn returned nil and its writes are in the batch
	// lazy is an UpdateLazy: answered once its function has run, before
	// its batch is durable.
	lazy bool
	done chan struct{}
}

var requestPool = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

// batch is a group of updates whose writes commit in one pebble batch.
type batch struct {
	seq  int64
	reqs []*request // those answered when the batch settles
	// lazy counts the UpdateLazys of the batch, answered as they ran.
	lazy int
	pb   *pebble.Batch // indexed: later updates read earlier ones' writes
	r    updateReader  // over pb
	key  []byte        // scratch of batchWriter
	// err fails the batch: its own commit failed, or it was built on a
	// store that had failed (then builtOnFailure).
	err            error
	builtOnFailure bool
	applied        bool
	snap           *pebble.Snapshot // the state with this batch, taken at apply
	// applyDone is closed once the applier has applied the batch to the
	// database, or given up on it.
	applyDone chan struct{}
}

// Open opens (creating when needed) the pebble database in dir.
func Open(dir string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.CacheSize < 0, o.MemTableSize < 0, o.MaxBatch < 0:
		return nil, fmt.Errorf("pebblestore: negative option in %+v", o)
	case o.MemTableSize >= 4<<30:
		return nil, fmt.Errorf("pebblestore: MemTableSize %d is not below 4 GiB", o.MemTableSize)
	}
	if o.CacheSize == 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = DefaultMemTableSize
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	fs := o.fs
	if fs == nil {
		fs = vfs.Default
	}
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pebblestore: open %s: %w", dir, err)
	}
	// Take the directory's lock first, so that a lock held elsewhere gives
	// its own error rather than one of pebble's.
	lock, err := pebble.LockDirectory(dir, fs)
	if err != nil {
		var pathErr *iofs.PathError
		if errors.As(err, &pathErr) { // the LOCK file could not be created
			return nil, fmt.Errorf("pebblestore: open %s: %w", dir, err)
		}
		return nil, fmt.Errorf("pebblestore: open %s: %w (%v)", dir, ErrLocked, err)
	}
	// pebble reserves its memtables' memory out of the block cache: with
	// a cache no larger than the memtables, a flush leaves the cache no
	// room at all and every read goes to the files. CacheSize is the block
	// cache proper; the memtables come on top.
	cache := pebble.NewCache(o.CacheSize + memTablesHeld*o.MemTableSize)
	popts := &pebble.Options{
		FS:                          fs,
		Lock:                        lock,
		Cache:                       cache,
		MemTableSize:                uint64(o.MemTableSize),
		MemTableStopWritesThreshold: memTablesHeld,
		// Pinned rather than FormatNewest, so that upgrading pebble never
		// moves the files to a format an older build cannot read. It
		// includes WAL sync chunks, which tell a torn WAL tail after a
		// crash from corruption of synced data.
		FormatMajorVersion: pebble.FormatTableFormatV6,
		Logger:             quietLogger{},
	}
	// Bloom filters of 10 bits a key (1% false positives) on every level:
	// a Get of a missing key (a new idempotency key, a new id) then reads
	// a filter block per table instead of an index and a data block.
	popts.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	db, err := pebble.Open(dir, popts)
	if err != nil {
		cache.Unref()
		_ = lock.Close()
		return nil, fmt.Errorf("pebblestore: open %s: %w", dir, err)
	}
	fail := func(err error) (*Store, error) {
		_ = db.Close()
		cache.Unref()
		_ = lock.Close()
		return nil, fmt.Errorf("pebblestore: open %s: %w", dir, err)
	}
	v, closer, err := db.Get(formatKey)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		if err := db.Set(formatKey, []byte(formatVersion), pebble.Sync); err != nil {
			return fail(err)
		}
	case err != nil:
		return fail(err)
	default:
		got := string(v)
		_ = closer.Close()
		if got != formatVersion {
			return fail(fmt.Errorf("layout %q, this build reads %q", got, formatVersion))
		}
	}
	s := &Store{
		db:       db,
		lock:     lock,
		cache:    cache,
		dir:      dir,
		noSync:   o.NoSync,
		maxBatch: o.MaxBatch,
		reqs:     make(chan *request, o.MaxBatch),
		latest:   newLatestValues(generationBytes),
		failedCh: make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	s.pub = &published{snap: db.NewSnapshot()}
	s.pub.refs.Store(1)
	go s.commitLoop()
	return s, nil
}

// Dir returns the directory the store uses.
func (s *Store) Dir() string { return s.dir }

// enter counts a View or Checkpoint in, unless the store is closed.
func (s *Store) enter() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return false
	}
	s.active.Add(1)
	return true
}

func (s *Store) acquire() *published {
	s.pubMu.RLock()
	p := s.pub
	p.refs.Add(1)
	s.pubMu.RUnlock()
	return p
}

func (s *Store) publish(snap *pebble.Snapshot, seq int64) {
	p := &published{snap: snap, seq: seq}
	p.refs.Store(1)
	s.pubMu.Lock()
	old := s.pub
	s.pub = p
	s.pubMu.Unlock()
	old.release()
}

// failure is a commit that failed: the batch, and its error.
type failure struct {
	seq int64
	err error
}

// failed returns the store's failure, or nil.
func (s *Store) failed() error {
	if f := s.failure.Load(); f != nil {
		return f.err
	}
	return nil
}

// Err returns the failure that stopped the store taking updates (wrapping
// ErrFailed), or nil while it takes them.
func (s *Store) Err() error { return s.failed() }

// Failed returns a channel closed when a commit fails and the store stops
// taking updates: a server watches it to restart, since only closing and
// reopening the store goes on (see the package documentation).
func (s *Store) Failed() <-chan struct{} { return s.failedCh }

// failedBefore returns the failure of a batch before seq, or nil.
func (s *Store) failedBefore(seq int64) error {
	if f := s.failure.Load(); f != nil && f.seq < seq {
		return f.err
	}
	return nil
}

// View runs fn over the state of the last durable commit. It never waits
// for writers.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !s.enter() {
		return store.ErrClosed
	}
	defer s.active.Done()
	p := s.acquire()
	defer p.release()
	return fn(&viewTx{reader: reader{r: p.snap}, pub: p, mem: &s.views})
}

// Update runs fn as part of the next group commit and returns once that
// commit is durable (or has failed).
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, fn, false)
}

// UpdateLazy runs fn as part of the next group commit, as Update does, and
// returns as soon as fn has run and its writes are in the open batch,
// without waiting for the batch to be applied and synced (store.Lazy).
// The committer runs one function at a time over the writes of all those
// before it, so a lazy commit is serializable with every other; the
// Updates that run after it read its writes from the batch or the
// remembered latest values, and Views once the batch is durable. Its
// writes are in the WAL before those of every later batch, so a durable
// commit that read them makes them durable too. A crash before its batch
// is durable loses it, and so does the failure of its batch (which stops
// the store, see ErrFailed) or a batch that could not be built: its
// caller has been answered already and is not told.
func (s *Store) UpdateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, fn, true)
}

func (s *Store) update(ctx context.Context, fn func(store.Tx) error, lazy bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := requestPool.Get().(*request)
	r.ctx, r.fn, r.err, r.panic, r.ran, r.ok, r.lazy = ctx, fn, nil, nil, false, false, lazy
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		requestPool.Put(r)
		return store.ErrClosed
	}
	if err := s.failed(); err != nil {
		s.mu.RUnlock()
		requestPool.Put(r)
		return err
	}
	s.reqs <- r
	s.mu.RUnlock()
	<-r.done // once queued, wait for the outcome: the update may commit
	err, p := r.err, r.panic
	r.ctx, r.fn = nil, nil
	requestPool.Put(r)
	if p != nil {
		panic(p)
	}
	return err
}

// commitLoop is the committer. It runs each batch's functions, one after
// another, over an indexed batch on the database, with the latest values
// it remembers (latestValues) in front. Updates that arrive meanwhile run
// into the same open batch. When the applier is free, the committer hands
// the batch over and opens the next at once. The applier applies the
// batch to the database and takes a snapshot of the state with it; the
// syncer waits for its fsync, publishes the snapshot to Views and answers
// the batch's callers. The applier takes a batch only while fewer than
// maxInFlight are applied and not yet settled.
//
// While the applier applies a batch, the next one's functions may already
// run. What they read is still exact: every key the unapplied batch wrote
// is among the remembered values, which the committer reads first, and a
// key it did not write has the same value in the database before and
// after; a Scan, which reads ranges, waits until the batch before is
// applied.
func (s *Store) commitLoop() {
	toApplier := make(chan *batch)  // unbuffered: the applier takes one batch at a time
	ready := make(chan struct{}, 1) // the applier waits for the next batch
	applierDone := make(chan struct{})
	go s.applyLoop(toApplier, ready, applierDone)
	defer func() {
		close(toApplier)
		<-applierDone
		close(s.stopped)
	}()

	var seq int64
	var buf txbuf.Tx
	var prev *batch
	for {
		r, ok := <-s.reqs
		if !ok {
			return
		}
		seq++
		// Only between batches: the remembered values of the previous
		// batch, perhaps not yet applied, must stay (latestValues.turn).
		s.latest.turn()
		b := &batch{seq: seq, pb: s.db.NewIndexedBatch(), applyDone: make(chan struct{})}
		b.r = updateReader{reader: reader{r: b.pb}, latest: s.latest, pb: b.pb, prev: prev}
		s.execute(b, r, &buf)
		applierFree := false
	grow:
		for !s.full(b) {
			// The applier first: once the batch before has settled, the
			// applier takes this one as it is, and the updates waiting
			// start the next one.
			select {
			case <-ready:
				applierFree = true
				break grow
			default:
			}
			select {
			case <-ready:
				applierFree = true
				break grow
			case r, ok := <-s.reqs:
				if !ok {
					break grow // commit what is open; the next receive ends the loop
				}
				s.execute(b, r, &buf)
			}
		}
		buf.Reset(nil) // drops the last update's references
		if !applierFree {
			<-ready
		}
		if err := b.r.close(); err != nil && b.err == nil {
			s.abandon(b, err)
		}
		toApplier <- b
		prev = b
	}
}

func (s *Store) full(b *batch) bool {
	return len(b.reqs)+b.lazy >= s.maxBatch || b.pb.Len() >= maxBatchBytes
}

// execute adds r to the open batch b and runs its function over its own
// write buffer on b. A function that fails or panics leaves only its own
// buffer behind; one that returns nil has its writes applied to b, where
// the next functions read them. A lazy r is answered at once; the others
// when b settles.
func (s *Store) execute(b *batch, r *request, buf *txbuf.Tx) {
	s.run(b, r, buf)
	if r.lazy {
		b.lazy++
		r.done <- struct{}{} // its caller may reuse r now: b keeps no reference
		return
	}
	b.reqs = append(b.reqs, r)
}

// run runs r's function into the open batch b, unless the store has
// failed, b cannot commit or r's context has ended.
func (s *Store) run(b *batch, r *request, buf *txbuf.Tx) {
	if err := s.failed(); err != nil { // the latest state holds writes that never became durable
		r.err = err
		return
	}
	if b.err != nil {
		r.err = b.err
		return
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return
	}
	r.ran = true
	buf.Reset(&b.r)
	r.err, r.panic = runFn(r.fn, buf)
	if r.err != nil || r.panic != nil || buf.Len() == 0 {
		r.ok = r.err == nil && r.panic == nil
		return
	}
	if err := applyBuf(buf, batchWriter{pb: b.pb, key: &b.key, latest: s.latest}); err != nil {
		// b may hold part of this update: none of it may commit.
		s.abandon(b, err)
		return
	}
	r.ok = true
}

// abandon fails the open batch b, which could not be built: none of its
// writes reach the database, so the latest values remembered from them go,
// once the previous batch is in the database, where they are read next.
func (s *Store) abandon(b *batch, err error) {
	b.err = fmt.Errorf("pebblestore: building the batch: %w", err)
	b.r.waitPrev()
	s.latest.forget()
}

// applyBuf writes buf to the pebble batch, turning pebble's panic on an
// oversized batch into an error.
func applyBuf(buf *txbuf.Tx, w batchWriter) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("pebble: %v", v)
		}
	}()
	return buf.Apply(w)
}

func runFn(fn func(store.Tx) error, tx store.Tx) (err error, p any) {
	defer func() {
		if v := recover(); v != nil {
			p = v
		}
	}()
	return fn(tx), nil
}

// apply applies b to the database; only the applier calls it, in batch
// order. Its writes become visible to Views only when the syncer
// publishes b.snap, once they are durable.
func (s *Store) apply(b *batch) {
	if err := s.failed(); err != nil {
		b.err, b.builtOnFailure = err, true
		return
	}
	if b.err != nil || b.pb.Empty() {
		return
	}
	// The indexed batch served the functions' reads; what commits is a
	// copy in key order with one write per key (see compact). A batch
	// that cannot be copied fails the store: the next batch may already
	// have read its writes.
	pb, err := s.compact(b.pb)
	if err != nil {
		b.err = s.fail(b.seq, fmt.Errorf("building the batch: %w", err))
		return
	}
	_ = b.pb.Close()
	b.pb = pb
	// Before the batch is applied, and so long before its snapshot is
	// published (viewMemory).
	s.views.wroteTo(b.seq, batchKeys(pb))
	if s.noSync {
		err = s.db.Apply(b.pb, pebble.NoSync)
	} else {
		// Returns once the batch is in the WAL's buffer and the memtable;
		// the syncer waits for its fsync.
		err = s.db.ApplyNoSyncWait(b.pb, pebble.Sync)
	}
	if err != nil {
		b.err = s.fail(b.seq, err)
		return
	}
	b.applied = true
	// Only the applier applies batches, so the snapshot holds exactly the
	// batches up to b.
	b.snap = s.db.NewSnapshot()
}

// compact returns a batch with the final write of each key of pb, in key
// order. Intermediate writes (a balance every update of the batch
// changed) are never visible: Views read snapshots between batches, and
// the batch is one WAL record, durable whole or not at all. The memtable
// inserts a batch in its order, each insert starting its skiplist search
// where the last one ended; sorted, the search is shorter, which is most
// of the committer's time (docs/performance.md).
func (s *Store) compact(pb *pebble.Batch) (*pebble.Batch, error) {
	type op struct {
		kind       pebble.InternalKeyKind
		key, value []byte
		pos        int // in pb: of a key's writes, the last is the one that stays
	}
	ops := make([]op, 0, pb.Count())
	r := pb.Reader()
	for {
		kind, key, value, ok, err := r.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		ops = append(ops, op{kind, key, value, len(ops)})
	}
	slices.SortFunc(ops, func(a, b op) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return a.pos - b.pos
	})
	out := s.db.NewBatchWithSize(len(pb.Repr()))
	for i, o := range ops {
		if i+1 < len(ops) && bytes.Equal(o.key, ops[i+1].key) {
			continue // overwritten within the batch
		}
		var err error
		switch o.kind {
		case pebble.InternalKeyKindSet:
			err = out.Set(o.key, o.value, nil)
		case pebble.InternalKeyKindDelete:
			err = out.Delete(o.key, nil)
		default:
			err = fmt.Errorf("unexpected %v in a batch", o.kind)
		}
		if err != nil {
			_ = out.Close()
			return nil, err
		}
	}
	return out, nil
}

// fail records the failure of batch seq with err, unless an earlier batch
// has failed, and returns the batch's error.
func (s *Store) fail(seq int64, err error) error {
	f := &failure{seq: seq, err: fmt.Errorf("%w: commit %d: %w", ErrFailed, seq, err)}
	for {
		old := s.failure.Load()
		if old != nil && old.seq <= seq {
			return f.err
		}
		if s.failure.CompareAndSwap(old, f) {
			s.failedOnce.Do(func() { close(s.failedCh) })
			return f.err
		}
	}
}

// maxInFlight is how many batches may be applied and not yet settled
// (durable or failed). One: pebble panics on a WAL write after a failed
// sync, which the syncer learns of only from SyncWait; with one in flight
// the applier applies a batch only once the batch before has settled, so
// nothing is written after a failed sync, and a batch built on a failed
// one is never applied. Two measured no faster (docs/performance.md).
const maxInFlight = 1

// applyLoop is the applier: it applies each batch the committer hands it
// and passes it to the syncer. Before each batch it waits until fewer than
// maxInFlight batches are applied and not yet answered, then says on ready
// that it is free.
func (s *Store) applyLoop(in <-chan *batch, ready chan<- struct{}, done chan<- struct{}) {
	defer close(done)
	toSyncer := make(chan *batch, maxInFlight)
	slots := make(chan struct{}, maxInFlight)
	syncerDone := make(chan struct{})
	go s.syncLoop(toSyncer, slots, syncerDone)
	defer func() {
		close(toSyncer)
		<-syncerDone
	}()
	for {
		slots <- struct{}{}
		ready <- struct{}{} // buffered: the committer takes it when it has a batch
		b, ok := <-in
		if !ok {
			return
		}
		s.apply(b)
		close(b.applyDone)
		toSyncer <- b
	}
}

// syncLoop is the syncer: in batch order, it waits for each applied batch
// to be durable, publishes its snapshot to Views, answers its callers and
// frees its slot.
func (s *Store) syncLoop(in <-chan *batch, slots <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for b := range in {
		s.settle(b)
		<-slots
	}
}

// settle waits for b to be durable, publishes it and answers its callers.
func (s *Store) settle(b *batch) {
	if b.applied {
		var err error
		if !s.noSync {
			err = b.pb.SyncWait()
		}
		if err == nil && s.commitHook != nil {
			err = s.commitHook(b.seq, len(b.reqs))
		}
		switch prior := s.failedBefore(b.seq); {
		case prior != nil:
			// A batch before b failed after b was built on its writes.
			b.err, b.builtOnFailure = prior, true
			_ = b.snap.Close()
		case err != nil:
			b.err = s.fail(b.seq, err)
			_ = b.snap.Close()
		default:
			s.publish(b.snap, b.seq) // before any caller hears of it
		}
	}
	_ = b.pb.Close()
	for _, r := range b.reqs {
		switch {
		case b.builtOnFailure && r.ran && r.panic == nil:
			// fn read writes that never became durable: even its own
			// error may be wrong.
			r.err = b.err
		case r.ok && b.err != nil:
			r.err = b.err
		}
		r.done <- struct{}{}
	}
}

// Checkpoint writes a consistent copy of the database to dir, which must
// not exist, while the store stays in use: sstables are hard-linked when
// dir is on the same filesystem, the WAL and MANIFEST copied. Open(dir)
// opens the copy. It holds every update acknowledged before Checkpoint was
// called, and possibly some that became durable while it ran; never part
// of one.
func (s *Store) Checkpoint(dir string) error {
	if !s.enter() {
		return store.ErrClosed
	}
	defer s.active.Done()
	if err := s.failed(); err != nil {
		return err
	}
	var opts []pebble.CheckpointOption
	if s.noSync {
		// Acknowledged commits may still be only in the WAL's buffer.
		opts = append(opts, pebble.WithFlushedWAL())
	}
	if err := s.db.Checkpoint(dir, opts...); err != nil {
		return fmt.Errorf("pebblestore: checkpoint %s: %w", dir, err)
	}
	return nil
}

// Close commits the updates already queued, waits for running Views and
// Checkpoints, flushes the memtable to an sstable (unless a commit failed:
// its writes must not become durable now) and closes the database. Later
// calls return store.ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	s.closed = true
	close(s.reqs)
	s.mu.Unlock()
	<-s.stopped
	s.active.Wait()
	s.pubMu.Lock()
	p := s.pub
	s.pub = nil
	s.pubMu.Unlock()
	p.release()

	var err error
	if s.failed() == nil {
		if ferr := s.db.Flush(); ferr != nil {
			err = fmt.Errorf("pebblestore: flush: %w", ferr)
		}
	}
	if cerr := s.db.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("pebblestore: close: %w", cerr))
	}
	s.cache.Unref()
	if lerr := s.lock.Close(); lerr != nil {
		err = errors.Join(err, fmt.Errorf("pebblestore: unlock: %w", lerr))
	}
	return err
}

// quietLogger drops pebble's informational messages and keeps its errors
// on the standard logger. Fatalf keeps pebble's contract: it does not
// return.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	pebble.DefaultLogger.Errorf("pebblestore: "+format, args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	pebble.DefaultLogger.Fatalf("pebblestore: "+format, args...)
}
