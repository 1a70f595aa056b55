package pgstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

// Scans read a page of rows, then hand them to fn: fn may read through the
// same transaction (one connection runs one statement at a time). Pages
// start small, since many scans stop after a few keys, and grow.
const (
	firstPage = 32
	maxPage   = 1024
)

// cacheMax caps the keys a transaction remembers reading.
const cacheMax = 1 << 16

// endTimeout bounds the ROLLBACK sent to end a transaction whose caller's
// context may be gone.
const endTimeout = 5 * time.Second

// tx is one database transaction on one connection. BEGIN is sent with
// the first read, and the buffered writes with COMMIT, so a transaction
// costs one round trip per read plus one for the commit.
//
// It is the base Reader of the write buffers: it serves Get and Scan from
// the database, and remembers the keys it read (a SERIALIZABLE or
// REPEATABLE READ transaction reads one snapshot, so a key read once
// reads the same again). Reads are safe from several goroutines: those
// that arrive while a round trip is under way are sent together in the
// next one, and concurrent Gets of one key share one read. While the
// functions of a round run at once (gather), reads wait until each of
// them waits for a read or has returned: the round costs one round trip
// per step of its functions, not one per function that happened to be
// first.
//
// The first failed statement aborts a PostgreSQL transaction; err keeps
// it, and every later read returns it.
type tx struct {
	s        *Store
	conn     *pgxpool.Conn
	ctx      context.Context // the context statements run under
	readOnly bool
	lazy     bool // commits asynchronously (asyncCommitSQL)

	mu    sync.Mutex
	began bool // BEGIN was sent (only the sender and commit change it)
	err   error
	cache map[string]cached
	// pages are the pages of Scans read or being read, by pageKey: the
	// transaction reads one snapshot and sends its writes only with
	// COMMIT, so a page read again reads the same rows (the functions'
	// own writes are merged above, by txbuf).
	pages    map[string]*read
	pageRows int              // the rows of the pages kept, at most maxPageRows
	pending  []*read          // reads waiting for the next round trip
	inflight map[string]*read // Gets pending or being sent, by cache key
	sending  bool             // a goroutine is sending reads
	reads    int              // reads sent to the server
	// ids are the buckets of ids (see readBuckets), idReads the Gets of
	// their keys sent.
	ids     map[string]bool
	idReads int
	// gather is the number of functions running at once whose reads are
	// sent together (0: reads go at once); returned counts those that
	// returned, waiting the goroutines waiting for a read.
	gather, returned, waiting int
	// start, if set, runs before the first round trip (it may set conn
	// and readAhead), and started once it is back; readAhead are keys
	// (cache keys) the first round trip reads too.
	start     func() error
	started   func()
	readAhead []string
}

type cached struct {
	value []byte // nil when the key is missing
	found bool
	// prefetched says the key was read ahead of the functions (prefetch),
	// used that a function read it since.
	prefetched, used bool
}

// read is one statement of a round trip: a Get, or a page of a Scan.
type read struct {
	bucket, key []byte // a Get when page is nil
	ckey        string
	page        *pageQuery
	waiters     int  // goroutines waiting for it
	ahead       bool // read ahead of the functions (see prefetch)
	kept        bool // a page kept in tx.pages once read
	value       []byte
	found       bool
	rows        []row
	err         error
	done        chan struct{}
}

type pageQuery struct {
	lower, upper []byte // nil: open
	reverse      bool
	limit        int
}

type row struct{ key, value []byte }

func newTx(s *Store, conn *pgxpool.Conn, ctx context.Context, readOnly bool) *tx {
	return &tx{s: s, conn: conn, ctx: ctx, readOnly: readOnly}
}

// queueBegin adds BEGIN (and the statement timeout) to b if the
// transaction has not begun, and returns how many statements it added.
func (t *tx) queueBegin(b *pgx.Batch) int {
	if t.began {
		return 0
	}
	n := 1
	if t.readOnly {
		b.Queue(beginReadOnly)
	} else {
		b.Queue(beginSerializable)
	}
	if t.s.timeout != "" {
		b.Queue(setTimeout, t.s.timeout)
		n++
	}
	t.began = true
	return n
}

// fail records a failed statement and returns the transaction's error.
func (t *tx) fail(err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
	return t.err
}

// readsSent returns how many reads went to the server, not counting the
// Gets of keys in the buckets of ids (which, run in order, a batch takes
// as missing: see readBuckets).
func (t *tx) readsSent() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reads - t.idReads
}

