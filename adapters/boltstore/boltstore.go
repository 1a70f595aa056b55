package boltstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

// CommitMode selects how concurrent updates share a commit.
type CommitMode int

const (
	// CommitPipelined batches every waiting update into the next commit,
	// which starts as soon as the previous one ends.
	CommitPipelined CommitMode = iota
	// CommitBoltBatch uses bbolt's DB.Batch (MaxBatchDelay, MaxBatchSize).
	CommitBoltBatch
)

// Options configure a Store. The zero value (or nil) is the safe default:
// fsync on, pipelined group commit, batches of up to 1000 updates.
type Options struct {
	// NoSync skips fsync on commit: faster, and a crash can lose the last
	// commits. Only for tests and throwaway data.
	NoSync bool
	// Mode selects the group-commit strategy.
	Mode CommitMode
	// MaxBatch caps how many updates share one commit (default 1000).
	MaxBatch int
	// MaxBatchDelay is bbolt's batch delay in CommitBoltBatch mode (default
	// bbolt's 10ms).
	MaxBatchDelay time.Duration
	// OpenTimeout bounds the wait for the file lock held by another process
	// (default 1s).
	OpenTimeout time.Duration
	// FillPercent is how full bbolt fills a page when it splits one in a
	// bucket that the commit only appended to (every key it writes there
	// sorts after the bucket's last key), from 0.1 to 1 (default 0.9).
	// Most of the engine's keys are appended in time order (ids are
	// UUIDv7, indexes lead with a time), and bbolt's half-full pages would
	// double the pages such a commit writes. A bucket written anywhere else
	// (client-chosen idempotency keys, updates) keeps bbolt's 0.5, which
	// leaves room for the next random insert without a split.
	FillPercent float64
}

// The range bbolt accepts for a bucket's FillPercent.
const minFillPercent, maxFillPercent = 0.1, 1.0

// Store is a store.Store over one bbolt file.
type Store struct {
	db       *bolt.DB
	mode     CommitMode
	maxBatch int
	fill     float64 // Options.FillPercent

	mu      sync.RWMutex // guards closed and sends on reqs
	closed  bool
	reqs    chan *request
	stopped chan struct{}
	// lastFailed is the seq of the last batch whose commit failed.
	lastFailed atomic.Int64
	// failCommit, set only by tests, fails a batch's commit.
	failCommit func(seq int64) error
}

var (
	_ store.Store = (*Store)(nil)
	_ store.Lazy  = (*Store)(nil)
)

type request struct {
	ctx   context.Context
	fn    func(store.Tx) error
	err   error
	panic any
	// lazy is an UpdateLazy: answered once its function has run into the
	// open batch, before the batch commits.
	lazy bool
	done chan struct{}
}

var requestPool = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

// Open opens (creating when needed) the bbolt file at path.
func Open(path string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 1000
	}
	if o.OpenTimeout <= 0 {
		o.OpenTimeout = time.Second
	}
	if o.FillPercent == 0 {
		o.FillPercent = 0.9
	}
	if o.FillPercent < minFillPercent || o.FillPercent > maxFillPercent {
		return nil, fmt.Errorf("boltstore: FillPercent %v is outside %v to %v", o.FillPercent, minFillPercent, maxFillPercent)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:      o.OpenTimeout,
		NoSync:       o.NoSync,
		FreelistType: bolt.FreelistMapType,
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	if o.MaxBatchDelay > 0 {
		db.MaxBatchDelay = o.MaxBatchDelay
	}
	db.MaxBatchSize = o.MaxBatch
	s := &Store{db: db, mode: o.Mode, maxBatch: o.MaxBatch, fill: o.FillPercent}
	if s.mode == CommitPipelined {
		s.reqs = make(chan *request, o.MaxBatch)
		s.stopped = make(chan struct{})
		go s.commitLoop()
	}
	return s, nil
}

