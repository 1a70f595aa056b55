package pgstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
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
const cacheMax = 4096

// endTimeout bounds the ROLLBACK sent to end a transaction whose caller's
// context may be gone.
const endTimeout = 5 * time.Second

// tx is one database transaction on one connection. BEGIN is sent with
// the first statement, and the buffered writes with COMMIT, so a
// transaction costs one round trip per read plus one for the commit.
//
// It is the base Reader of the write buffers: it serves Get and Scan from
// the database, and remembers the keys it read (a SERIALIZABLE or
// REPEATABLE READ transaction reads one snapshot, so a key read once
// reads the same again).
//
// The first failed statement aborts a PostgreSQL transaction; err keeps
// it, and every later read returns it.
type tx struct {
	s        *Store
	conn     *pgxpool.Conn
	ctx      context.Context // the context statements run under
	readOnly bool
	began    bool
	err      error
	// check, when set, is the context check of the update whose fn is
	// running (a shared transaction runs under the committer's context).
	check func() error

	cache map[string]cached
	ckey  []byte
}

type cached struct {
	value []byte // nil when the key is missing
	found bool
}

func newTx(s *Store, conn *pgxpool.Conn, ctx context.Context, readOnly bool) *tx {
	return &tx{s: s, conn: conn, ctx: ctx, readOnly: readOnly}
}

// queueBegin adds BEGIN (and the statement timeout) to b if the
// transaction has not begun.
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

// fail records a failed statement and returns it.
func (t *tx) fail(err error) error {
	if t.err == nil {
		t.err = err
	}
	return t.err
}

func (t *tx) usable() error {
	if t.err != nil {
		return t.err
	}
	if t.check != nil {
		return t.check()
	}
	return nil
}

func (t *tx) cacheKey(bucket, key []byte) []byte {
	t.ckey = binary.AppendUvarint(t.ckey[:0], uint64(len(bucket)))
	t.ckey = append(append(t.ckey, bucket...), key...)
	return t.ckey
}

func (t *tx) Get(bucket, key []byte) ([]byte, error) {
	if err := store.CheckKey(bucket, key); err != nil {
		return nil, err
	}
	if err := t.usable(); err != nil {
		return nil, err
	}
	if c, ok := t.cache[string(t.cacheKey(bucket, key))]; ok {
		if !c.found {
			return nil, store.ErrNotFound
		}
		return bytes.Clone(c.value), nil
	}
	var b pgx.Batch
	skip := t.queueBegin(&b)
	b.Queue(t.s.sql.get, bucket, key)
	br := t.conn.SendBatch(t.ctx, &b)
	var err error
	for range skip {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	var v []byte
	found := false
	if err == nil {
		switch err = br.QueryRow().Scan(&v); {
		case err == nil:
			found = true
		case errors.Is(err, pgx.ErrNoRows):
			err = nil
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, t.fail(err)
	}
	if v == nil {
		v = []byte{}
	}
	if len(t.cache) < cacheMax {
		if t.cache == nil {
			t.cache = make(map[string]cached)
		}
		c := cached{found: found}
		if found {
			c.value = v
			v = bytes.Clone(v)
		}
		t.cache[string(t.cacheKey(bucket, key))] = c
	}
	if !found {
		return nil, store.ErrNotFound
	}
	return v, nil
}

func (t *tx) Put(bucket, key, value []byte) error { return store.ErrReadOnly }
func (t *tx) Delete(bucket, key []byte) error     { return store.ErrReadOnly }

type row struct{ key, value []byte }

// Scan reads the bucket's keys in pages bounded by the scan's range, in
// key order: bytea compares bytewise, which is the port's order.
func (t *tx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	if err := t.usable(); err != nil {
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
	page := make([]row, 0, firstPage)
	for {
		var err error
		page, err = t.page(page[:0], bucket, lower, upper, opt.Reverse, limit)
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
		if err := t.usable(); err != nil {
			return err
		}
	}
}

// page reads up to limit rows of bucket between lower (inclusive) and
// upper (exclusive), nil bounds being open.
func (t *tx) page(out []row, bucket, lower, upper []byte, reverse bool, limit int) ([]row, error) {
	args := []any{bucket}
	if lower != nil {
		args = append(args, lower)
	}
	if upper != nil {
		args = append(args, upper)
	}
	args = append(args, limit)
	var b pgx.Batch
	skip := t.queueBegin(&b)
	b.Queue(t.s.sql.scan(reverse, lower != nil, upper != nil), args...)
	br := t.conn.SendBatch(t.ctx, &b)
	var err error
	for range skip {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			for rows.Next() {
				var r row
				if err = rows.Scan(&r.key, &r.value); err != nil {
					break
				}
				if r.value == nil {
					r.value = []byte{}
				}
				out = append(out, r)
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return out[:0], t.fail(err)
	}
	return out, nil
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
	if t.err != nil {
		return t.err
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

// readTx is a View's transaction.
type readTx struct{ t *tx }

func (r readTx) Get(bucket, key []byte) ([]byte, error) { return r.t.Get(bucket, key) }
func (r readTx) Put(_, _, _ []byte) error               { return store.ErrReadOnly }
func (r readTx) Delete(_, _ []byte) error               { return store.ErrReadOnly }
func (r readTx) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	return r.t.Scan(bucket, opt, fn)
}