// failed returns the error that aborted the transaction, if any.
func (t *tx) failed() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

func appendCacheKey(dst, bucket, key []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(bucket)))
	return append(append(dst, bucket...), key...)
}

// splitCacheKey returns the bucket and key of a cache key.
func splitCacheKey(ck string) (bucket, key []byte) {
	n, w := binary.Uvarint([]byte(ck))
	b := []byte(ck[w:])
	return b[:n:n], b[n:]
}

func (t *tx) Get(bucket, key []byte) ([]byte, error) {
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	var kb [128]byte
	ck := appendCacheKey(kb[:0], bucket, key)
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return nil, t.err
	}
	if c, ok := t.cache[string(ck)]; ok {
		if c.prefetched && !c.used {
			c.used = true
			t.cache[string(ck)] = c
		}
		t.mu.Unlock()
		if !c.found {
			return nil, store.ErrNotFound
		}
		return bytes.Clone(c.value), nil
	}
	r := t.inflight[string(ck)]
	if r == nil {
		r = &read{bucket: bucket, key: key, ckey: string(ck), done: make(chan struct{})}
		if t.inflight == nil {
			t.inflight = make(map[string]*read)
		}
		t.inflight[r.ckey] = r
		t.pending = append(t.pending, r)
	}
	r.waiters++
	t.waiting++
	t.flushLocked()
	<-r.done
	switch {
	case r.err != nil:
		return nil, r.err
	case !r.found:
		return nil, store.ErrNotFound
	}
	return bytes.Clone(r.value), nil
}

// flushLocked sends the pending reads unless another goroutine is sending
// (it will send them next) or, while a round's functions run at once, one
// of them neither waits for a read nor has returned (it will send them),
// and unlocks t.mu.
func (t *tx) flushLocked() {
	for !t.sending && len(t.pending) > 0 && t.err == nil && t.waiting+t.returned >= t.gather {
		t.sending = true
		first := !t.began && t.start != nil
		if first {
			t.mu.Unlock()
			err := t.start()
			t.mu.Lock()
			if err != nil {
				t.sending = false
				t.err = err
				break
			}
			t.queueAheadLocked()
		}
		batch := t.pending
		t.pending = nil
		t.mu.Unlock()
		err := t.send(batch)
		t.s.stats.reads.Add(1)
		if first {
			t.started()
		}
		t.mu.Lock()
		t.sending = false
		t.reads += len(batch)
		for _, r := range batch {
			if r.page == nil && t.ids[string(r.bucket)] {
				t.idReads++
			}
		}
		for _, r := range batch {
			t.waiting -= r.waiters
		}
		if err != nil && t.err == nil {
			t.err = err
		}
		for _, r := range batch {
			if r.page != nil {
				continue
			}
			delete(t.inflight, r.ckey)
			if r.err == nil && len(t.cache) < cacheMax {
				if t.cache == nil {
					t.cache = make(map[string]cached)
				}
				t.cache[r.ckey] = cached{value: r.value, found: r.found, prefetched: r.ahead}
			}
		}
		for _, r := range batch {
			close(r.done)
		}
	}
	if t.err != nil {
		// Reads queued behind a failed round trip fail with it.
		for _, r := range t.pending {
			r.err = t.err
			if r.page == nil {
				delete(t.inflight, r.ckey)
			}
			close(r.done)
		}
		t.pending = nil
	}
	t.mu.Unlock()
}