// View runs fn in a bbolt read transaction.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return store.ErrClosed
	}
	return translate(s.db.View(func(btx *bolt.Tx) error { return fn(readTx{btx}) }))
}

// Update runs fn as part of the next group commit.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, fn, false)
}

// UpdateLazy runs fn as part of the next group commit, as Update does, and
// returns as soon as fn has run and its writes are in the open batch
// (store.Lazy): the batch still commits with its fsync, which UpdateLazy
// does not wait for. bbolt cannot skip the fsync of one commit safely
// (without it, a crash may leave the meta page pointing to pages never
// written, a corrupt file rather than a lost commit), so a lazy commit
// spares its caller the wait only. The executor runs one function at a
// time over the writes of those before it, so a lazy commit is
// serializable with every other; the updates after it read its writes
// from the batch, and Views once the batch has committed. Batches commit
// in order, so a durable commit that read its writes makes them durable
// too. A crash before its batch commits loses it, and so does the failure
// of that commit, which its caller is not told of. In CommitBoltBatch
// mode it is Update.
func (s *Store) UpdateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, fn, true)
}

func (s *Store) update(ctx context.Context, fn func(store.Tx) error, lazy bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.mode == CommitBoltBatch {
		return s.updateBoltBatch(ctx, fn)
	}
	r := requestPool.Get().(*request)
	r.ctx, r.fn, r.err, r.panic, r.lazy = ctx, fn, nil, nil, lazy
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		requestPool.Put(r)
		return store.ErrClosed
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

func (s *Store) updateBoltBatch(ctx context.Context, fn func(store.Tx) error) error {
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return store.ErrClosed
	}
	// fn's own error is carried out of band: its writes were never applied,
	// so the rest of bbolt's batch need not be rolled back and re-run.
	var fnErr error
	err := s.db.Batch(func(btx *bolt.Tx) error {
		buf := txbuf.New(readTx{btx})
		fnErr = fn(buf)
		if fnErr != nil {
			return nil
		}
		return buf.Apply(&writeTx{tx: btx, fill: s.fill})
	})
	if err != nil {
		return translate(err)
	}
	return fnErr
}

// batch is a group of updates whose writes commit together. The executor
// runs their functions; the writer commits the merged writes and answers.
type batch struct {
	seq  int64
	reqs []*request
	// ok marks the requests whose fn succeeded; their writes are in writes.
	ok     []bool
	writes *txbuf.Tx
	// builtOn is the seq of the batch whose uncommitted writes the
	// functions saw (0: only committed data). If that batch fails, this
	// one fails too: its functions read state that never existed.
	builtOn int64
}

// commitLoop is the executor. It runs each batch's functions over a read
// transaction of the committed data plus the previous batch's writes, while
// the writer commits that previous batch: running the next batch overlaps
// the flush of the last one. While the writer is still busy, updates that
// arrive meanwhile are run into the same open batch, so a slow flush makes
// the next commit larger rather than leaving it to wait with a few; the
// writer takes the open batch the moment it is free. No caller is answered
// before its batch is durable, and batches commit in order, so every caller
// still sees a serial history.
func (s *Store) commitLoop() {
	toWriter := make(chan *batch)   // unbuffered: at most one batch committing
	ready := make(chan struct{}, 1) // the writer waits for the next batch
	writerDone := make(chan struct{})
	go s.writeLoop(toWriter, ready, writerDone)
	defer func() {
		close(toWriter)
		<-writerDone
		close(s.stopped)
	}()

	var prev *batch // the batch handed to the writer last, if its writes may be unseen
	var seq int64
	for {
		r, ok := <-s.reqs
		if !ok {
			return
		}
		seq++
		b := &batch{seq: seq, writes: txbuf.New(nil)}
		if prev != nil {
			b.builtOn = prev.seq
		}
		s.execute(b, prev, r)
		writerFree := false
	grow:
		for len(b.reqs) < s.maxBatch {
			select {
			case <-ready:
				writerFree = true
				break grow
			case r, ok := <-s.reqs:
				if !ok {
					break grow // hand over what is open; the next receive ends the loop
				}
				s.execute(b, prev, r)
			}
		}
		if !writerFree {
			<-ready
		}
		toWriter <- b
		prev = b
		if b.builtOn != 0 && s.lastFailed.Load() >= b.builtOn {
			prev = nil // b will fail with its base: build the next on committed data
		}
		if b.writes.Len() == 0 && prev == b {
			prev = nil
		}
	}
}

