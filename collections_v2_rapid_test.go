package tambala_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// TestCollectionsV2Rapid: random deposits (fresh, replayed, replayed with
// other figures, on networks that don't carry the asset) and simulated
// collections (valid, or with a wrong network or amount) against a model
// of each organization's available balance, the fees and external
// accounts per asset and the number of /v2 collections; after every step
// the ledger invariants hold (ledger.CheckStore), each asset's accounts
// sum to zero, and the model matches.
func TestCollectionsV2Rapid(t *testing.T) {
	eachStoreKind(t, func(t *testing.T, name string, open func() store.Store) {
		cases := rapidCases(name)
		rapid.Check(t, func(rt *rapid.T) {
			if cases--; cases < 0 {
				return
			}
			runCollectionsV2Model(rt, open())
		})
	})
}

type cv2Deposit struct {
	org, asset, amount string
	id                 string
}

func runCollectionsV2Model(rt *rapid.T, s store.Store) {
	d := newDeskEnv(rt, s, nil)
	other := d.newOrg(rt, "Other", deskAssets())
	orgs := []tambala.Organization{d.org, other}
	avail := map[string]money.Amount{ // org/asset -> available
		d.org.ID + "/USDT": money.FromInt(money.USDT, 1000),
	}
	fees := map[string]money.Amount{}
	external := map[string]money.Amount{}
	count := map[string]int{}
	deposits := map[string]cv2Deposit{} // network/tx_ref
	add := func(m map[string]money.Amount, k string, v money.Amount) {
		cur, ok := m[k]
		if !ok {
			cur = money.Zero(v.Asset())
		}
		sum, err := cur.Add(v)
		require.NoError(rt, err)
		m[k] = sum
	}
	credit := func(org string, c tambala.CollectionV2) {
		require.Equal(rt, c.AmountCredited.String(), mustSub(c.Amount, c.Fee).String(), "amount - fee = amount_credited")
		add(avail, org+"/"+string(c.Asset.Code), c.AmountCredited)
		add(fees, string(c.Asset.Code), c.Fee)
		add(external, string(c.Asset.Code), c.Amount)
		count[org]++
	}
	assets := map[string]money.Asset{"MWK": money.MWK, "USDT": money.USDT}
	amountOf := func(asset string) string {
		if asset == "MWK" {
			return fmt.Sprintf("%d.%02d", rapid.IntRange(0, 2_000_000).Draw(rt, "mwk"), rapid.IntRange(0, 99).Draw(rt, "cents"))
		}
		return fmt.Sprintf("%d.%06d", rapid.IntRange(0, 5000).Draw(rt, "units"), rapid.IntRange(0, 999_999).Draw(rt, "micro"))
	}
	steps := rapid.IntRange(1, 25).Draw(rt, "steps")
	for range steps {
		oi := rapid.IntRange(0, 1).Draw(rt, "org")
		org := orgs[oi]
		switch rapid.IntRange(0, 2).Draw(rt, "op") {
		case 0, 1: // a deposit
			network := rapid.SampledFrom([]string{"tron", "ethereum", "solana"}).Draw(rt, "network")
			asset := rapid.SampledFrom([]string{"USDT", "USDT", "MWK"}).Draw(rt, "asset")
			ref := fmt.Sprintf("tx%d", rapid.IntRange(0, 6).Draw(rt, "ref"))
			amt := amountOf(asset)
			amount := mustParse(assets[asset], amt)
			cr, err := d.e.Operator().Desk().RecordDeposit(d.ctx, org.ID, tambala.Deposit{Network: network, Asset: money.AssetCode(asset), Amount: amount, TxRef: ref})
			c := cr.Resource
			key := network + "/" + ref
			prev, seen := deposits[key]
			switch {
			case network == "solana" || asset == "MWK":
				requireCode(rt, errcode.UnsupportedNetwork, err)
			case amount.IsZero():
				requireCode(rt, errcode.ValidationError, err)
			case seen && prev.org == org.ID && prev.asset == asset && prev.amount == amount.String():
				require.NoError(rt, err)
				require.Equal(rt, prev.id, c.ID, "a replay is the same collection")
			case seen:
				requireCode(rt, errcode.Conflict, err)
			default:
				require.NoError(rt, err)
				require.Equal(rt, "deposit", string(c.Source))
				require.True(rt, c.Fee.IsZero())
				deposits[key] = cv2Deposit{org: org.ID, asset: asset, amount: amount.String(), id: c.ID}
				credit(org.ID, c)
			}
		case 2: // a simulated collection
			asset := rapid.SampledFrom([]string{"USDT", "MWK"}).Draw(rt, "asset")
			var network *string
			if rapid.Bool().Draw(rt, "with network") {
				network = strp(rapid.SampledFrom([]string{"tron", "ethereum", "solana"}).Draw(rt, "network"))
			}
			amt := amountOf(asset)
			c, err := d.e.Client(actFor(d.e, org.ID)).SimulateCollection(d.ctx, simV2(asset, amt, network))
			amount := mustParse(assets[asset], amt)
			switch {
			case network != nil && asset == "MWK":
				requireCode(rt, errcode.ValidationError, err)
			case network != nil && *network == "solana":
				requireCode(rt, errcode.UnsupportedNetwork, err)
			case amount.IsZero():
				requireCode(rt, errcode.ValidationError, err)
			default:
				require.NoError(rt, err)
				require.Equal(rt, "simulated", string(c.Source))
				credit(org.ID, c)
			}
		}
		// After every step: the invariants, conservation, the model.
		require.NoError(rt, ledger.CheckStore(d.ctx, s))
		require.NoError(rt, s.View(d.ctx, func(tx store.Tx) error {
			snap, err := ledger.ReadSnapshot(tx)
			if err != nil {
				return err
			}
			sums := map[string]money.Amount{}
			for _, b := range snap.Balances {
				add(sums, string(b.Account.Asset.Code), b.Balance)
			}
			for code, sum := range sums {
				require.True(rt, sum.IsZero(), "%s accounts sum to %s", code, sum)
			}
			for code, a := range assets {
				for _, o := range orgs {
					b, err := ledger.ReadBalance(tx, o.ID, a)
					if err != nil {
						return err
					}
					want, ok := avail[o.ID+"/"+code]
					if !ok {
						want = money.Zero(a)
					}
					require.Equal(rt, want.String(), b.Available.String(), "%s available of %s", code, o.Name)
				}
				f, err := ledger.ReadAccount(tx, ledger.SystemAccount(ledger.Fees, a))
				if err != nil {
					return err
				}
				wantFees, ok := fees[code]
				if !ok {
					wantFees = money.Zero(a)
				}
				require.Equal(rt, wantFees.String(), f.Abs().String(), "%s fees", code)
				x, err := ledger.ReadAccount(tx, ledger.SystemAccount(ledger.External, a))
				if err != nil {
					return err
				}
				wantExt, ok := external[code]
				if !ok {
					wantExt = money.Zero(a)
				}
				require.Equal(rt, wantExt.String(), x.Abs().String(), "%s external", code)
			}
			return nil
		}))
		for _, o := range orgs {
			pg, err := d.e.Client(actFor(d.e, o.ID)).Collections(d.ctx, tambala.PageRequest{Limit: tambala.MaxPageSize}, tambala.CollectionV2Filter{})
			require.NoError(rt, err)
			require.Len(rt, pg.Items, count[o.ID])
		}
	}
}

func mustSub(a, b money.Amount) money.Amount {
	v, err := a.Sub(b)
	if err != nil {
		panic(err)
	}
	return v
}
