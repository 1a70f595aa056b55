package tambala_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// benchV2Engine returns an engine on s with a sandbox payout provider and
// converter (neither worker runs: the accept path only), the MWK corridor
// open (deskCorridor: 1750.5 off-ramp, 1800 on-ramp, 1000.00 MWK minimum),
// and one organization with /v2 enabled, payout, collection and convert
// on MWK and USDT, no asset limits, and large MWK and USDT balances.
func benchV2Engine(b *testing.B, s store.Store) (*tambala.Engine, tambala.Principal) {
	b.Helper()
	e, err := tambala.New(s, &tambala.Options{
		Payouts:   sandbox.New(nil),
		Converter: sandbox.NewConverter(nil),
	})
	if err != nil {
		b.Fatal(err)
	}
	return e, actFor(e, benchV2Org(b, e, "Bench v2"))
}

// benchV2Org creates the /v2 benchmarks' organization on e (see
// benchV2Engine) and returns its id.
func benchV2Org(b *testing.B, e *tambala.Engine, name string) string {
	b.Helper()
	ctx := context.Background()
	op := e.Operator()
	org, err := op.CreateOrganization(ctx, tambala.NewOrganization{Name: name, Assets: convAssets(), V2Access: tambala.V2Enabled})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := op.SetPayoutLimits(ctx, org.ID, tambala.PayoutLimits{DailyVolumeMWK: money.FromInt(money.MWK, 1_000_000_000_000), HourlyCount: 1 << 30}); err != nil {
		b.Fatal(err)
	}
	if _, err := op.Desk().SetCorridor(ctx, deskCorridor()); err != nil {
		b.Fatal(err)
	}
	if err := op.Fund(ctx, org.ID, money.FromInt(money.USDT, 1_000_000_000), "bench-usdt"); err != nil {
		b.Fatal(err)
	}
	if err := op.Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000_000_000), "bench-mwk"); err != nil {
		b.Fatal(err)
	}
	return org.ID
}

// The /v2 creates, each what one API call or one desk action does.
const (
	benchOrderUSDT = "1"    // to-bank: 1750.50 MWK, above the 1000.00 minimum
	benchConvUSDT  = "1"    // USDT to MWK
	benchWalletPay = "5"    // USDT to a sandbox tron wallet, same asset
	benchFXMWK     = "1500" // MWK to a momo wallet, from USDT
)

// benchOrder quotes USDT to MWK and creates the to-bank order, with a
// fresh client_ref and idempotency key; it returns the order's id.
func benchOrder(e *tambala.Engine, p tambala.Principal) (string, error) {
	ctx := context.Background()
	c := e.Client(p)
	q, err := c.QuoteOrder(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText(benchOrderUSDT)})
	if err != nil {
		return "", err
	}
	o, err := c.CreateOrder(ctx, tambala.NewOrder{QuoteID: q.ID, ClientRef: uuid.NewString(), Beneficiary: deskBeneficiary()},
		tambala.Idempotency{Key: uuid.NewString()})
	if err != nil {
		return "", err
	}
	return o.Resource.ID, nil
}

// benchConversion quotes USDT to MWK and creates the conversion.
func benchConversion(b *testing.B, e *tambala.Engine, p tambala.Principal) {
	ctx := context.Background()
	c := e.Client(p)
	q, err := c.QuoteConversion(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText(benchConvUSDT)})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: uuid.NewString()}); err != nil {
		b.Fatal(err)
	}
}

// benchPayoutV2 creates one /v2 payout.
func benchPayoutV2(b *testing.B, e *tambala.Engine, p tambala.Principal, req tambala.PayoutV2Request) {
	if _, err := e.Client(p).CreatePayout(context.Background(), req, tambala.Idempotency{Key: uuid.NewString()}); err != nil {
		b.Fatal(err)
	}
}

var (
	benchWalletReq = tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "USDT", Amount: money.DecimalText(benchWalletPay),
		Destination: tambala.PayoutV2Destination{Type: "wallet", Network: "tron", Address: sandbox.TestWalletAddresses["tron"][0]}}
	benchFXReq = tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "MWK", Amount: money.DecimalText(benchFXMWK),
		Destination: tambala.PayoutV2Destination{Type: "momo", InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Bench"}}
)

// benchV2Op is one operation of BenchmarkV2Create: setup makes the
// engine and principal and returns the call to time.
type benchV2Op struct {
	name  string
	setup func(b *testing.B, s store.Store) func(b *testing.B)
}