// execute adds first, and the updates queued behind it (up to the batch
// limit), to the open batch b, running each function in order over the
// writes of those before it in b, over prev's writes, over the committed
// data. The read transaction lasts only as long as this run: a bbolt commit
// that grows the file waits for every read transaction to end.
func (s *Store) execute(b *batch, prev *batch, first *request) {
	start := len(b.reqs)
	b.reqs = append(b.reqs, first)
drain:
	for len(b.reqs) < s.maxBatch {
		select {
		case r, ok := <-s.reqs:
			if !ok {
				break drain
			}
			b.reqs = append(b.reqs, r)
		default:
			break drain
		}
	}
	b.ok = append(b.ok, make([]bool, len(b.reqs)-start)...)
	// The lazy requests are answered once they have run, and leave b:
	// their callers may reuse them.
	defer func() {
		for i := start; i < len(b.reqs); i++ {
			if r := b.reqs[i]; r.lazy {
				b.reqs[i] = nil
				r.done <- struct{}{}
			}
		}
	}()
	rtx, err := s.db.Begin(false)
	if err != nil {
		for _, r := range b.reqs[start:] {
			r.err = translate(err)
		}
		return
	}
	defer rtx.Rollback()
	var base txbuf.Reader = readTx{rtx}
	if prev != nil {
		prev.writes.Rebase(base)
		base = prev.writes
	}
	b.writes.Rebase(base)
	var buf txbuf.Tx
	for i := start; i < len(b.reqs); i++ {
		r := b.reqs[i]
		if err := r.ctx.Err(); err != nil {
			r.err, r.panic = err, nil
			continue
		}
		buf.Reset(b.writes)
		r.err, r.panic = runFn(r.fn, &buf)
		if r.err != nil || r.panic != nil {
			continue
		}
		b.writes.Merge(&buf)
		b.ok[i] = true
	}
	buf.Reset(nil)
	if prev != nil {
		prev.writes.Rebase(nil) // rtx ends here
	}
	b.writes.Rebase(nil)
}

// writeLoop commits batches in order and answers their callers.
// Before each batch it says on ready that it is free.
func (s *Store) writeLoop(in <-chan *batch, ready chan<- struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		ready <- struct{}{} // buffered: the executor takes it when it has a batch
		b, ok := <-in
		if !ok {
			return
		}
		var err error
		if b.builtOn != 0 && s.lastFailed.Load() == b.builtOn {
			err = fmt.Errorf("boltstore: the commit this update read from failed")
		} else if b.writes.Len() > 0 {
			err = translate(s.db.Update(func(btx *bolt.Tx) error {
				if err := b.writes.Apply(&writeTx{tx: btx, fill: s.fill}); err != nil {
					return err
				}
				if s.failCommit != nil {
					return s.failCommit(b.seq)
				}
				return nil
			}))
		}
		if err != nil {
			s.lastFailed.Store(b.seq)
		}
		for i, r := range b.reqs {
			if r == nil {
				continue // lazy, answered when it ran
			}
			if b.ok[i] && err != nil {
				r.err = err
			}
			r.done <- struct{}{}
		}
	}
}

func runFn(fn func(store.Tx) error, tx store.Tx) (err error, p any) {
	defer func() {
		if v := recover(); v != nil {
			p = v
		}
	}()
	return fn(tx), nil
}

// Close stops the committer after the queued updates and closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	s.closed = true
	if s.reqs != nil {
		close(s.reqs)
	}
	s.mu.Unlock()
	if s.stopped != nil {
		<-s.stopped
	}
	return s.db.Close()
}

