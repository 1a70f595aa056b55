package tambala_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// The rapid model of conversions: random quotes in both directions,
// creates (some short of funds), scripted failures, clock moves and worker
// passes. After every step the ledger invariants hold (ledger.CheckStore),
// each asset is conserved (the organization's available and held plus the
// desk equal what was funded), the organization's balances are the
// model's, and no conversion is both released and credited: a failed one
// credited nothing and a completed one released nothing.
func TestConversionRapid(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		cases := 0
		rapid.Check(t, func(rt *rapid.T) {
			if cases++; cases > rapidCases(name) {
				return
			}
			s := open()
			defer s.Close()
			conversionsProperty(rt, s)
		})
	})
}

func conversionsProperty(rt *rapid.T, s store.Store) {
	{
		c := newConvEnv(rt, s)
		type model struct {
			from, to money.Amount
			status   tambala.ConversionStatus
			fail     bool
		}
		convs := map[string]*model{}
		var ids []string
		avail := map[money.Asset]money.Amount{money.USDT: money.FromInt(money.USDT, 1000), money.MWK: money.FromInt(money.MWK, 100000)}
		held := map[money.Asset]money.Amount{money.USDT: money.Zero(money.USDT), money.MWK: money.Zero(money.MWK)}
		funded := map[money.Asset]money.Amount{money.USDT: avail[money.USDT], money.MWK: avail[money.MWK]}
		add := func(a, b money.Amount) money.Amount { s, err := a.Add(b); must(rt, err); return s }
		sub := func(a, b money.Amount) money.Amount { s, err := a.Sub(b); must(rt, err); return s }

		check := func() {
			must(rt, ledger.CheckStore(c.ctx, c.s))
			for _, a := range []money.Asset{money.USDT, money.MWK} {
				b := c.balance(rt, c.org.ID, a)
				if b.Available.Cmp(avail[a]) != 0 || b.Held.Cmp(held[a]) != 0 {
					rt.Fatalf("%s: engine %s/%s, model %s/%s", a.Code, b.Available, b.Held, avail[a], held[a])
				}
				total := add(add(b.Available, b.Held), deskAccount(rt, c.deskEnv, a))
				if total.Cmp(funded[a]) != 0 {
					rt.Fatalf("%s not conserved: %s, funded %s", a.Code, total, funded[a])
				}
			}
			for _, id := range ids {
				got, err := c.e.Client(c.p).Conversion(c.ctx, id)
				must(rt, err)
				m := convs[id]
				if got.Status != m.status {
					rt.Fatalf("conversion %s: engine %s, model %s", id, got.Status, m.status)
				}
				if (got.Failure != nil) != (got.Status == tambala.ConversionFailed) {
					rt.Fatalf("conversion %s: %s with failure %v", id, got.Status, got.Failure)
				}
			}
		}
		// settleModel applies what the worker does once the delay has
		// passed: every processing conversion ends.
		settleModel := func() {
			for _, id := range ids {
				m := convs[id]
				if m.status != tambala.ConversionProcessing {
					continue
				}
				held[m.from.Asset()] = sub(held[m.from.Asset()], m.from)
				if m.fail {
					m.status = tambala.ConversionFailed
					avail[m.from.Asset()] = add(avail[m.from.Asset()], m.from)
				} else {
					m.status = tambala.ConversionCompleted
					avail[m.to.Asset()] = add(avail[m.to.Asset()], m.to)
				}
			}
		}
		steps := rapid.IntRange(1, 25).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			switch rapid.IntRange(0, 3).Draw(rt, "action") {
			case 0, 1: // quote and create
				var from, to string
				var amt string
				if rapid.Bool().Draw(rt, "usdt") {
					from, to = "USDT", "MWK"
					amt = money.FromInt(money.USDT, int64(rapid.IntRange(1, 400).Draw(rt, "usdt_amount"))).String()
				} else {
					from, to = "MWK", "USDT"
					amt = money.FromInt(money.MWK, int64(rapid.IntRange(1, 60000).Draw(rt, "mwk_amount"))).String()
				}
				q, err := c.e.Client(c.p).QuoteConversion(c.ctx, quotes.Request{FromAsset: money.AssetCode(from), ToAsset: money.AssetCode(to), FromAmount: money.DecimalText(amt)})
				must(rt, err)
				cr, err := c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: c.next("r")})
				fa := q.From.Asset()
				if avail[fa].Cmp(q.From) < 0 {
					if errcode.Of(err) != errcode.InsufficientFunds {
						rt.Fatalf("want insufficient_funds, got %v", err)
					}
					break
				}
				must(rt, err)
				id := cr.Resource.ID
				m := &model{from: q.From, to: q.To, status: tambala.ConversionProcessing}
				if rapid.IntRange(0, 3).Draw(rt, "fails") == 0 {
					m.fail = true
					c.conv.ScriptFailure(id, tambala.ConversionProviderDeclined)
				}
				convs[id] = m
				ids = append(ids, id)
				avail[fa] = sub(avail[fa], q.From)
				held[fa] = add(held[fa], q.From)
			case 2: // a worker pass before the delay: nothing ends
				_, err := c.e.Work().ProcessConversions(c.ctx)
				must(rt, err)
			case 3: // past the delay: every processing one ends
				c.clock.Advance(convDelay + time.Millisecond)
				_, err := c.e.Work().ProcessConversions(c.ctx)
				must(rt, err)
				// Conversions not yet submitted get submitted now and end after
				// a further delay.
				c.clock.Advance(convDelay + time.Millisecond)
				_, err = c.e.Work().ProcessConversions(c.ctx)
				must(rt, err)
				settleModel()
			}
			check()
		}
	}
}

func must(t interface{ Fatalf(string, ...any) }, err error) {
	if err != nil {
		t.Fatalf("%v", err)
	}
}
