package tambala_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// crashingLazyStore is a store whose lazy commits (store.Lazy) a crash
// loses once lose is set: the function runs, and what it wrote is
// dropped, as if the machine had stopped before the commit was durable.
type crashingLazyStore struct {
	store.Store
	lazy atomic.Int64 // lazy commits asked for
	lose atomic.Bool
}

var errLostAtCrash = errors.New("test: lost at a crash")

func (s *crashingLazyStore) UpdateLazy(ctx context.Context, fn func(store.Tx) error) error {
	s.lazy.Add(1)
	if !s.lose.Load() {
		return s.Store.Update(ctx, fn)
	}
	err := s.Store.Update(ctx, func(tx store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errLostAtCrash
	})
	if errors.Is(err, errLostAtCrash) {
		return nil
	}
	return err
}

// TestQuotesCommitLazily checks that both kinds of quote commit through
// the store's lazy commit, through the engine's wrappers of the store
// (with tracing on and off), and that a quote a crash lost is, to the
// create that spends it, a quote never issued: the same answer, and no
// money moved.
func TestQuotesCommitLazily(t *testing.T) {
	for _, traced := range []bool{false, true} {
		name := "untraced"
		if traced {
			name = "traced"
		}
		t.Run(name, func(t *testing.T) {
			s := &crashingLazyStore{Store: memstore.New()}
			d := newDeskEnv(t, s, func(o *tambala.Options) {
				o.Converter = sandbox.NewConverter(nil)
				if traced {
					o.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
				}
			})
			ctx := d.ctx
			// One organization that converts, beside the desk's.
			conv := d.newOrg(t, "Converts", convAssets())
			require.NoError(t, d.e.Operator().Fund(ctx, conv.ID, money.FromInt(money.USDT, 100), "conv"))
			c := d.e.Client(actFor(d.e, conv.ID))
			convReq := quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("1")}

			// Kept quotes are spent as ever.
			before := s.lazy.Load()
			d.toBank(t, "1")
			require.Equal(t, before+1, s.lazy.Load(), "an order quote commits lazily")
			q, err := c.QuoteConversion(ctx, convReq)
			require.NoError(t, err)
			require.Equal(t, before+2, s.lazy.Load(), "a conversion quote commits lazily")
			_, err = c.CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: d.next("key")})
			require.NoError(t, err)

			// A crash loses the next quotes: their creates answer as for
			// ids never issued, and move nothing.
			s.lose.Store(true)
			usdt, mwk := map[string]ledger.Balance{}, map[string]ledger.Balance{}
			for _, org := range []string{d.org.ID, conv.ID} {
				usdt[org], mwk[org] = d.balance(t, org, money.USDT), d.balance(t, org, money.MWK)
			}
			lostOrder := d.quote(t, "USDT", "MWK", "1")
			_, err = d.createFor(d.p, lostOrder.ID, d.next("ref"), deskBeneficiary(), d.next("key"))
			_, never := d.createFor(d.p, "01900000-0000-7000-8000-000000000000", d.next("ref"), deskBeneficiary(), d.next("key"))
			requireCode(t, errcode.NotFound, never)
			require.Equal(t, never.Error(), err.Error(), "a lost order quote is answered as an unknown one")

			lostConv, err := c.QuoteConversion(ctx, convReq)
			require.NoError(t, err)
			_, err = c.CreateConversion(ctx, tambala.NewConversion{QuoteID: lostConv.ID}, tambala.Idempotency{Key: d.next("key")})
			_, never = c.CreateConversion(ctx, tambala.NewConversion{QuoteID: "01900000-0000-7000-8000-000000000000"}, tambala.Idempotency{Key: d.next("key")})
			requireCode(t, errcode.NotFound, never)
			require.Equal(t, never.Error(), err.Error(), "a lost conversion quote is answered as an unknown one")

			for _, org := range []string{d.org.ID, conv.ID} {
				require.Equal(t, usdt[org], d.balance(t, org, money.USDT), "a create of a lost quote moved USDT")
				require.Equal(t, mwk[org], d.balance(t, org, money.MWK), "a create of a lost quote moved MWK")
			}
			d.check(t)
		})
	}
}