// Path returns the file the store uses.
func (s *Store) Path() string { return s.db.Path() }

func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return store.ErrClosed
	case errors.Is(err, berrors.ErrKeyRequired), errors.Is(err, berrors.ErrKeyTooLarge),
		errors.Is(err, berrors.ErrBucketNameRequired), errors.Is(err, berrors.ErrIncompatibleValue):
		return fmt.Errorf("%w: %v", store.ErrInvalidKey, err)
	case errors.Is(err, berrors.ErrValueTooLarge):
		return fmt.Errorf("%w: %v", store.ErrValueTooLarge, err)
	}
	return err
}

type readTx struct{ tx *bolt.Tx }

func (r readTx) Get(bucket, key []byte) ([]byte, error) {
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	b := r.tx.Bucket(bucket)
	if b == nil {
		return nil, store.ErrNotFound
	}
	v := b.Get(key)
	if v == nil {
		return nil, store.ErrNotFound
	}
	return bytes.Clone(v), nil
}

func (readTx) Put(_, _, _ []byte) error { return store.ErrReadOnly }
func (readTx) Delete(_, _ []byte) error { return store.ErrReadOnly }

func (r readTx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	b := r.tx.Bucket(bucket)
	if b == nil {
		return nil
	}
	lower, upper := opt.Lower(), opt.Upper()
	c := b.Cursor()
	var k, v []byte
	step := c.Next
	if opt.Reverse {
		step = c.Prev
		if upper == nil {
			k, v = c.Last()
		} else if k, v = c.Seek(upper); k == nil {
			k, v = c.Last()
		} else if bytes.Compare(k, upper) >= 0 {
			k, v = c.Prev()
		}
	} else if lower == nil {
		k, v = c.First()
	} else {
		k, v = c.Seek(lower)
	}
	for ; k != nil; k, v = step() {
		if opt.Reverse && lower != nil && bytes.Compare(k, lower) < 0 {
			return nil
		}
		if !opt.Reverse && upper != nil && bytes.Compare(k, upper) >= 0 {
			return nil
		}
		if v == nil || !opt.InRange(k) {
			continue // nested bucket (never created by this adapter)
		}
		more, err := fn(bytes.Clone(k), bytes.Clone(v))
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// writeTx applies a buffer to a bbolt transaction. Apply groups writes by
// bucket, so the last bucket is kept instead of looked up for every key.
type writeTx struct {
	tx   *bolt.Tx
	fill float64 // FillPercent for buckets only appended to
	name []byte
	b    *bolt.Bucket
}

// bucket returns the named bucket. key is the first key this transaction
// writes there (Apply sorts each bucket's writes by key): when it sorts
// after the bucket's last key, every write is an append and the bucket
// splits its pages at w.fill.
func (w *writeTx) bucket(name, key []byte, create bool) (*bolt.Bucket, error) {
	if w.b != nil && bytes.Equal(w.name, name) {
		return w.b, nil
	}
	var b *bolt.Bucket
	if create {
		var err error
		if b, err = w.tx.CreateBucketIfNotExists(name); err != nil {
			return nil, err
		}
	} else if b = w.tx.Bucket(name); b == nil {
		return nil, nil
	}
	b.FillPercent = bolt.DefaultFillPercent
	if last, _ := b.Cursor().Last(); last == nil || bytes.Compare(key, last) > 0 {
		b.FillPercent = w.fill
	}
	w.name, w.b = name, b
	return b, nil
}

func (w *writeTx) Put(bucket, key, value []byte) error {
	b, err := w.bucket(bucket, key, true)
	if err != nil {
		return err
	}
	return b.Put(key, value)
}

func (w *writeTx) Delete(bucket, key []byte) error {
	b, err := w.bucket(bucket, key, false)
	if b == nil || err != nil {
		return err
	}
	return b.Delete(key)
}
