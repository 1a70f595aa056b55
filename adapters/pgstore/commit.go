package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

// request is an Update waiting for the committer.
type request struct {
	ctx   context.Context
	fn    func(store.Tx) error
	err   error
	panic any
	// failures counts the batches whose commit this update was part of
	// and that failed to serialize.
	failures int
	// start is when Update was called: the retry budget runs from it.
	start time.Time
	// state is where the request stands in the batch being run.
	state reqState
	// lazy is an UpdateLazy on a server that commits asynchronously: a
	// batch whose writes are all of such updates does.
	lazy bool
	done chan struct{}
}

type reqState int

const (
	pending  reqState = iota // fn not run yet, or its run was cut short
	written                  // fn returned nil; its writes are in the batch
	fnFailed                 // fn returned an error; valid once the batch commits
	final                    // the outcome is decided (panic, context ended)
)

func (r *request) reset() {
	r.ctx, r.fn, r.err, r.panic, r.failures, r.state, r.start, r.lazy = nil, nil, nil, nil, 0, pending, time.Time{}, false
}

var requestPool = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

// commitLoop is the committer. It takes the updates waiting and runs
// their functions in one SERIALIZABLE transaction, in the order they
// arrived, each over its own write buffer on top of the writes of those
// before it, and commits their writes together. Updates that arrive
// while the functions run join the same transaction, up to MaxBatch.
//
// The functions of a round (the updates taken together) first run at
// once, each on its own goroutine over the transaction's snapshot alone,
// so that their reads share round trips; then, in order, a function
// whose reads an earlier function of the batch wrote runs again over the
// batch's writes (its reads now come from memory), and the others keep
// their outcome. The result is the serial one: every function saw the
// writes of those before it.
//
// A batch locks the hot keys before running any function (see hotSet).
// When it fails to serialize, its updates run again first in the next
// batch, which also locks every key the failed one wrote.
func (s *Store) commitLoop() {
	defer close(s.stopped)
	defer s.workers.stop()
	for {
		if len(s.again) > 0 {
			s.runBatch(nil)
			continue
		}
		select {
		case r := <-s.reqs:
			s.runBatch(r)
		case <-s.quit:
			return
		}
	}
}

// batch is the state of the shared transaction being built.
type batch struct {
	s      *Store
	t      *tx
	shared *txbuf.Tx  // the writes of the functions that succeeded
	base   *runReader // shared's base: the transaction's reads
	keys   writtenSet // the keys in shared, for validation
	buf    txbuf.Tx
}

