package tambala_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/google/uuid"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// benchEngine returns an engine whose organization can pay out b.N times.
func benchEngine(b *testing.B, s store.Store) (*tambala.Engine, tambala.Principal) {
	e, err := tambala.New(s, nil)
	if err != nil {
		b.Fatal(err)
	}
	return benchEngineOn(b, e)
}

// benchEngineTraced is benchEngine over a memstore with tracing on: every
// span sampled, batched to an exporter that drops them.
func benchEngineTraced(b *testing.B) (*tambala.Engine, tambala.Principal) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithBatcher(discardExporter{}))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	e, err := tambala.New(memstore.New(), &tambala.Options{TracerProvider: tp})
	if err != nil {
		b.Fatal(err)
	}
	return benchEngineOn(b, e)
}

// discardExporter exports spans nowhere.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// benchEngineOn makes a funded organization with limits out of the way.
func benchEngineOn(b *testing.B, e *tambala.Engine) (*tambala.Engine, tambala.Principal) {
	p, err := newBenchOrg(context.Background(), e)
	if err != nil {
		b.Fatal(err)
	}
	return e, p
}

// newBenchOrg makes a funded organization with limits out of the way and
// returns its principal.
func newBenchOrg(ctx context.Context, e *tambala.Engine) (tambala.Principal, error) {
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Bench"})
	if err != nil {
		return tambala.Principal{}, err
	}
	if org, err = e.Operator().SetPayoutLimits(ctx, org.ID, tambala.PayoutLimits{DailyVolumeMWK: money.FromInt(money.MWK, 1_000_000_000_000), HourlyCount: 1 << 30}); err != nil {
		return tambala.Principal{}, err
	}
	if err := e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000_000_000), "bench"); err != nil {
		return tambala.Principal{}, err
	}
	return e.Act(ctx, org.ID)
}

const benchBody = `{"amount_mwk":"1500.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Bench"}`

