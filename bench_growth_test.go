package tambala_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// growthSize is how many records one seeded store holds, all of one
// organization.
type growthSize struct {
	name                       string
	payouts, orders, conversed int
}

// growthSizes: 1e3 is the baseline of 1e6. At 1e6 the conversions are
// 1e5 (a conversion is two write transactions, a quote and a create, and
// 1e6 of them on three stores did not fit the session; their list reads
// the same index shape as the orders').
var growthSizes = []growthSize{
	{"1e3", 1_000, 1_000, 1_000},
	{"1e6", 1_000_000, 1_000_000, 100_000},
}

// growthDir is where the seeded bbolt and pebble stores are kept between
// runs.
func growthDir() string { return filepath.Join(os.TempDir(), "tambala-growth") }

// growthMarker is written once a store is fully seeded (a file beside
// bbolt and pebble, a table in the PostgreSQL schema); a store without it
// is seeded again from scratch.
type growthMarker struct {
	Org         string        `json:"org"`
	Payouts     int           `json:"payouts"`
	Orders      int           `json:"orders"`
	Conversions int           `json:"conversions"`
	DeepPayout  string        `json:"deep_payout"` // the payout created halfway: a cursor deep in the list
	Seeded      time.Duration `json:"seeded_ns"`
}

// growthStore opens one kind of store at a size's location.
type growthStore struct {
	name string
	// open opens the seeded store (seeding: fsync off), or the store as
	// the server opens it (seeding false).
	open func(b *testing.B, size string, seeding bool) store.Store
	// marker reads the marker (nil: none), put writes it, wipe removes
	// the store, bytes is its size on disk.
	marker func(b *testing.B, size string) *growthMarker
	put    func(b *testing.B, size string, m growthMarker)
	wipe   func(b *testing.B, size string)
	bytes  func(b *testing.B, size string) int64
	// copyFrom, when set for a size, seeds the store by copying another
	// store's seeded records instead of through the engine.
	copyFrom func(b *testing.B, size string) (growthMarker, bool)
}

func fileMarker(dir string) (func(*testing.B, string) *growthMarker, func(*testing.B, string, growthMarker)) {
	path := func(size string) string { return filepath.Join(growthDir(), dir+"-"+size+".json") }
	get := func(b *testing.B, size string) *growthMarker {
		data, err := os.ReadFile(path(size))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			b.Fatal(err)
		}
		var m growthMarker
		if err := json.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
		return &m
	}
	put := func(b *testing.B, size string, m growthMarker) {
		data, _ := json.Marshal(m)
		if err := os.WriteFile(path(size), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return get, put
}

func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n += fi.Size()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// growthPGURL is the PostgreSQL URL (TAMBALA_PG_URL), with
// synchronous_commit off while seeding.
func growthPGURL(b *testing.B, seeding bool) string {
	if !teststores.PGAvailable(b) {
		b.Skip("no PostgreSQL answers (set TAMBALA_PG_URL)")
	}
	u, err := url.Parse(teststores.PGURL(b))
	if err != nil {
		b.Fatal(err)
	}
	if seeding {
		q := u.Query()
		q.Set("synchronous_commit", "off")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func growthPGExec(b *testing.B, sql string, args ...any) pgx.Rows {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, growthPGURL(b, false))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(ctx) })
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		b.Fatal(err)
	}
	return rows
}

func growthSchema(size string) string { return "growth_" + size }

