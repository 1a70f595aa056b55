package ledger_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	bolt "go.etcd.io/bbolt"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
)

// Ledger throughput: each op is one store.Update posting one command (a
// PlaceHold of 1.00 MWK, or a CaptureHold of such a hold with a fee),
// beside a baseline that writes the same records (same count and sizes)
// with no ledger logic: a bare map under a mutex for memstore, raw bbolt
// for boltstore. The commands are built before the timer starts, as a
// caller arrives with its ids; what is timed is the ledger and the store.
//
//	go test -run XXX -bench 'Ledger' -benchtime 2s ./ledger/

const benchParallelism = 32

var benchCredit = ledger.Credit{EntryID: "bench-credit", Org: org, Amount: mw(1 << 50)}

// op is a benchmarked command kind: prepare funds s and posts whatever the
// commands need (untimed), then returns n commands to time.
type op struct {
	name    string
	prepare func(b *testing.B, s store.Store, n int) []ledger.Command
}

var ops = []op{
	{"hold", func(b *testing.B, s store.Store, n int) []ledger.Command {
		if _, err := post(s, benchCredit); err != nil {
			b.Fatal(err)
		}
		cmds := make([]ledger.Command, n)
		for i := range cmds {
			id := strconv.Itoa(i)
			cmds[i] = ledger.PlaceHold{EntryID: "e-" + id, HoldID: "h-" + id, Org: org, Amount: mw(100), At: t0}
		}
		return cmds
	}},
	{"capture", func(b *testing.B, s store.Store, n int) []ledger.Command {
		if _, err := post(s, benchCredit); err != nil {
			b.Fatal(err)
		}
		cmds := make([]ledger.Command, n)
		const chunk = 1000 // holds placed many per transaction, to set up fast
		for from := 0; from < n; from += chunk {
			err := s.Update(bg, func(tx store.Tx) error {
				for i := from; i < min(from+chunk, n); i++ {
					id := strconv.Itoa(i)
					if _, err := ledger.Post(tx, ledger.PlaceHold{EntryID: "e-" + id, HoldID: "h-" + id, Org: org, Amount: mw(100), At: t0}); err != nil {
						return err
					}
					cmds[i] = ledger.CaptureHold{EntryID: "c-" + id, HoldID: "h-" + id, Amount: mw(90), Fee: mw(5), At: t0}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		return cmds
	}},
}

// record is one Put a command makes; unique says its key is new for every
// command (a hold, an entry), as opposed to a balance overwritten.
type record struct {
	bucket, key, value []byte
	unique             bool
}

// opRecords measures what one real command of o writes.
func opRecords(b *testing.B, o op) []record {
	s := memstore.New()
	defer s.Close()
	cmd := o.prepare(b, s, 1)[0]
	rec := &recordingTx{}
	err := s.Update(bg, func(tx store.Tx) error {
		rec.Tx = tx
		_, err := ledger.Post(rec, cmd)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range rec.puts {
		// Ids of the one command are "e-0", "h-0", "c-0".
		k := rec.puts[i].key
		rec.puts[i].unique = bytes.HasSuffix(k, []byte("-0"))
	}
	return rec.puts
}

type recordingTx struct {
	store.Tx
	puts []record
}

func (r *recordingTx) Put(bucket, key, value []byte) error {
	r.puts = append(r.puts, record{bucket: bytes.Clone(bucket), key: bytes.Clone(key), value: bytes.Clone(value)})
	return r.Tx.Put(bucket, key, value)
}

func report(b *testing.B, unit string) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit+"/s")
}

// benchLedger posts b.N commands of o, serially or from parallel goroutines.
func benchLedger(b *testing.B, s store.Store, o op, parallel bool) {
	cmds := o.prepare(b, s, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		var cmd ledger.Command
		fn := func(tx store.Tx) error { _, err := ledger.Post(tx, cmd); return err }
		for i := range b.N {
			cmd = cmds[i]
			if err := s.Update(bg, fn); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		var n atomic.Int64
		b.SetParallelism(benchParallelism)
		b.RunParallel(func(pb *testing.PB) {
			var cmd ledger.Command
			fn := func(tx store.Tx) error { _, err := ledger.Post(tx, cmd); return err }
			for pb.Next() {
				cmd = cmds[n.Add(1)-1]
				if err := s.Update(bg, fn); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.StopTimer()
	report(b, o.name+"s")
}

// uniqueKey is rec's key made unique for command i, as long as the real one.
func uniqueKey(rec record, i int64) []byte {
	k := strconv.AppendInt(append(make([]byte, 0, len(rec.key)+20), 'k'), i, 10)
	for len(k) < len(rec.key) {
		k = append(k, '_')
	}
	return k
}

// BenchmarkLedgerMemstore compares commands on memstore with a bare map
// under a mutex doing the same puts.
func BenchmarkLedgerMemstore(b *testing.B) {
	for _, o := range ops {
		recs := opRecords(b, o)
		b.Logf("one %s writes %d records: %s", o.name, len(recs), describeRecords(recs))
		b.Run(o.name+"/serial/ledger", func(b *testing.B) { benchLedger(b, memstore.New(), o, false) })
		b.Run(o.name+"/parallel/ledger", func(b *testing.B) { benchLedger(b, memstore.New(), o, true) })

		mapPuts := func(mu *sync.Mutex, m map[string][]byte, i int64) {
			mu.Lock()
			for _, r := range recs {
				key := r.key
				if r.unique {
					key = uniqueKey(r, i)
				}
				m[string(r.bucket)+"\x00"+string(key)] = bytes.Clone(r.value)
			}
			mu.Unlock()
		}
		b.Run(o.name+"/serial/baseline-map", func(b *testing.B) {
			var mu sync.Mutex
			m := map[string][]byte{}
			b.ReportAllocs()
			for i := range b.N {
				mapPuts(&mu, m, int64(i))
			}
			report(b, o.name+"s")
		})
		b.Run(o.name+"/parallel/baseline-map", func(b *testing.B) {
			var mu sync.Mutex
			m := map[string][]byte{}
			var n atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(benchParallelism)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mapPuts(&mu, m, n.Add(1))
				}
			})
			report(b, o.name+"s")
		})
	}
}

// BenchmarkLedgerBoltstore compares commands on boltstore (fsync on) with
// raw bbolt transactions on a file with the same options doing the same
// puts.
func BenchmarkLedgerBoltstore(b *testing.B) {
	for _, o := range ops {
		recs := opRecords(b, o)
		openStore := func(b *testing.B) store.Store {
			s, err := boltstore.Open(filepath.Join(b.TempDir(), "db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}
		b.Run(o.name+"/serial/ledger", func(b *testing.B) { benchLedger(b, openStore(b), o, false) })
		b.Run(o.name+"/parallel/ledger", func(b *testing.B) { benchLedger(b, openStore(b), o, true) })

		openBolt := func(b *testing.B) *bolt.DB {
			db, err := bolt.Open(filepath.Join(b.TempDir(), "db"), 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			if err := db.Update(func(tx *bolt.Tx) error {
				for _, r := range recs {
					if _, err := tx.CreateBucketIfNotExists(r.bucket); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			return db
		}
		boltPuts := func(i int64) func(tx *bolt.Tx) error {
			return func(tx *bolt.Tx) error {
				for _, r := range recs {
					key := r.key
					if r.unique {
						key = uniqueKey(r, i)
					}
					if err := tx.Bucket(r.bucket).Put(key, r.value); err != nil {
						return err
					}
				}
				return nil
			}
		}
		// bbolt's Batch waits MaxBatchDelay (10ms) for company, so a serial
		// caller pays it on every command; Update is the serial baseline
		// that does not.
		b.Run(o.name+"/serial/baseline-bolt-update", func(b *testing.B) {
			db := openBolt(b)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := db.Update(boltPuts(int64(i))); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			report(b, o.name+"s")
		})
		b.Run(o.name+"/parallel/baseline-bolt-batch", func(b *testing.B) {
			db := openBolt(b)
			var n atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.SetParallelism(benchParallelism)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := db.Batch(boltPuts(n.Add(1))); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			report(b, o.name+"s")
		})
	}
}

func describeRecords(recs []record) string {
	var out []byte
	for i, r := range recs {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = strconv.AppendQuote(out, string(r.bucket))
		out = append(out, ' ')
		out = strconv.AppendInt(out, int64(len(r.key)), 10)
		out = append(out, '+')
		out = strconv.AppendInt(out, int64(len(r.value)), 10)
		out = append(out, 'B')
	}
	return string(out)
}

// BenchmarkLedgerPebblestore runs the parallel arms of
// BenchmarkLedgerBoltstore on pebblestore (fsync on), beside boltstore
// in the same function; raw bbolt Batch, the baseline, is
// BenchmarkLedgerBoltstore's:
//
//	go test -run XXX -bench 'Ledger(Pebblestore|Boltstore)/.*/parallel' -benchtime 2s ./ledger/
func BenchmarkLedgerPebblestore(b *testing.B) {
	for _, o := range ops {
		b.Run(o.name+"/parallel/pebblestore", func(b *testing.B) {
			s, err := pebblestore.Open(filepath.Join(b.TempDir(), "db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			benchLedger(b, s, o, true)
		})
		b.Run(o.name+"/parallel/boltstore", func(b *testing.B) {
			s, err := boltstore.Open(filepath.Join(b.TempDir(), "db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			benchLedger(b, s, o, true)
		})
	}
}

// BenchmarkLedgerPgstore compares commands on pgstore, with group commit
// on and off, with raw pgx transactions doing the same puts (the same
// records, upserted in one batch per transaction) on the same table
// layout. Each arm uses a schema of its own on the server
// internal/teststores selects (skipped when none answers).
func BenchmarkLedgerPgstore(b *testing.B) {
	for _, o := range ops {
		recs := opRecords(b, o)
		for _, m := range []struct {
			name string
			opts pgstore.Options
		}{
			{"group-commit", pgstore.Options{MaxConns: 32}},
			{"no-group-commit", pgstore.Options{MaxConns: 32, NoGroupCommit: true}},
		} {
			openStore := func(b *testing.B) store.Store { return teststores.Pgstore(&m.opts).Open(b) }
			b.Run(o.name+"/serial/ledger-"+m.name, func(b *testing.B) { benchLedgerGivingUp(b, openStore(b), o, false) })
			b.Run(o.name+"/parallel/ledger-"+m.name, func(b *testing.B) { benchLedgerGivingUp(b, openStore(b), o, true) })
		}

		openPool := func(b *testing.B) (*pgxpool.Pool, string) {
			url, schema := teststores.NewPGSchema(b)
			cfg, err := pgxpool.ParseConfig(url)
			if err != nil {
				b.Fatal(err)
			}
			cfg.MaxConns = 32
			pool, err := pgxpool.NewWithConfig(bg, cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(pool.Close)
			if err := pgstore.Migrate(bg, pool, schema); err != nil {
				b.Fatal(err)
			}
			return pool, "INSERT INTO " + pgx.Identifier{schema, "tambala_kv"}.Sanitize() +
				" (bucket, key, value) VALUES ($1, $2, $3) ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value"
		}
		pgxPuts := func(pool *pgxpool.Pool, upsert string, i int64) error {
			return pgx.BeginFunc(bg, pool, func(tx pgx.Tx) error {
				var batch pgx.Batch
				for _, r := range recs {
					key := r.key
					if r.unique {
						key = uniqueKey(r, i)
					}
					batch.Queue(upsert, r.bucket, key, r.value)
				}
				return tx.SendBatch(bg, &batch).Close()
			})
		}
		b.Run(o.name+"/serial/baseline-pgx", func(b *testing.B) {
			pool, upsert := openPool(b)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := pgxPuts(pool, upsert, int64(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			report(b, o.name+"s")
		})
		b.Run(o.name+"/parallel/baseline-pgx", func(b *testing.B) {
			pool, upsert := openPool(b)
			var n atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.SetParallelism(benchParallelism)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := pgxPuts(pool, upsert, n.Add(1)); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			report(b, o.name+"s")
		})
	}
}

// benchLedgerGivingUp is benchLedger for a store whose Update may give up
// with store.ErrConflict (pgstore without group commit, its retries spent
// on a hot balance): such commands are counted (gaveup/op), not fatal, and
// the rate counts the commands that committed.
func benchLedgerGivingUp(b *testing.B, s store.Store, o op, parallel bool) {
	cmds := o.prepare(b, s, b.N)
	var n, failed atomic.Int64
	post1 := func() bool {
		cmd := cmds[n.Add(1)-1]
		_, err := post(s, cmd)
		switch {
		case err == nil:
		case errors.Is(err, store.ErrConflict):
			failed.Add(1)
		default:
			b.Error(err)
			return false
		}
		return true
	}
	b.ReportAllocs()
	b.ResetTimer()
	if parallel {
		b.SetParallelism(benchParallelism)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !post1() {
					return
				}
			}
		})
	} else {
		for range b.N {
			if !post1() {
				b.FailNow()
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(int64(b.N)-failed.Load())/b.Elapsed().Seconds(), o.name+"s/s")
	b.ReportMetric(float64(failed.Load())/float64(b.N), "gaveup/op")
}