// send runs the reads of batch in one round trip (with BEGIN first if the
// transaction has not begun). On error every read of the batch fails.
func (t *tx) send(batch []*read) (err error) {
	defer func() {
		if err != nil {
			for _, r := range batch {
				r.err = err
			}
		}
	}()
	var b pgx.Batch
	skip := t.queueBegin(&b)
	groups := groupGets(batch)
	for _, g := range groups {
		if len(g) == 1 {
			b.Queue(t.s.sql.get, g[0].bucket, g[0].key)
			continue
		}
		keys := make([][]byte, len(g))
		for i, r := range g {
			keys[i] = r.key
		}
		b.Queue(t.s.sql.getKeys, g[0].bucket, keys)
	}
	for _, r := range batch {
		if r.page == nil {
			continue
		}
		p := r.page
		args := []any{r.bucket}
		if p.lower != nil {
			args = append(args, p.lower)
		}
		if p.upper != nil {
			args = append(args, p.upper)
		}
		args = append(args, p.limit)
		b.Queue(t.s.sql.scan(p.reverse, p.lower != nil, p.upper != nil), args...)
	}
	br := t.conn.SendBatch(t.ctx, &b)
	defer func() {
		if cerr := br.Close(); err == nil {
			err = cerr
		}
	}()
	for range skip {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	for _, g := range groups {
		if err := readGroup(br, g); err != nil {
			return err
		}
	}
	for _, r := range batch {
		if r.page == nil {
			continue
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			var w row
			if err := rows.Scan(&w.key, &w.value); err != nil {
				rows.Close()
				return err
			}
			if w.value == nil {
				w.value = []byte{}
			}
			r.rows = append(r.rows, w)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// groupGets returns the Gets of batch grouped by bucket, in the order
// their buckets first come, each group's keys distinct. The Gets of one
// bucket share one statement (getKeys): while many organizations share a
// batch, a round's functions each read their own organization's row of
// the same buckets, and PostgreSQL's cost per statement, not per row, was
// what grew with the number of organizations (docs/performance.md,
// "Many organizations (issue #38): what bounds them").
func groupGets(batch []*read) [][]*read {
	var groups [][]*read
next:
	for _, r := range batch {
		if r.page != nil {
			continue
		}
		for i, g := range groups {
			if bytes.Equal(g[0].bucket, r.bucket) {
				for _, o := range g {
					if bytes.Equal(o.key, r.key) {
						// Concurrent Gets of a key share one read, so this
						// does not happen; if it did, the key is read again
						// on its own.
						groups = append(groups, []*read{r})
						continue next
					}
				}
				groups[i] = append(g, r)
				continue next
			}
		}
		groups = append(groups, []*read{r})
	}
	return groups
}

// readGroup reads the answer of one group of groupGets: a lone Get's row,
// or the rows getKeys found; a Get whose key came back in no row found
// nothing.
func readGroup(br pgx.BatchResults, g []*read) error {
	if len(g) == 1 {
		r := g[0]
		switch err := br.QueryRow().Scan(&r.value); {
		case err == nil:
			r.found = true
			if r.value == nil {
				r.value = []byte{}
			}
		case errors.Is(err, pgx.ErrNoRows):
			r.value = nil
		default:
			return err
		}
		return nil
	}
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key, value []byte
		if err := rows.Scan(&key, &value); err != nil {
			return err
		}
		for _, r := range g {
			if !r.found && bytes.Equal(r.key, key) {
				if value == nil {
					value = []byte{}
				}
				r.value, r.found = value, true
				break
			}
		}
	}
	return rows.Err()
}

// lock is the transaction's first round trip when it locks up front (see
// hotSet), all in sorted order so that transactions lock in the same
// order: it writes the lock rows lockRows (creating them if missing), so
// that whoever waits for one reads after this transaction ends, then
// locks the rows of keys that exist (SELECT ... FOR UPDATE) and
// remembers the values of keys, found or missing, as reads. If a row was
// locked when it came and the holder wrote it, the round trip fails to
// serialize: the caller runs it again in a new transaction, which waits
// no more for that holder.
func (t *tx) lock(lockRows [][]byte, keys []write) error {
	var b pgx.Batch
	n := t.queueBegin(&b)
	if len(lockRows) > 0 {
		b.Queue(t.s.sql.lockRows, lockRows)
		n++
	}
	if len(keys) > 0 {
		bs, ks, _ := columns(keys, false)
		b.Queue(t.s.sql.lockKeys, bs, ks)
	}
	found := make(map[string][]byte, len(keys))
	br := t.conn.SendBatch(t.ctx, &b)
	err := func() error {
		for range n {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if len(keys) == 0 {
			return nil
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var w write
			if err := rows.Scan(&w.bucket, &w.key, &w.value); err != nil {
				return err
			}
			if w.value == nil {
				w.value = []byte{}
			}
			found[string(appendCacheKey(nil, w.bucket, w.key))] = w.value
		}
		return rows.Err()
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return t.fail(err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range keys {
		if len(t.cache) >= cacheMax {
			break
		}
		if t.cache == nil {
			t.cache = make(map[string]cached, len(keys))
		}
		ck := string(appendCacheKey(nil, k.bucket, k.key))
		v, ok := found[ck]
		t.cache[ck] = cached{value: v, found: ok}
	}
	return nil
}

func (t *tx) Put(bucket, key, value []byte) error { return store.ErrReadOnly }
func (t *tx) Delete(bucket, key []byte) error     { return store.ErrReadOnly }

// Scan reads the bucket's keys in pages bounded by the scan's range, in
// key order: bytea compares bytewise, which is the port's order.
func (t *tx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	if err := t.failed(); err != nil {
		return err
	}
	if len(bucket) == 0 {
		return nil // no bucket has an empty name
	}
	lower, upper := opt.Lower(), opt.Upper()
	if lower != nil && upper != nil && bytes.Compare(lower, upper) >= 0 {
		return nil
	}
	limit := firstPage
	for {
		page, err := t.page(bucket, pageQuery{lower: lower, upper: upper, reverse: opt.Reverse, limit: limit})
		if err != nil {
			return err
		}
		for _, r := range page {
			if !opt.InRange(r.key) {
				continue
			}
			more, err := fn(r.key, r.value)
			if err != nil || !more {
				return err
			}
		}
		if len(page) < limit {
			return nil
		}
		last := page[len(page)-1].key
		if opt.Reverse {
			upper = last // exclusive
		} else {
			lower = append(bytes.Clone(last), 0) // the next key after last
		}
		limit = min(2*limit, maxPage)
	}
}

// page reads one page of bucket through the next round trip, once per
// transaction: the same page read again, by this function or another of
// the batch, is the one read first (see tx.pages). The rows returned are
// the caller's own.
func (t *tx) page(bucket []byte, q pageQuery) ([]row, error) {
	pk := pageKey(bucket, q)
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return nil, t.err
	}
	r := t.pages[pk]
	if r == nil {
		r = &read{bucket: bucket, page: &q, done: make(chan struct{})}
		if t.pages == nil {
			t.pages = make(map[string]*read)
		}
		t.pages[pk] = r
		t.pending = append(t.pending, r)
		r.waiters++
		t.waiting++
		t.flushLocked()
	} else {
		select {
		case <-r.done:
			t.mu.Unlock()
		default:
			// Being read: wait for it as its reader does.
			r.waiters++
			t.waiting++
			t.flushLocked()
		}
	}
	<-r.done
	if r.err != nil {
		return nil, r.err
	}
	t.mu.Lock()
	if !r.kept && t.pages[pk] == r {
		// The first of its readers back decides whether it is kept.
		if t.pageRows+len(r.rows) <= maxPageRows {
			r.kept = true
			t.pageRows += len(r.rows)
		} else {
			delete(t.pages, pk)
		}
	}
	t.mu.Unlock()
	rows := make([]row, len(r.rows))
	for i, w := range r.rows {
		rows[i] = row{key: bytes.Clone(w.key), value: bytes.Clone(w.value)}
	}
	return rows, nil
}

// maxPageRows bounds the rows of the pages a transaction keeps: a long
// Scan (an export, a statement) is read again rather than held.
const maxPageRows = 4096

// pageKey identifies a page of bucket among a transaction's pages.
func pageKey(bucket []byte, q pageQuery) string {
	b := make([]byte, 0, 16+len(bucket)+len(q.lower)+len(q.upper))
	b = binary.AppendUvarint(b, uint64(q.limit))
	flags := byte(0)
	if q.reverse {
		flags |= 1
	}
	if q.lower != nil {
		flags |= 2
	}
	if q.upper != nil {
		flags |= 4
	}
	b = append(b, flags)
	for _, part := range [][]byte{bucket, q.lower, q.upper} {
		b = binary.AppendUvarint(b, uint64(len(part)))
		b = append(b, part...)
	}
	return string(b)
}

// queueAheadLocked adds the reads of readAhead not read yet to the
// pending ones.
func (t *tx) queueAheadLocked() {
	for _, ck := range t.readAhead {
		if _, ok := t.cache[ck]; ok || t.inflight[ck] != nil {
			continue
		}
		bucket, key := splitCacheKey(ck)
		t.pendAheadLocked(ck, bucket, key)
	}
	t.readAhead = nil
}

// pendAheadLocked queues a read ahead of bucket/key, whose cache key is
// ck, which the transaction has neither read nor is reading.
func (t *tx) pendAheadLocked(ck string, bucket, key []byte) {
	r := &read{bucket: bucket, key: key, ckey: ck, done: make(chan struct{}), ahead: true}
	if t.inflight == nil {
		t.inflight = make(map[string]*read)
	}
	t.inflight[ck] = r
	t.pending = append(t.pending, r)
}

// prefetch reads the keys (cache keys) not read yet in one round trip,
// with BEGIN if the transaction has not begun, so that the functions find
// them in memory. A failed read fails the transaction.
func (t *tx) prefetch(keys []string) {
	t.mu.Lock()
	var reads []*read
	for _, ck := range keys {
		if _, ok := t.cache[ck]; ok {
			continue
		}
		if t.inflight[ck] != nil {
			continue
		}
		bucket, key := splitCacheKey(ck)
		r := &read{bucket: bucket, key: key, ckey: ck, done: make(chan struct{}), waiters: 1, ahead: true}
		if t.inflight == nil {
			t.inflight = make(map[string]*read)
		}
		t.inflight[ck] = r
		t.pending = append(t.pending, r)
		t.waiting++
		reads = append(reads, r)
	}
	t.flushLocked()
	for _, r := range reads {
		<-r.done
	}
}

// Prefetch reads keys ahead of the Gets that follow (store.Prefetcher),
// in the round trip of the next one that waits.
func (t *tx) Prefetch(keys []store.KeyRef) bool {
	t.queueAhead(keys, nil)
	return true
}

// queueAhead queues reads of keys that the transaction has neither read
// nor is reading, except those of the buckets in skip, for the next round
// trip, without waiting for them (Prefetch): no goroutine waits for them,
// so they count for no waiter, and the Get that waits next sends them
// with its own. An invalid key is left to its Get, which refuses it.
func (t *tx) queueAhead(keys []store.KeyRef, skip map[string]bool) {
	var kb [128]byte
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	for _, k := range keys {
		if skip[string(k.Bucket)] || store.CheckKey(k.Bucket, k.Key) != nil {
			continue
		}
		ck := appendCacheKey(kb[:0], k.Bucket, k.Key)
		if _, ok := t.cache[string(ck)]; ok || t.inflight[string(ck)] != nil {
			continue
		}
		t.pendAheadLocked(string(ck), bytes.Clone(k.Bucket), bytes.Clone(k.Key))
	}
}

// existing reads keys in one statement and returns those that exist, as
// cache keys (none when the read fails: see failed).
func (t *tx) existing(keys []write) []string {
	if err := t.failed(); err != nil {
		return nil
	}
	slices.SortFunc(keys, compareWrites)
	keys = slices.CompactFunc(keys, func(a, b write) bool { return compareWrites(a, b) == 0 })
	bs, ks, _ := columns(keys, false)
	var b pgx.Batch
	n := t.queueBegin(&b)
	b.Queue(t.s.sql.existing, bs, ks)
	var found []string
	br := t.conn.SendBatch(t.ctx, &b)
	err := func() error {
		for range n {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var bucket, key []byte
			if err := rows.Scan(&bucket, &key); err != nil {
				return err
			}
			found = append(found, string(appendCacheKey(nil, bucket, key)))
		}
		return rows.Err()
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.fail(err)
		return nil
	}
	return found
}

// read reports whether the transaction read bucket/key, or is reading it.
func (t *tx) read(bucket, key []byte) bool {
	var kb [128]byte
	ck := appendCacheKey(kb[:0], bucket, key)
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.cache[string(ck)]
	return ok || t.inflight[string(ck)] != nil
}

// readKeys returns the keys the transaction read from the server for its
// functions (not those read ahead that no function read).
func (t *tx) readKeys() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]string, 0, len(t.cache))
	for ck, c := range t.cache {
		if !c.prefetched || c.used {
			keys = append(keys, ck)
		}
	}
	return keys
}

// gatherReads makes the reads of the next n functions' goroutines wait
// for one another (see tx); n = 0 ends that.
func (t *tx) gatherReads(n int) {
	t.mu.Lock()
	t.gather, t.returned = n, 0
	t.mu.Unlock()
}

// fnReturned records that one of the functions gathered returned, and
// sends the reads of the others if they all wait.
func (t *tx) fnReturned() {
	t.mu.Lock()
	t.returned++
	t.flushLocked()
}

// writes collects a buffer's writes as the arrays of one INSERT and one
// DELETE statement, sorted by bucket and key so that concurrent
// transactions lock rows in the same order.
type writes struct {
	puts, dels []write
}

type write struct{ bucket, key, value []byte }

func (w *writes) Put(bucket, key, value []byte) error {
	if value == nil {
		value = []byte{} // a nil []byte would be sent as NULL
	}
	w.puts = append(w.puts, write{bucket, key, value})
	return nil
}

func (w *writes) Delete(bucket, key []byte) error {
	w.dels = append(w.dels, write{bucket: bucket, key: key})
	return nil
}

func compareWrites(a, b write) int {
	if c := bytes.Compare(a.bucket, b.bucket); c != 0 {
		return c
	}
	return bytes.Compare(a.key, b.key)
}

func columns(ws []write, value bool) (buckets, keys, values [][]byte) {
	buckets, keys = make([][]byte, len(ws)), make([][]byte, len(ws))
	if value {
		values = make([][]byte, len(ws))
	}
	for i, w := range ws {
		buckets[i], keys[i] = w.bucket, w.key
		if value {
			values[i] = w.value
		}
	}
	return buckets, keys, values
}

// commit sends buf's writes and COMMIT in one round trip (with BEGIN if
// no statement ran yet). A transaction that neither read nor wrote sends
// nothing. The commit runs to its end even if the caller's context is
// cancelled meanwhile: once COMMIT is sent, only its answer tells whether
// it happened.
func (t *tx) commit(buf *txbuf.Tx) error {
	if err := t.failed(); err != nil {
		return err
	}
	var w writes
	if buf != nil && buf.Len() > 0 {
		if err := buf.Apply(&w); err != nil {
			return t.fail(err)
		}
	}
	if !t.began && len(w.puts) == 0 && len(w.dels) == 0 {
		return nil
	}
	if err := t.ctx.Err(); err != nil {
		return t.fail(err)
	}
	slices.SortFunc(w.puts, compareWrites)
	slices.SortFunc(w.dels, compareWrites)
	var b pgx.Batch
	n := t.queueBegin(&b)
	if len(w.puts) > 0 {
		bs, ks, vs := columns(w.puts, true)
		b.Queue(t.s.sql.upsert, bs, ks, vs)
		n++
	}
	if len(w.dels) > 0 {
		bs, ks, _ := columns(w.dels, false)
		b.Queue(t.s.sql.del, bs, ks)
		n++
	}
	if t.lazy {
		b.Queue(asyncCommitSQL)
		n++
	}
	b.Queue(commitSQL)
	br := t.conn.SendBatch(context.WithoutCancel(t.ctx), &b)
	var err error
	for i := 0; i <= n && err == nil; i++ {
		_, err = br.Exec()
	}
	// Once COMMIT's answer is in, the transaction committed, whatever
	// closing the batch says (the connection, if broken, is not reused).
	_ = br.Close()
	if err != nil && !isServerError(err) && !pgconn.SafeToRetry(err) {
		// The batch with COMMIT may have reached the server, and no
		// answer came back: it may have committed.
		err = &commitUnknownError{err}
	}
	if err != nil {
		return t.fail(err)
	}
	return nil
}

// end finishes a transaction that is not to commit: a ROLLBACK if it
// began and the connection is still in it.
func (t *tx) end() {
	if !t.began || t.conn == nil {
		return
	}
	pc := t.conn.Conn().PgConn()
	if pc.IsClosed() || pc.IsBusy() || pc.TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), endTimeout)
	defer cancel()
	// A failed ROLLBACK leaves the connection in its transaction, and
	// release then closes it instead of returning it to the pool.
	_, _ = t.conn.Exec(ctx, rollbackSQL)
}

// release returns the connection to the pool, which closes it if it is
// still in a transaction.
func (t *tx) release() {
	if t.conn != nil {
		t.conn.Release()
		t.conn = nil
	}
}

// readTx is a View's transaction; check, if set, is called before each
// read.
type readTx struct {
	t     *tx
	check func() error
}

func (r readTx) Get(bucket, key []byte) ([]byte, error) {
	if r.check != nil {
		if err := r.check(); err != nil {
			return nil, err
		}
	}
	return r.t.Get(bucket, key)
}

// Prefetch reads keys ahead of the Gets that follow (store.Prefetcher).
func (r readTx) Prefetch(keys []store.KeyRef) bool { return r.t.Prefetch(keys) }

func (r readTx) Put(_, _, _ []byte) error { return store.ErrReadOnly }
func (r readTx) Delete(_, _ []byte) error { return store.ErrReadOnly }
func (r readTx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	if r.check != nil {
		if err := r.check(); err != nil {
			return err
		}
	}
	return r.t.Scan(bucket, opt, fn)
}