// pgSchemaBytes is pg_total_relation_size over the schema's tables (the
// marker table left out).
func pgSchemaBytes(b *testing.B, schema string) int64 {
	rows := growthPGExec(b, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname <> 'growth_marker'`, schema)
	n, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[int64])
	if err != nil {
		b.Fatal(err)
	}
	return n
}

var growthStores = []growthStore{
	func() growthStore {
		get, put := fileMarker("bbolt")
		file := func(size string) string { return filepath.Join(growthDir(), "bbolt-"+size, "tambala.bolt") }
		return growthStore{name: "bbolt",
			open: func(b *testing.B, size string, seeding bool) store.Store {
				if err := os.MkdirAll(filepath.Dir(file(size)), 0o700); err != nil {
					b.Fatal(err)
				}
				s, err := boltstore.Open(file(size), &boltstore.Options{NoSync: seeding, OpenTimeout: 2 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				return s
			},
			marker: get, put: put,
			wipe: func(b *testing.B, size string) {
				os.Remove(filepath.Join(growthDir(), "bbolt-"+size+".json"))
				if err := os.RemoveAll(filepath.Dir(file(size))); err != nil {
					b.Fatal(err)
				}
			},
			bytes: func(b *testing.B, size string) int64 {
				fi, err := os.Stat(file(size))
				if err != nil {
					b.Fatal(err)
				}
				return fi.Size()
			},
		}
	}(),
	func() growthStore {
		get, put := fileMarker("pebble")
		dir := func(size string) string { return filepath.Join(growthDir(), "pebble-"+size) }
		return growthStore{name: "pebble",
			open: func(b *testing.B, size string, seeding bool) store.Store {
				s, err := pebblestore.Open(dir(size), &pebblestore.Options{NoSync: seeding})
				if err != nil {
					b.Fatal(err)
				}
				return s
			},
			marker: get, put: put,
			wipe: func(b *testing.B, size string) {
				os.Remove(filepath.Join(growthDir(), "pebble-"+size+".json"))
				if err := os.RemoveAll(dir(size)); err != nil {
					b.Fatal(err)
				}
			},
			bytes: func(b *testing.B, size string) int64 { return dirBytes(b, dir(size)) },
		}
	}(),
	{name: "pg",
		open: func(b *testing.B, size string, seeding bool) store.Store {
			// As the server opens it: 16 connections.
			s, err := pgstore.Open(context.Background(), growthPGURL(b, seeding), &pgstore.Options{Schema: growthSchema(size), MaxConns: 16})
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
		marker: func(b *testing.B, size string) *growthMarker {
			rows := growthPGExec(b, `SELECT to_regclass($1)::text IS NOT NULL`, growthSchema(size)+".growth_marker")
			ok, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[bool])
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				return nil
			}
			rows = growthPGExec(b, `SELECT data FROM `+pgx.Identifier{growthSchema(size), "growth_marker"}.Sanitize())
			data, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[string])
			if err != nil {
				b.Fatal(err)
			}
			var m growthMarker
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				b.Fatal(err)
			}
			return &m
		},
		put: func(b *testing.B, size string, m growthMarker) {
			data, _ := json.Marshal(m)
			t := pgx.Identifier{growthSchema(size), "growth_marker"}.Sanitize()
			growthPGExec(b, `CREATE TABLE `+t+` (data text NOT NULL)`).Close()
			growthPGExec(b, `INSERT INTO `+t+` VALUES ($1)`, string(data)).Close()
		},
		wipe: func(b *testing.B, size string) {
			growthPGExec(b, `DROP SCHEMA IF EXISTS `+pgx.Identifier{growthSchema(size)}.Sanitize()+` CASCADE`).Close()
		},
		bytes: func(b *testing.B, size string) int64 { return pgSchemaBytes(b, growthSchema(size)) },
	},
}

func init() {
	growthStores[0].copyFrom = func(b *testing.B, size string) (growthMarker, bool) {
		if os.Getenv("GROWTH_BOLT_ENGINE") != "" {
			return growthMarker{}, false
		}
		return copyPebbleToBolt(b, size), true
	}
	growthStores[2].copyFrom = func(b *testing.B, size string) (growthMarker, bool) {
		if os.Getenv("GROWTH_PG_ENGINE") != "" {
			return growthMarker{}, false
		}
		return copyPebbleToPG(b, size), true
	}
}

// openPebbleRecords opens the seeded pebble store of size read-only and
// returns an iterator at its first bucket record.
func openPebbleRecords(b *testing.B, size string) (*growthMarker, *pebble.Iterator, func()) {
	m := growthStores[1].marker(b, size)
	if m == nil { // seed pebble first
		var sz growthSize
		for _, sz = range growthSizes {
			if sz.name == size {
				break
			}
		}
		s, _ := openGrowth(b, growthStores[1], sz)
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		if m = growthStores[1].marker(b, size); m == nil {
			b.Fatal("pebble was not seeded")
		}
	}
	popts := &pebble.Options{Logger: silentPebble{}, FormatMajorVersion: pebble.FormatTableFormatV6, ReadOnly: true}
	db, err := pebble.Open(filepath.Join(growthDir(), "pebble-"+size), popts)
	if err != nil {
		b.Fatal(err)
	}
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: []byte{1}})
	if err != nil {
		b.Fatal(err)
	}
	it.First()
	return m, it, func() { it.Close(); db.Close() }
}

// pebbleRecord splits the iterator's pebble key into bucket and key
// (copies) and returns them with a copy of the value.
func pebbleRecord(it *pebble.Iterator) (bucket, key, value []byte, err error) {
	k := it.Key()
	l, w := binary.Uvarint(k)
	if w <= 0 || l == 0 || uint64(len(k)-w) < l {
		return nil, nil, nil, fmt.Errorf("pebble key %q is not a bucket's", k)
	}
	v, err := it.ValueAndErr()
	if err != nil {
		return nil, nil, nil, err
	}
	return bytes.Clone(k[w : w+int(l)]), bytes.Clone(k[w+int(l):]), bytes.Clone(v), nil
}

// copyPebbleToBolt seeds the bbolt store of size with the pebble store's
// records, as copyPebbleToPG does, through the store port (Update, 20,000
// puts a transaction, in key order).
func copyPebbleToBolt(b *testing.B, size string) growthMarker {
	ctx := context.Background()
	t0 := time.Now()
	m, it, done := openPebbleRecords(b, size)
	defer done()
	s := growthStores[0].open(b, size, true)
	defer s.Close()
	n := 0
	for it.Valid() {
		err := s.Update(ctx, func(tx store.Tx) error {
			for i := 0; i < 20_000 && it.Valid(); i++ {
				bucket, key, value, err := pebbleRecord(it)
				if err != nil {
					return err
				}
				if err := tx.Put(bucket, key, value); err != nil {
					return err
				}
				it.Next()
				n++
			}
			return it.Error()
		})
		if err != nil {
			b.Fatal(err)
		}
		if n%1_000_000 < 20_000 {
			b.Logf("copying pebble %s to bbolt: %d records", size, n)
		}
	}
	if err := ledger.CheckStore(ctx, s); err != nil {
		b.Fatal(err)
	}
	b.Logf("copied %d records of pebble %s to bbolt in %v", n, size, time.Since(t0).Round(time.Second))
	out := *m
	out.Seeded = time.Since(t0)
	return out
}

// copyPebbleToPG seeds the PostgreSQL store of size with the records the
// engine wrote into the pebble store of the same size (seeded first when
// it is not): every bucket's keys and values,
// byte for byte, by COPY into the store's one table (pebblestore keeps
// them as uvarint(len(bucket)) | bucket | key; its own records, under the
// byte 0x00, are left out). Through the engine, PostgreSQL took 900
// payouts/s on the shared machine, an hour for the 1e6 store; the copy
// holds the same records, and the ledger is checked on it.
func copyPebbleToPG(b *testing.B, size string) growthMarker {
	ctx := context.Background()
	t0 := time.Now()
	s := growthStores[2].open(b, size, true) // creates the schema and its table
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	m, it, done := openPebbleRecords(b, size)
	defer done()
	conn, err := pgx.Connect(ctx, growthPGURL(b, true))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows int64
	n, err := conn.CopyFrom(ctx, pgx.Identifier{growthSchema(size), "tambala_kv"}, []string{"bucket", "key", "value"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if !it.Valid() {
				return nil, it.Error()
			}
			bucket, key, value, err := pebbleRecord(it)
			if err != nil {
				return nil, err
			}
			row := []any{bucket, key, value}
			it.Next()
			if rows++; rows%1_000_000 == 0 {
				b.Logf("copying pebble %s to pg: %d records", size, rows)
			}
			return row, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	growthPGExec(b, `ANALYZE `+pgx.Identifier{growthSchema(size), "tambala_kv"}.Sanitize()).Close()
	s = growthStores[2].open(b, size, false)
	defer s.Close()
	if err := ledger.CheckStore(ctx, s); err != nil {
		b.Fatal(err)
	}
	b.Logf("copied %d records of pebble %s to pg in %v", n, size, time.Since(t0).Round(time.Second))
	out := *m
	out.Seeded = time.Since(t0)
	return out
}

// growthOptions are the engine's options over a growth store: the
// sandbox payout provider and converter, as the sandbox server has them.
func growthOptions(s store.Store) *tambala.Options {
	return &tambala.Options{Payouts: sandbox.New(&sandbox.Options{Store: s}), Converter: sandbox.NewConverter(&sandbox.ConverterOptions{Store: s})}
}

// parallelN runs fn(i) for i in [0, n) from 64 goroutines.
func parallelN(n int, fn func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var first error
	var once sync.Once
	for range 64 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// seedGrowth makes the organization (as benchV2Engine does: /v2, MWK
// and USDT, large limits and balances) and creates its payouts (/v1,
// 1500.00 MWK to a momo wallet, acceptOne's body), to-bank orders (1
// USDT, benchOrder) and conversions (1 USDT to MWK), each with its own
// idempotency key, through the engine from 64 goroutines; no worker runs.
func seedGrowth(b *testing.B, s store.Store, size growthSize) growthMarker {
	ctx := context.Background()
	start := time.Now()
	e, err := tambala.New(s, growthOptions(s))
	if err != nil {
		b.Fatal(err)
	}
	orgID := benchV2Org(b, e, "Growth")
	p := actFor(e, orgID)
	m := growthMarker{Org: orgID, Payouts: size.payouts, Orders: size.orders, Conversions: size.conversed}
	var done atomic.Int64
	report := func(what string, n int) func() {
		stop := make(chan struct{})
		t0 := time.Now()
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(30 * time.Second):
					d := done.Load()
					b.Logf("seeding %s: %d of %d %s, %.0f/s", b.Name(), d, n, what, float64(d)/time.Since(t0).Seconds())
				}
			}
		}()
		return func() {
			close(stop)
			b.Logf("seeded %s: %d %s in %v (%.0f/s)", b.Name(), n, what, time.Since(t0).Round(time.Second), float64(n)/time.Since(t0).Seconds())
			done.Store(0)
		}
	}
	end := report("payouts", size.payouts)
	var deep atomic.Value
	err = parallelN(size.payouts, func(i int) error {
		out, err := createFromBody(ctx, e, p, payouts.Momo, uuid.NewString(), []byte(benchBody))
		if i == size.payouts/2 {
			deep.Store(out.Payout.ID)
		}
		done.Add(1)
		return err
	})
	end()
	if err != nil {
		b.Fatal(err)
	}
	m.DeepPayout = deep.Load().(string)
	end = report("orders", size.orders)
	err = parallelN(size.orders, func(int) error {
		_, err := benchOrder(e, p)
		done.Add(1)
		return err
	})
	end()
	if err != nil {
		b.Fatal(err)
	}
	end = report("conversions", size.conversed)
	err = parallelN(size.conversed, func(int) error {
		c := e.Client(p)
		q, err := c.QuoteConversion(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText(benchConvUSDT)})
		if err != nil {
			return err
		}
		_, err = c.CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: uuid.NewString()})
		done.Add(1)
		return err
	})
	end()
	if err != nil {
		b.Fatal(err)
	}
	if err := ledger.CheckStore(ctx, s); err != nil {
		b.Fatal(err)
	}
	m.Seeded = time.Since(start)
	return m
}

// growthWhat is one read of BenchmarkGrowth.
type growthWhat struct {
	name string
	call func(ctx context.Context, e *tambala.Engine, p tambala.Principal, m growthMarker) (int, error)
}

var growthWhats = []growthWhat{
	{"payouts-page", func(ctx context.Context, e *tambala.Engine, p tambala.Principal, _ growthMarker) (int, error) {
		pg, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{})
		return len(pg.Items), err
	}},
	{"payouts-deep", func(ctx context.Context, e *tambala.Engine, p tambala.Principal, m growthMarker) (int, error) {
		pg, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{BeforeID: m.DeepPayout}, tambala.PayoutFilter{})
		return len(pg.Items), err
	}},
	{"orders-page", func(ctx context.Context, e *tambala.Engine, p tambala.Principal, _ growthMarker) (int, error) {
		pg, err := e.Client(p).Orders(ctx, tambala.PageRequest{}, tambala.OrderFilter{})
		return len(pg.Items), err
	}},
	{"conversions-page", func(ctx context.Context, e *tambala.Engine, p tambala.Principal, _ growthMarker) (int, error) {
		pg, err := e.Client(p).Conversions(ctx, tambala.PageRequest{}, tambala.ConversionFilter{})
		return len(pg.Items), err
	}},
	{"desk-queue", func(ctx context.Context, e *tambala.Engine, _ tambala.Principal, _ growthMarker) (int, error) {
		pg, err := e.Operator().Desk().Orders(ctx, tambala.DeskQueue{Status: orders.Accepted}, tambala.PageRequest{})
		return len(pg.Items), err
	}},
	// A status filter that no record matches: the list reads the whole
	// index to find none (payouts.go, Engine.payouts' keep).
	{"payouts-filter-none", func(ctx context.Context, e *tambala.Engine, p tambala.Principal, _ growthMarker) (int, error) {
		pg, err := e.Client(p).V1().Payouts(ctx, tambala.PageRequest{}, tambala.PayoutFilter{Status: payouts.Failed})
		if err == nil && len(pg.Items) == 0 {
			return tambala.DefaultPageSize, nil
		}
		return len(pg.Items), err
	}},
}

// openGrowth opens the store of st and size, seeding it first unless a
// marker says an earlier run did.
func openGrowth(b *testing.B, st growthStore, size growthSize) (store.Store, growthMarker) {
	if err := os.MkdirAll(growthDir(), 0o700); err != nil {
		b.Fatal(err)
	}
	if m := st.marker(b, size.name); m != nil {
		if m.Payouts == size.payouts && m.Orders == size.orders && m.Conversions == size.conversed {
			return st.open(b, size.name, false), *m
		}
	}
	// One run seeds a store at a time: another run finding the lock
	// skips it rather than wipe what is being written.
	lock := filepath.Join(growthDir(), st.name+"-"+size.name+".seeding")
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		b.Skipf("another run is seeding %s %s (%s; remove it if that run died)", st.name, size.name, lock)
	}
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	defer os.Remove(lock)
	b.Logf("seeding %s %s (the first run; kept in %s for the next)", st.name, size.name, growthDir())
	st.wipe(b, size.name)
	var m growthMarker
	copied := false
	if st.copyFrom != nil {
		m, copied = st.copyFrom(b, size.name)
	}
	if !copied {
		s := st.open(b, size.name, true)
		m = seedGrowth(b, s, size)
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	st.put(b, size.name, m)
	return st.open(b, size.name, false), m
}

// BenchmarkGrowth measures whether a list page costs the same over 10^6
// records as over 10^3 (the baseline), on bbolt, pebble and PostgreSQL
// (where it answers, TAMBALA_PG_URL), all through the engine (no HTTP):
//
//	payouts-page         ClientV1.Payouts, the first page (50, newest first)
//	payouts-deep         ClientV1.Payouts, the page before the payout made halfway (a cursor deep in the list)
//	orders-page          Client.Orders, the first page
//	conversions-page     Client.Conversions, the first page
//	desk-queue           Desk.Orders of the accepted orders (the desk's queue), the first page
//	payouts-filter-none  ClientV1.Payouts with a status no payout has (failed): reads the whole index
//	startup              open the store as the server does, tambala.New, Operator.Organizations, close
//
// and reports pages/s (startup: ms/start) and allocs, and logs the
// store's bytes on disk. One organization holds every record: at 1e3, 1,000
// payouts, orders and conversions; at 1e6, 1,000,000 payouts and orders
// (all accepted, no worker runs: the desk queue holds them all) and
// 100,000 conversions. The records are written once, on the first run,
// through the engine into pebble (64 goroutines, fsync off while seeding,
// the ledger checked after; about half an hour at 1e6 on the shared two
// cores), and bbolt and PostgreSQL get a byte-for-byte copy of every
// bucket's keys and values (copyPebbleToBolt: through the store port,
// 20,000 puts a transaction; copyPebbleToPG: COPY into the store's
// table), the ledger checked on each: the engine through pgstore took 900
// payouts/s and through boltstore fell to 1,000/s past 500,000 payouts,
// an hour or more each for 1e6. GROWTH_BOLT_ENGINE=1 and
// GROWTH_PG_ENGINE=1 seed those stores through the engine instead. A
// copy is laid out in key order (bbolt's pages filled to its 0.9 append
// fill, PostgreSQL's table without dead rows), so its bytes on disk are
// not the engine's: BenchmarkGrowthBytes measures those. bbolt and
// pebble are kept in os.TempDir()/tambala-growth, with a marker file
// beside them; PostgreSQL in the schemas growth_1e3 and growth_1e6, with
// a growth_marker table. A store without its marker is
// seeded again (while one run seeds a store, a .seeding file beside the
// markers makes other runs skip it); delete the directory or drop the
// schemas to start over.
//
//	export TAMBALA_PG_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
//	go test -run XXX -bench 'BenchmarkGrowth$' -benchtime 1x -timeout 3h .   # seeds, once
//	go test -run XXX -bench 'BenchmarkGrowth$/././(page|deep|queue|startup)' -benchtime 1s .
//	go test -run XXX -bench 'BenchmarkGrowth$/././filter' -benchtime 1x .   # the scans: minutes at 1e6
//
// (docs/performance.md, "Growth", runs each arm's 1e3 and 1e6 back to
// back.) Nothing runs without -bench.
func BenchmarkGrowth(b *testing.B) {
	ctx := context.Background()
	for _, st := range growthStores {
		b.Run(st.name, func(b *testing.B) {
			for _, size := range growthSizes {
				b.Run(size.name, func(b *testing.B) {
					s, m := openGrowth(b, st, size)
					e, err := tambala.New(s, growthOptions(s))
					if err != nil {
						b.Fatal(err)
					}
					p := actFor(e, m.Org)
					for _, w := range growthWhats {
						b.Run(w.name, func(b *testing.B) {
							if w.name != "payouts-filter-none" { // a full page, checked once (not the scan: it costs a whole read)
								if n, err := w.call(ctx, e, p, m); err != nil || n != tambala.DefaultPageSize {
									b.Fatalf("%d items, %v", n, err)
								}
							}
							b.ReportAllocs()
							b.ResetTimer()
							for range b.N {
								if _, err := w.call(ctx, e, p, m); err != nil {
									b.Fatal(err)
								}
							}
							b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
						})
					}
					if err := s.Close(); err != nil {
						b.Fatal(err)
					}
					b.Run("startup", func(b *testing.B) {
						b.ReportAllocs()
						for range b.N {
							s := st.open(b, size.name, false)
							e, err := tambala.New(s, growthOptions(s))
							if err != nil {
								b.Fatal(err)
							}
							orgs, err := e.Operator().Organizations(ctx)
							if err != nil || len(orgs) != 1 {
								b.Fatalf("%d organizations, %v", len(orgs), err)
							}
							if err := s.Close(); err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/start")
					})
					n := st.bytes(b, size.name)
					b.Logf("%s %s on disk: %d bytes for %d payouts, %d orders and %d conversions (%.0f bytes a record)",
						st.name, size.name, n, m.Payouts, m.Orders, m.Conversions, float64(n)/float64(m.Payouts+m.Orders+m.Conversions))
				})
			}
		})
	}
}

// growthClock is a clock the bytes benchmark moves past the idempotency
// retention.
type growthClock struct{ at atomic.Int64 }

func (c *growthClock) Now() time.Time      { return time.Unix(0, c.at.Load()) }
func (c *growthClock) Set(t time.Time)     { c.at.Store(t.UnixNano()) }
func (c *growthClock) Add(d time.Duration) { c.at.Add(int64(d)) }

// BenchmarkGrowthBytes measures the bytes on disk one accepted payout
// costs each store, and what pruning its idempotency outcome gives back:
// a fresh store with one organization takes GROWTH_BYTES_N payouts (default
// 100,000; 1500.00 MWK to a momo wallet, acceptOne's body, 64
// goroutines, fsync off), then the clock moves past the retention (72 h)
// and Work.PruneIdempotency runs until it deletes nothing. The sizes:
// the bbolt file (and its bytes in use: file less free pages), the pebble
// directory (after a full manual compaction, which drops the deleted
// keys), PostgreSQL's pg_total_relation_size of the schema's tables
// (after VACUUM FULL). The metric is bytes per payout over the empty
// organization's store. Run it once:
//
//	go test -run XXX -bench BenchmarkGrowthBytes -benchtime 1x .
func BenchmarkGrowthBytes(b *testing.B) {
	n := 100_000
	if v := os.Getenv("GROWTH_BYTES_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	type sized struct {
		s     store.Store
		bytes func(b *testing.B, s store.Store) (store.Store, int64) // may close and reopen
	}
	kinds := []struct {
		name string
		open func(b *testing.B) sized
	}{
		{"bbolt", func(b *testing.B) sized {
			path := filepath.Join(b.TempDir(), "tambala.bolt")
			s, err := boltstore.Open(path, &boltstore.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			return sized{s, func(b *testing.B, s store.Store) (store.Store, int64) {
				// The bytes in use: the file less its free pages.
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				db, err := bolt.Open(path, 0o600, nil)
				if err != nil {
					b.Fatal(err)
				}
				st := db.Stats()
				var used int64
				if err := db.View(func(tx *bolt.Tx) error { used = tx.Size(); return nil }); err != nil {
					b.Fatal(err)
				}
				free := int64(st.FreePageN+st.PendingPageN) * int64(db.Info().PageSize)
				fi, _ := os.Stat(path)
				db.Close()
				b.Logf("bbolt file %d bytes, high-water mark %d bytes, %d of them free", fi.Size(), used, free)
				s, err = boltstore.Open(path, &boltstore.Options{NoSync: true})
				if err != nil {
					b.Fatal(err)
				}
				return s, used - free
			}}
		}},
		{"pebble", func(b *testing.B) sized {
			dir := filepath.Join(b.TempDir(), "pebble")
			s, err := pebblestore.Open(dir, &pebblestore.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			return sized{s, func(b *testing.B, s store.Store) (store.Store, int64) {
				// Flushed and fully compacted: the live keys' bytes.
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				// The store's format and filters (pebblestore.Open).
				popts := &pebble.Options{Logger: silentPebble{}, FormatMajorVersion: pebble.FormatTableFormatV6}
				popts.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
				db, err := pebble.Open(dir, popts)
				if err != nil {
					b.Fatal(err)
				}
				if err := db.Flush(); err != nil {
					b.Fatal(err)
				}
				if err := db.Compact(ctx, []byte{0}, []byte{0xff, 0xff, 0xff, 0xff}, true); err != nil {
					b.Fatal(err)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
				size := dirBytes(b, dir)
				s, err = pebblestore.Open(dir, &pebblestore.Options{NoSync: true})
				if err != nil {
					b.Fatal(err)
				}
				return s, size
			}}
		}},
		{"pg", func(b *testing.B) sized {
			base, schema := teststores.NewPGSchema(b)
			u, _ := url.Parse(base)
			q := u.Query()
			q.Set("synchronous_commit", "off")
			u.RawQuery = q.Encode()
			s, err := pgstore.Open(ctx, u.String(), &pgstore.Options{Schema: schema, MaxConns: 16})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return sized{s, func(b *testing.B, s store.Store) (store.Store, int64) {
				growthPGExec(b, `VACUUM FULL `+pgx.Identifier{schema, "tambala_kv"}.Sanitize()).Close()
				rows := growthPGExec(b, `SELECT encode(bucket, 'escape'), count(*), sum(octet_length(key) + octet_length(value))::bigint FROM `+
					pgx.Identifier{schema, "tambala_kv"}.Sanitize()+` GROUP BY 1 ORDER BY 3 DESC`)
				for rows.Next() {
					var bucket string
					var n, size int64
					if err := rows.Scan(&bucket, &n, &size); err != nil {
						b.Fatal(err)
					}
					b.Logf("bucket %-28s %8d keys %10d bytes of keys and values", bucket, n, size)
				}
				rows.Close()
				return s, pgSchemaBytes(b, schema)
			}}
		}},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			if k.name == "pg" && !teststores.PGAvailable(b) {
				b.Skip("no PostgreSQL answers (set TAMBALA_PG_URL)")
			}
			for range b.N {
				z := k.open(b)
				s := z.s
				clock := &growthClock{}
				clock.Set(time.Now())
				opts := growthOptions(s)
				opts.Clock = clock.Now
				e, p := benchEngineWith(b, s, opts)
				s, empty := z.bytes(b, s)
				e, err := tambala.New(s, opts)
				if err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				err = parallelN(n, func(int) error {
					_, err := createFromBody(ctx, e, p, payouts.Momo, uuid.NewString(), []byte(benchBody))
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("%d payouts in %v", n, time.Since(t0).Round(time.Millisecond))
				s, full := z.bytes(b, s)
				if e, err = tambala.New(s, opts); err != nil {
					b.Fatal(err)
				}
				clock.Add(73 * time.Hour)
				pruned := 0
				for {
					k, err := e.Work().PruneIdempotency(ctx, 1000)
					if err != nil {
						b.Fatal(err)
					}
					if pruned += k; k == 0 {
						break
					}
				}
				if pruned != n {
					b.Fatalf("pruned %d outcomes, want %d", pruned, n)
				}
				s, after := z.bytes(b, s)
				if err := ledger.CheckStore(ctx, s); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(full-empty)/float64(n), "bytes/payout")
				b.ReportMetric(float64(after-empty)/float64(n), "bytes/payout-pruned")
				b.ReportMetric(float64(empty), "bytes-empty")
				if k.name != "pg" { // pg: closed by the cleanup
					if err := s.Close(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// benchEngineWith is benchEngineOn over an engine on s with opts.
func benchEngineWith(b *testing.B, s store.Store, opts *tambala.Options) (*tambala.Engine, tambala.Principal) {
	e, err := tambala.New(s, opts)
	if err != nil {
		b.Fatal(err)
	}
	return benchEngineOn(b, e)
}