func acceptOne(b *testing.B, e *tambala.Engine, p tambala.Principal, n int64) {
	// Clients choose random keys (a UUID each, as the reference suggests),
	// so the stored outcomes land all over their index, as in production.
	_, err := createFromBody(context.Background(), e, p, payouts.Momo, uuid.NewString(), []byte(benchBody))
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPayoutAccept measures payout accept through the engine (no
// HTTP): validation, fee, limits, hold, record and idempotency outcome in
// one transaction. The boltstore, pebblestore and pgstore runs use fsync
// (synchronous_commit on); the baselines are a raw bbolt Batch and a raw
// pebble Set with Sync of one record of the same size per call. pgstore
// runs where PostgreSQL answers (teststores' rule).
func BenchmarkPayoutAccept(b *testing.B) {
	var seq atomic.Int64
	b.Run("memstore/serial", func(b *testing.B) {
		e, p := benchEngine(b, memstore.New())
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			acceptOne(b, e, p, seq.Add(1))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
	})
	b.Run("memstore/parallel64", func(b *testing.B) {
		e, p := benchEngine(b, memstore.New())
		b.ReportAllocs()
		b.SetParallelism(32)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				acceptOne(b, e, p, seq.Add(1))
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
	})
	// The same with tracing on: a real SDK tracer provider sampling every
	// span, its batch processor exporting to nothing (the cost of making
	// and exporting the spans, not of a collector).
	b.Run("memstore/serial-traced", func(b *testing.B) {
		e, p := benchEngineTraced(b)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			acceptOne(b, e, p, seq.Add(1))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
	})
	b.Run("memstore/parallel64-traced", func(b *testing.B) {
		e, p := benchEngineTraced(b)
		b.ReportAllocs()
		b.SetParallelism(32)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				acceptOne(b, e, p, seq.Add(1))
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
	})
	parallel := func(b *testing.B, s store.Store) {
		e, p := benchEngine(b, s)
		b.ReportAllocs()
		b.SetParallelism(32)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				acceptOne(b, e, p, seq.Add(1))
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
	}
	noSync := os.Getenv("NOSYNC") != ""
	b.Run("boltstore/parallel64", func(b *testing.B) {
		s, err := boltstore.Open(filepath.Join(b.TempDir(), "db"), &boltstore.Options{NoSync: noSync})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		parallel(b, s)
	})
	b.Run("pebblestore/parallel64", func(b *testing.B) {
		s, err := pebblestore.Open(filepath.Join(b.TempDir(), "pebble"), &pebblestore.Options{NoSync: noSync})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		parallel(b, s)
	})
	b.Run("pgstore/parallel64", func(b *testing.B) {
		if !teststores.PGAvailable(b) {
			b.Skip("no PostgreSQL answers (set TAMBALA_PG_URL)")
		}
		parallel(b, teststores.Pgstore(nil).Open(b))
	})
	b.Run("baseline-pebble-sync/parallel64", func(b *testing.B) {
		db, err := pebble.Open(filepath.Join(b.TempDir(), "raw-pebble"), &pebble.Options{Logger: silentPebble{}})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		value := make([]byte, 2048) // about what one accept writes in all
		b.ReportAllocs()
		b.SetParallelism(32)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := db.Set([]byte(fmt.Sprint("k", seq.Add(1))), value, pebble.Sync); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
	})
	b.Run("baseline-bolt-batch/parallel64", func(b *testing.B) {
		db, err := bolt.Open(filepath.Join(b.TempDir(), "raw"), 0o600, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		value := make([]byte, 2048) // about what one accept writes in all
		b.ReportAllocs()
		b.SetParallelism(32)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				key := []byte(fmt.Sprint("k", seq.Add(1)))
				err := db.Batch(func(tx *bolt.Tx) error {
					bk, err := tx.CreateBucketIfNotExists([]byte("b"))
					if err != nil {
						return err
					}
					return bk.Put(key, value)
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
	})
}

// latencyProvider is the sandbox provider behind a network: every call
// takes a millisecond.
type latencyProvider struct{ *sandbox.Provider }

func (l latencyProvider) Submit(ctx context.Context, s tambala.PayoutSubmission) error {
	time.Sleep(time.Millisecond)
	return l.Provider.Submit(ctx, s)
}

func (l latencyProvider) Status(ctx context.Context, ref string) (tambala.ProviderStatus, error) {
	time.Sleep(time.Millisecond)
	return l.Provider.Status(ctx, ref)
}

// BenchmarkPayoutWorker measures how fast the worker submits a backlog of
// held payouts to a provider whose calls take 1 ms each, one at a time
// (the baseline: Concurrency 1) and eight at a time (the default).
func BenchmarkPayoutWorker(b *testing.B) {
	for _, c := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency%d", c), func(b *testing.B) {
			st := memstore.New()
			prov := latencyProvider{sandbox.New(&sandbox.Options{Delay: time.Hour})}
			e, err := tambala.New(st, &tambala.Options{Payouts: prov, Worker: tambala.WorkerOptions{Concurrency: c, Batch: 100}})
			if err != nil {
				b.Fatal(err)
			}
			_, p := benchEngineOn(b, e)
			for i := range b.N {
				acceptOne(b, e, p, int64(i))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; {
				n, err := e.Work().ProcessPayouts(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				done += n
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "submits/s")
		})
	}
}

// silentPebble drops raw pebble's log lines in the benchmark output.
type silentPebble struct{}

func (silentPebble) Infof(string, ...any)  {}
func (silentPebble) Errorf(string, ...any) {}
func (silentPebble) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// BenchmarkPayoutAcceptDayOfTraffic measures payout accept for an
// organization that has paid out every minute of the last day, so that
// its 24-hour limit window holds a cell for each of 1,440 minutes (the
// steady state of a busy organization), on memstore, one caller.
func BenchmarkPayoutAcceptDayOfTraffic(b *testing.B) {
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	now := start
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e, err := tambala.New(memstore.New(), &tambala.Options{Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	_, p := benchEngineOn(b, e)
	for m := range 24 * 60 {
		mu.Lock()
		now = start.Add(time.Duration(m) * time.Minute)
		mu.Unlock()
		acceptOne(b, e, p, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		acceptOne(b, e, p, 0)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
}
