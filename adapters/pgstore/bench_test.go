package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
)

// Update throughput on PostgreSQL, the shape of a ledger hold: each op
// reads one hot key (an organization's balance) and writes three keys
// (the balance, a new hold, a new journal entry; values of 10, 25 and 94
// bytes). Arms: pgstore with group commit on and off, and two raw pgx
// baselines doing the same writes in a plain transaction per call, one
// with writes only and one that first locks the hot row (SELECT ... FOR
// UPDATE), as a hand-written read-modify-write would. Every arm writes
// the same table layout in a schema of its own.
//
//	go test -run XXX -bench UpdateHotKey -benchtime 2s ./adapters/pgstore/
//
// PGSTORE_BENCH_CONNS sets the pool size of every arm (default 32). The
// parallel arms run 64 callers (SetParallelism(32) on 2 cores: 32 per
// GOMAXPROCS).

var (
	benchBalanceBucket = []byte("ledger.balances")
	benchBalanceKey    = []byte("org-0001/MWK/avail") // 18 bytes
	benchHoldBucket    = []byte("ledger.holds")
	benchEntryBucket   = []byte("ledger.entries")
	benchHoldValue     = make([]byte, 25)
	benchEntryValue    = make([]byte, 94)
)

const benchParallelism = 32

func benchConns(b *testing.B) int32 {
	if v := os.Getenv("PGSTORE_BENCH_CONNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("PGSTORE_BENCH_CONNS=%q", v)
		}
		return int32(n)
	}
	return 32
}

// benchKey is the i-th unique key, "h" or "e" and the number.
func benchKey(prefix byte, i int64) []byte {
	return strconv.AppendInt([]byte{prefix}, i, 10)
}

// hold is one op on the store: read the balance, write it and two new keys.
func hold(tx store.Tx, i int64) error { return holdReading(tx, i, false) }

// holdReading is hold that, with checkIDs, first reads the two new keys
// (missing), as the ledger checks that an id is unused: two reads per op
// that no other op shares.
func holdReading(tx store.Tx, i int64, checkIDs bool) error {
	if checkIDs {
		if _, err := tx.Get(benchHoldBucket, benchKey('h', i)); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("hold %d: %v", i, err)
		}
		if _, err := tx.Get(benchEntryBucket, benchKey('e', i)); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("entry %d: %v", i, err)
		}
	}
	v, err := tx.Get(benchBalanceBucket, benchBalanceKey)
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return err
	}
	if err := tx.Put(benchBalanceBucket, benchBalanceKey, strconv.AppendInt(make([]byte, 0, 10), n-1, 10)); err != nil {
		return err
	}
	if err := tx.Put(benchHoldBucket, benchKey('h', i), benchHoldValue); err != nil {
		return err
	}
	return tx.Put(benchEntryBucket, benchKey('e', i), benchEntryValue)
}

const benchStart = 1_000_000_000 // ten bytes of balance