func benchV2Ops() []benchV2Op {
	var seq atomic.Int64
	return []benchV2Op{
		{"v1-accept", func(b *testing.B, s store.Store) func(*testing.B) {
			e, p := benchEngine(b, s) // as BenchmarkPayoutAccept
			return func(b *testing.B) { acceptOne(b, e, p, seq.Add(1)) }
		}},
		{"order", func(b *testing.B, s store.Store) func(*testing.B) {
			e, p := benchV2Engine(b, s)
			return func(b *testing.B) {
				if _, err := benchOrder(e, p); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"conversion", func(b *testing.B, s store.Store) func(*testing.B) {
			e, p := benchV2Engine(b, s)
			return func(b *testing.B) { benchConversion(b, e, p) }
		}},
		{"payout", func(b *testing.B, s store.Store) func(*testing.B) {
			e, p := benchV2Engine(b, s)
			return func(b *testing.B) { benchPayoutV2(b, e, p, benchWalletReq) }
		}},
		{"payout-fx", func(b *testing.B, s store.Store) func(*testing.B) {
			e, p := benchV2Engine(b, s)
			return func(b *testing.B) { benchPayoutV2(b, e, p, benchFXReq) }
		}},
		{"desk-move", func(b *testing.B, s store.Store) func(*testing.B) {
			// The b.N orders are created before the timer starts (64 at a
			// time, so that the fsync stores batch them); only the move
			// accepted -> processing is timed.
			e, p := benchV2Engine(b, s)
			ids := make([]string, b.N)
			var next atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for range 64 {
				wg.Go(func() {
					for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
						id, err := benchOrder(e, p)
						if err != nil {
							errs <- err
							return
						}
						ids[i] = id
					}
				})
			}
			wg.Wait()
			close(errs)
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
			var at atomic.Int64
			return func(b *testing.B) {
				id := ids[at.Add(1)-1]
				o, err := e.Operator().Desk().MoveOrder(context.Background(), id, orders.StartProcessing{})
				if err != nil {
					b.Fatal(err)
				}
				if o.Status != orders.Processing {
					b.Fatalf("order %s is %s", id, o.Status)
				}
			}
		}},
	}
}

// BenchmarkV2Create measures the /v2 creates through the engine (no HTTP)
// beside a /v1 payout accept (v1-accept, BenchmarkPayoutAccept's call) on
// every store, as BenchmarkPayoutAccept runs them: memstore serial and 64
// callers, boltstore, pebblestore and pgstore with fsync and 64 callers
// (pgstore where PostgreSQL answers). The operations: order (a quote and a
// to-bank order create), conversion (a quote and a create), payout (a /v2
// USDT payout to a sandbox tron wallet), payout-fx (a /v2 payout of MWK to
// a momo wallet from USDT) and desk-move (Desk.MoveOrder accepted ->
// processing; the orders are made before the timer). Every call has its
// own idempotency key (and client_ref); no worker runs. Each store's
// operations run one after another, so that the ratios to v1-accept are
// taken within one run.
func BenchmarkV2Create(b *testing.B) {
	noSync := os.Getenv("NOSYNC") != ""
	stores := []struct {
		name     string
		parallel bool
		open     func(b *testing.B) store.Store
	}{
		{"memstore/serial", false, func(*testing.B) store.Store { return memstore.New() }},
		{"memstore/parallel64", true, func(*testing.B) store.Store { return memstore.New() }},
		{"boltstore/parallel64", true, func(b *testing.B) store.Store {
			s, err := boltstore.Open(filepath.Join(b.TempDir(), "db"), &boltstore.Options{NoSync: noSync})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
		{"pebblestore/parallel64", true, func(b *testing.B) store.Store {
			s, err := pebblestore.Open(filepath.Join(b.TempDir(), "pebble"), &pebblestore.Options{NoSync: noSync})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
		{"pgstore/parallel64", true, func(b *testing.B) store.Store {
			if !teststores.PGAvailable(b) {
				b.Skip("no PostgreSQL answers (set TAMBALA_PG_URL)")
			}
			return teststores.Pgstore(nil).Open(b)
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			for _, op := range benchV2Ops() {
				b.Run(op.name, func(b *testing.B) {
					call := op.setup(b, st.open(b))
					b.ReportAllocs()
					b.ResetTimer()
					if st.parallel {
						b.SetParallelism(32)
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								call(b)
							}
						})
					} else {
						for range b.N {
							call(b)
						}
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
				})
			}
		})
	}
}