// runBatch runs the updates of the last batch if it failed to
// serialize, then first (if not nil) and the updates queued behind it as
// one batch, commits, and answers their callers. A batch whose writes
// are all of lazy updates commits asynchronously.
func (s *Store) runBatch(first *request) {
	reqs := s.again
	s.again = nil
	if first != nil {
		reqs = append(reqs, first)
	}
	t := &tx{s: s, ctx: s.bg}
	defer func() {
		t.end()
		t.release()
	}()
	// The hot keys, and every key the last batch wrote if it failed to
	// serialize, are locked before any function runs.
	if relock := s.relock; len(relock) > 0 || !s.hot.empty() {
		s.relock = nil
		conn, err := s.pool.Acquire(s.bg)
		if err == nil {
			t.conn = conn
			t, err = s.lockFirst(t, relock, func() bool { return waiting(reqs) })
		}
		if err != nil {
			for _, r := range reqs {
				r.err = s.failure(r.ctx, err)
				r.done <- struct{}{}
			}
			return
		}
	}
	// The keys the last batches read, every one of them, come first.
	if first := slices.Concat(s.recurring, s.present); len(first) > 0 && waiting(reqs) {
		if t.conn == nil {
			if conn, err := s.pool.Acquire(s.bg); err == nil {
				t.conn = conn
			}
		}
		if t.conn != nil {
			t.prefetch(first)
		}
	}
	s.present = nil
	b := &batch{s: s, t: t, base: &runReader{t: t}}
	b.shared = txbuf.New(b.base)
	t.ids = maps.Clone(s.idBuckets)
	if !s.readAbsent {
		b.base.absent = t.ids
	}
	ran := 0 // reqs[:ran] are run
	for {
		// Take the updates waiting into the same round.
	drain:
		for len(reqs) < s.maxBatch {
			select {
			case r := <-s.reqs:
				reqs = append(reqs, r)
			default:
				break drain
			}
		}
		if len(reqs) == ran {
			break
		}
		round := reqs[ran:]
		if t.conn == nil {
			conn, err := s.pool.Acquire(s.bg)
			if err != nil {
				// The pool is closed or broken: nobody can run.
				for _, r := range round {
					r.err, r.state = s.failure(r.ctx, err), final
				}
				ran = len(reqs)
				break
			}
			t.conn = conn
		}
		b.run(round)
		ran = len(reqs)
		if t.failed() != nil {
			break
		}
		// The updates that arrived meanwhile join the same transaction.
	}
	b.buf.Reset(nil)

	err := t.failed()
	if err == nil && len(b.base.assumed) > 0 {
		s.present = t.existing(b.base.assumed)
		for _, ck := range s.present {
			// Not a bucket of ids, as far as the store knows now.
			bucket, _ := splitCacheKey(ck)
			delete(s.idBuckets, string(bucket))
		}
	}
	if len(s.present) > 0 && t.failed() == nil {
		// A key taken as missing is not: the batch runs again, in a new
		// transaction that reads those first, or, if this batch was such
		// a run already, every key.
		s.readAbsent = s.redoing
		s.redoing = true
		s.stats.redone.Add(1)
		for _, r := range reqs[:ran] {
			if r.state == final {
				r.done <- struct{}{}
				continue
			}
			r.err, r.state = nil, pending
			s.again = append(s.again, r)
		}
		return
	}
	s.readAbsent, s.redoing = false, false
	err = t.failed()
	t.lazy = lazyOnly(reqs[:ran])
	if err == nil && t.conn != nil {
		err = t.commit(b.shared)
	}
	if err == nil && b.shared.Len() > 0 {
		s.stats.commits.Add(1)
		if t.lazy {
			s.stats.async.Add(1)
		}
	}
	retry := isRetryable(err)
	if retry {
		s.stats.retries.Add(1)
		s.relock = b.keys.list()
		s.hot.failed(&b.keys, t)
	}
	if b.shared.Len() > 0 {
		s.hot.wrote(&b.keys)
	}
	s.learnReads(t)
	for _, r := range reqs[:ran] {
		switch {
		case r.state == final:
		case err == nil && r.state == written:
			r.err = nil
			s.stats.batched.Add(1)
		case err == nil: // fnFailed: its error stands
		case retry:
			r.failures++
			if s.retrying(r.failures, r.start) {
				// It runs again first in the next batch.
				r.err, r.state = nil, pending
				s.again = append(s.again, r)
				s.stats.requeued.Add(1)
				continue
			}
			s.stats.conflicts.Add(1)
			r.err = fmt.Errorf("pgstore: gave up after %d attempts in %v: %w", r.failures, time.Since(r.start).Round(time.Millisecond), s.failure(r.ctx, err))
		default:
			r.err = s.failure(r.ctx, err)
		}
		r.done <- struct{}{}
	}
}

// maxRecurring caps the keys a batch reads ahead.
const maxRecurring = 256

// learnReads keeps the keys that t's functions read from the server and
// that the last batch's read too: the next batch reads them ahead, in its
// first round trip (tx.prefetch). They are the keys every update reads
// (an organization, its balance, settings), which one after the other
// would cost a round trip each; the keys of one update's own records
// change from batch to batch.
func (s *Store) learnReads(t *tx) {
	keys := t.readKeys()
	last := s.lastReads
	s.lastReads = make(map[string]struct{}, len(keys))
	s.recurring = s.recurring[:0]
	for _, ck := range keys {
		s.lastReads[ck] = struct{}{}
		if _, ok := last[ck]; ok && len(s.recurring) < maxRecurring {
			s.recurring = append(s.recurring, ck)
		}
	}
}

// waiting reports whether a caller of reqs still waits for its outcome.
func waiting(reqs []*request) bool {
	for _, r := range reqs {
		if r.ctx.Err() == nil {
			return true
		}
	}
	return false
}