// runOps runs op b.N times, serially or from 64 goroutines, and reports
// the rate of ops that succeeded. An op that gives up with
// store.ErrConflict (its retries spent on a hot key) is counted, not
// fatal: it returns how many did.
func runOps(b *testing.B, parallel bool, op func(i int64) error) (gaveUp int64) {
	var n, failed atomic.Int64
	do := func() bool {
		err := op(n.Add(1))
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
				if !do() {
					return
				}
			}
		})
	} else {
		for range b.N {
			if !do() {
				b.FailNow()
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(int64(b.N)-failed.Load())/b.Elapsed().Seconds(), "updates/s")
	b.ReportMetric(float64(failed.Load())/float64(b.N), "gaveup/op")
	return failed.Load()
}

func BenchmarkUpdateHotKey(b *testing.B) {
	benchUpdates(b, false)
}

// BenchmarkUpdateHotKeyCheckIDs is BenchmarkUpdateHotKey with two more
// reads per op, of keys no other op reads (see holdReading). The
// baselines are the same as BenchmarkUpdateHotKey's: the same writes.
func BenchmarkUpdateHotKeyCheckIDs(b *testing.B) {
	benchUpdates(b, true)
}

func benchUpdates(b *testing.B, checkIDs bool) {
	type arm struct {
		name string
		opts pgstore.Options
		runs string // the committer's run policy
	}
	for _, parallel := range []bool{false, true} {
		shape := "serial"
		arms := []arm{{"pgstore-GroupCommit", pgstore.Options{}, "auto"}, {"pgstore-NoGroupCommit", pgstore.Options{NoGroupCommit: true}, "auto"}}
		if parallel {
			shape = "parallel64"
			arms = append(arms,
				arm{"pgstore-GroupCommit-inorder", pgstore.Options{}, "in-order"},
				arm{"pgstore-GroupCommit-concurrent", pgstore.Options{}, "concurrent"})
		}
		for _, a := range arms {
			b.Run(shape+"/"+a.name, func(b *testing.B) {
				opts := a.opts
				opts.MaxConns = benchConns(b)
				s := fresh(b, opts)
				s.SetRuns(a.runs)
				ctx := context.Background()
				if err := s.Update(ctx, func(tx store.Tx) error {
					return tx.Put(benchBalanceBucket, benchBalanceKey, strconv.AppendInt(nil, benchStart, 10))
				}); err != nil {
					b.Fatal(err)
				}
				before := s.Stats()
				gaveUp := runOps(b, parallel, func(i int64) error {
					return s.Update(ctx, func(tx store.Tx) error { return holdReading(tx, i, checkIDs) })
				})
				st := s.Stats()
				if c := st.Commits - before.Commits; c > 0 {
					b.ReportMetric(float64(b.N)/float64(c), "updates/commit")
				}
				b.ReportMetric(float64(st.Retries-before.Retries)/float64(b.N), "retries/op")
				b.ReportMetric(float64(st.Reran-before.Reran)/float64(b.N), "reruns/op")
				checkBalance(b, s, b.N-int(gaveUp))
			})
		}
		for _, lock := range []bool{false, true} {
			name := shape + "/baseline-pgx-writes"
			if lock {
				name = shape + "/baseline-pgx-lock-writes"
			}
			b.Run(name, func(b *testing.B) {
				pool, schema := rawPool(b)
				kv := pgx.Identifier{schema, "tambala_kv"}.Sanitize()
				upsert := "INSERT INTO " + kv + " (bucket, key, value) VALUES ($1, $2, $3) ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value"
				lockRow := "SELECT value FROM " + kv + " WHERE bucket = $1 AND key = $2 FOR UPDATE"
				ctx := context.Background()
				if _, err := pool.Exec(ctx, upsert, benchBalanceBucket, benchBalanceKey, strconv.AppendInt(nil, benchStart, 10)); err != nil {
					b.Fatal(err)
				}
				balance := strconv.AppendInt(nil, benchStart-1, 10) // same size as the store's
				runOps(b, parallel, func(i int64) error {
					return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
						if lock {
							var v []byte
							if err := tx.QueryRow(ctx, lockRow, benchBalanceBucket, benchBalanceKey).Scan(&v); err != nil {
								return err
							}
						}
						var batch pgx.Batch
						batch.Queue(upsert, benchBalanceBucket, benchBalanceKey, balance)
						batch.Queue(upsert, benchHoldBucket, benchKey('h', i), benchHoldValue)
						batch.Queue(upsert, benchEntryBucket, benchKey('e', i), benchEntryValue)
						return tx.SendBatch(ctx, &batch).Close()
					})
				})
			})
		}
	}
}

// rawPool opens a pool of the benchmark's size on a fresh schema with
// pgstore's table.
func rawPool(b *testing.B) (*pgxpool.Pool, string) {
	url, schema := teststores.NewPGSchema(b)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = benchConns(b)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	if err := pgstore.Migrate(context.Background(), pool, schema); err != nil {
		b.Fatal(err)
	}
	return pool, schema
}

// checkBalance verifies that no update was lost.
func checkBalance(b *testing.B, s store.Store, n int) {
	err := s.View(context.Background(), func(tx store.Tx) error {
		v, err := tx.Get(benchBalanceBucket, benchBalanceKey)
		if err != nil {
			return err
		}
		if got, want := string(v), strconv.Itoa(benchStart-n); got != want {
			b.Errorf("balance %s after %d updates, want %s", got, n, want)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