// run runs the functions of round: a lone one directly over the batch,
// several at once first (see commitLoop). It returns early if the
// transaction fails; the requests not settled then keep the state
// pending, and the batch fails.
func (b *batch) run(round []*request) {
	live := round[:0:0]
	for _, r := range round {
		if err := r.ctx.Err(); err != nil {
			r.err, r.state = err, final
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	b.s.stats.rounds.Add(1)
	// The keys the updates named on their contexts are read first, all in
	// one round trip; they count for neither way of running the round:
	// either finds them read.
	if ahead := b.namedAhead(live); len(ahead) > 0 {
		b.t.prefetch(ahead)
		if b.t.failed() != nil {
			return
		}
	}
	before := b.t.readsSent()
	defer func() {
		// What the last rounds read from the server per function tells
		// how the next one runs.
		b.s.recentReads = b.s.recentReads*readsDecay + float64(b.t.readsSent()-before)
		b.s.recentFns = b.s.recentFns*readsDecay + float64(len(live))
	}()
	if concurrent := b.s.concurrentRuns(); len(live) == 1 || !concurrent {
		b.base.ahead = concurrent
		for _, r := range live {
			b.runInOrder(r)
			if b.t.failed() != nil {
				return
			}
		}
		return
	}
	specs := make([]fnRun, len(live))
	var wg sync.WaitGroup
	b.t.gatherReads(len(live))
	// The keys of the buckets of ids are taken as missing by these runs
	// too, and read before the commit with the others so taken.
	var absent map[string]bool
	if !b.s.readAbsent {
		b.t.mu.Lock()
		absent = b.t.ids
		b.t.mu.Unlock()
	}
	for i, r := range live {
		sp := &specs[i]
		sp.rd = &runReader{t: b.t, check: r.ctx.Err, record: true, ahead: true, absent: absent}
		sp.buf = txbuf.New(sp.rd)
		sp.buf.DeferUpdates(true)
		wg.Add(1)
		b.s.workers.run(func() {
			returned := false
			defer func() {
				if !returned {
					sp.p = errGoexit
				}
				b.t.fnReturned()
				wg.Done()
			}()
			sp.err, sp.p = runFn(r.fn, sp.buf)
			returned = true
		})
	}
	wg.Wait()
	b.t.gatherReads(0)
	for i := range specs {
		b.base.assumed = append(b.base.assumed, specs[i].rd.assumed...)
	}
	if b.t.failed() != nil {
		return
	}
	own := b.s.readBuckets(b.t, specs)
	b.t.mu.Lock()
	b.t.ids = maps.Clone(b.s.idBuckets)
	b.t.mu.Unlock()
	if !b.s.readAbsent {
		for bucket := range b.s.idBuckets {
			if own == nil {
				own = map[string]bool{}
			}
			own[bucket] = true
		}
		b.base.absent = own
		defer func() { b.base.absent = b.t.ids }()
	}
	for i, r := range live {
		sp := &specs[i]
		if b.keys.overlaps(sp.rd) {
			// An earlier function wrote what this one read.
			b.s.stats.reran.Add(1)
			b.runInOrder(r)
			if b.t.failed() != nil {
				return
			}
			continue
		}
		b.settle(r, sp.buf, sp.err, sp.p)
	}
}

// maxNamedAhead caps the keys a round reads for its updates' contexts.
const maxNamedAhead = 1024

// namedAhead returns the cache keys that the updates of live named on
// their contexts (store.WithReadsAhead), but those of the buckets whose
// keys the round takes as missing (absent, see readBuckets): at most
// maxNamedAhead, some perhaps read already (tx.prefetch skips them).
func (b *batch) namedAhead(live []*request) []string {
	var out []string
	var kb [128]byte
	for _, r := range live {
		for _, k := range store.ReadsAhead(r.ctx) {
			if b.base.absent[string(k.Bucket)] || store.CheckKey(k.Bucket, k.Key) != nil {
				continue // taken as missing, or refused by the Get
			}
			if len(out) == maxNamedAhead {
				return out
			}
			out = append(out, string(appendCacheKey(kb[:0], k.Bucket, k.Key)))
		}
	}
	return out
}

// readBuckets returns the buckets where the functions of a round, run at
// once, read keys of their own only (each key read by one function, two
// keys at least). Those where every such key was missing become or stay
// the store's buckets of ids: those of new records, whose ids a function
// checks are unused; those where one was found leave them.
//
// A function run again in order draws new ids, most often: its reads of
// keys not read yet in the buckets of ids and in own (where a function
// reads its own record, say, which it read already when run at once) are
// taken as missing without a round trip each (see runReader.Get); so are
// those of any function run in order in the buckets of ids. All are read
// together before the commit.
func (s *Store) readBuckets(t *tx, runs []fnRun) (own map[string]bool) {
	readers := map[string]int{} // cache key -> functions that read it
	for i := range runs {
		for _, ck := range runs[i].rd.gets {
			readers[ck]++
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	type count struct{ own, found int }
	buckets := map[string]*count{}
	for ck, n := range readers {
		bucket, _ := splitCacheKey(ck)
		c := buckets[string(bucket)]
		if c == nil {
			c = &count{}
			buckets[string(bucket)] = c
		}
		switch cached, ok := t.cache[ck]; {
		case !ok || n > 1: // not remembered, or shared: not a bucket of ids
			c.own = -1 << 30
		case cached.found:
			c.own++
			c.found++
		default:
			c.own++
		}
	}
	for bucket, c := range buckets {
		if c.own < 2 {
			continue
		}
		if own == nil {
			own = map[string]bool{}
		}
		own[bucket] = true
		if c.found > 0 {
			delete(s.idBuckets, bucket)
			continue
		}
		if s.idBuckets == nil {
			s.idBuckets = map[string]bool{}
		}
		s.idBuckets[bucket] = true
	}
	return own
}

// fnRun is a function's run with the others of its round: what it read,
// its writes and its outcome.
type fnRun struct {
	rd  *runReader
	buf *txbuf.Tx
	err error
	p   any
}

// concurrentReadsPerFn is the mean number of reads a function of the
// last rounds sent to the server above which a round's functions run at
// once. Below it most of their reads are of keys an earlier function read
// (a hot balance): in order, they cost no round trip, and running them at
// once would cost a goroutine and most often a second run each.
const concurrentReadsPerFn = 0.5

// readsDecay weighs the past rounds in the mean (each round counts for
// its functions).
const readsDecay = 0.9

func (s *Store) concurrentRuns() bool {
	switch s.runs {
	case runsInOrder:
		return false
	case runsConcurrent:
		return true
	}
	return s.recentReads >= concurrentReadsPerFn*s.recentFns && s.recentFns > 0
}

// errGoexit is the panic an Update gets when its function ended its
// goroutine (runtime.Goexit, as t.FailNow does) while running with the
// others of its round: its writes are dropped, and its caller panics.
var errGoexit = errors.New("pgstore: the function passed to Update called runtime.Goexit (t.FailNow, require?); it must return an error instead")

// runInOrder runs r's function over the batch's writes.
func (b *batch) runInOrder(r *request) {
	b.base.check = r.ctx.Err
	b.buf.Reset(b.shared)
	err, p := runFn(r.fn, &b.buf)
	b.base.check = nil
	if p == nil && b.t.failed() != nil {
		return // fn read through a failed statement, whatever it returned
	}
	b.settle(r, &b.buf, err, p)
}

// settle records the outcome of r's function, whose writes are in buf.
func (b *batch) settle(r *request, buf *txbuf.Tx, err error, p any) {
	switch {
	case p != nil:
		r.panic, r.state = p, final
	case err != nil:
		r.err, r.state = err, fnFailed
	default:
		updates, err := b.deferred(buf)
		if err != nil {
			r.err, r.state = err, fnFailed
			return
		}
		if err := buf.Apply(&b.keys); err != nil {
			r.err, r.state = err, final
			return
		}
		b.shared.Merge(buf)
		for _, u := range updates {
			// Writes to the buffer cannot fail: its keys were checked.
			_ = b.shared.Put(u.bucket, u.key, u.value)
			b.keys.add(u.bucket, u.key)
		}
		r.state = written
	}
}

// deferred runs the updates buf's function deferred (store.Deferrer),
// over the batch's writes, in the order they were deferred, and returns
// the writes they make. A failed read or update fails the function (a
// failed read fails the batch too).
func (b *batch) deferred(buf *txbuf.Tx) ([]write, error) {
	ds := buf.Deferred()
	if len(ds) == 0 {
		return nil, nil
	}
	out := make([]write, 0, len(ds))
	for _, d := range ds {
		if err := store.CheckPut(d.Bucket, d.Key, nil); err != nil {
			return nil, err
		}
		i := slices.IndexFunc(out, func(w write) bool { return bytes.Equal(w.bucket, d.Bucket) && bytes.Equal(w.key, d.Key) })
		old, found := []byte(nil), false
		if i >= 0 {
			old, found = out[i].value, true // deferred twice by one function
		} else {
			v, err := b.shared.Get(d.Bucket, d.Key)
			switch {
			case err == nil:
				old, found = v, true
			case !errors.Is(err, store.ErrNotFound):
				return nil, err
			}
		}
		v, err := d.Update(old, found)
		if err != nil {
			return nil, err
		}
		if err := store.CheckPut(d.Bucket, d.Key, v); err != nil {
			return nil, err
		}
		w := write{bucket: d.Bucket, key: d.Key, value: bytes.Clone(v)}
		if i >= 0 {
			out[i] = w
		} else {
			out = append(out, w)
		}
	}
	return out, nil
}

// runReader reads through a transaction for one function: it checks the
// function's context first and, for a run that may be discarded, records
// what it read.
type runReader struct {
	t      *tx
	check  func() error
	record bool
	// ahead says Prefetch reads ahead: in a round run at once, or in a
	// function alone in its round while the rounds run at once.
	ahead bool
	gets  []string // cache keys
	scans []scanned
	// absent are buckets whose keys not read yet are taken as missing
	// (see readBuckets); assumed are the keys so taken, which the
	// transaction reads before it commits.
	absent  map[string]bool
	assumed []write
}

type scanned struct {
	bucket []byte
	opt    store.ScanOptions
}

func (r *runReader) Get(bucket, key []byte) ([]byte, error) {
	if r.check != nil {
		if err := r.check(); err != nil {
			return nil, err
		}
	}
	if r.record {
		r.gets = append(r.gets, string(appendCacheKey(nil, bucket, key)))
	}
	if r.absent[string(bucket)] && !r.t.read(bucket, key) {
		if err := store.CheckKey(bucket, key); err != nil {
			return nil, err
		}
		r.assumed = append(r.assumed, write{bucket: bytes.Clone(bucket), key: bytes.Clone(key)})
		return nil, store.ErrNotFound
	}
	return r.t.Get(bucket, key)
}

// Prefetch reads keys ahead of the function's Gets (store.Prefetcher),
// in the round trip of its next Get, except those of the buckets whose
// keys it takes as missing (absent): read ahead, a Get would wait for
// them. A reader that does not read ahead (ahead unset) answers false, so
// that its caller builds no keys: the committer runs its rounds in order
// when their functions read keys the batch read already (one
// organization's), where a key named ahead costs what it saves. It
// records nothing: the Gets that follow do.
func (r *runReader) Prefetch(keys []store.KeyRef) bool {
	if !r.ahead {
		return false
	}
	if len(keys) == 0 {
		return true
	}
	if r.check != nil && r.check() != nil {
		return true // the Get that follows fails
	}
	r.t.queueAhead(keys, r.absent)
	return true
}

func (r *runReader) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	if r.check != nil {
		if err := r.check(); err != nil {
			return err
		}
	}
	if r.record {
		r.scans = append(r.scans, scanned{bucket: bytes.Clone(bucket), opt: store.ScanOptions{
			Start: bytes.Clone(opt.Start), End: bytes.Clone(opt.End), Prefix: bytes.Clone(opt.Prefix),
		}})
	}
	return r.t.Scan(bucket, opt, fn)
}

// writtenSet holds the keys a batch wrote (put or deleted). It is a
// txbuf.Writer, filled by Apply.
type writtenSet struct {
	keys     map[string]struct{}
	byBucket map[string][][]byte
}

func (w *writtenSet) add(bucket, key []byte) {
	if w.keys == nil {
		w.keys = make(map[string]struct{})
		w.byBucket = make(map[string][][]byte)
	}
	ck := string(appendCacheKey(nil, bucket, key))
	if _, ok := w.keys[ck]; ok {
		return
	}
	w.keys[ck] = struct{}{}
	w.byBucket[string(bucket)] = append(w.byBucket[string(bucket)], key)
}

// list returns the keys of the set.
func (w *writtenSet) list() []write {
	out := make([]write, 0, len(w.keys))
	for bucket, keys := range w.byBucket {
		for _, k := range keys {
			out = append(out, write{bucket: []byte(bucket), key: k})
		}
	}
	return out
}

func (w *writtenSet) Put(bucket, key, _ []byte) error { w.add(bucket, key); return nil }
func (w *writtenSet) Delete(bucket, key []byte) error { w.add(bucket, key); return nil }

// overlaps reports whether a key of the set is one r read, or lies in the
// range of one of r's scans.
func (w *writtenSet) overlaps(r *runReader) bool {
	if len(w.keys) == 0 {
		return false
	}
	for _, k := range r.gets {
		if _, ok := w.keys[k]; ok {
			return true
		}
	}
	for _, sc := range r.scans {
		for _, k := range w.byBucket[string(sc.bucket)] {
			if sc.opt.InRange(k) {
				return true
			}
		}
	}
	return false
}
