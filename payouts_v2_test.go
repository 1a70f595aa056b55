package tambala_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// The engine tests of /v2 payouts on every store: checks and codes,
// same-asset and FX pricing, the worker's outcomes in the source asset,
// the /v2 pause, and /v1 untouched.

const (
	pv2Tron   = "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV"
	pv2EVM    = "0x1111111111111111111111111111111111111111"
	pv2Bank   = "3333888801"
	pv2Wallet = "111100000112"
)

type pv2Env struct {
	*deskEnv
	prov *sandbox.Provider
}

func newPV2Env(t deskTB, s store.Store, tune func(*tambala.Options)) *pv2Env {
	t.Helper()
	var prov *sandbox.Provider
	d := newDeskEnv(t, s, func(o *tambala.Options) {
		prov = sandbox.New(&sandbox.Options{Clock: o.Clock, Delay: time.Second})
		o.Payouts = prov
		o.Worker = tambala.WorkerOptions{Poll: time.Second, Concurrency: 1}
		o.PayoutsV2.WalletFees = map[money.AssetCode]map[string]money.Amount{"USDT": {"ethereum": mustParse(money.USDT, "1.5")}}
		if tune != nil {
			tune(o)
		}
	})
	require.NoError(t, d.e.Operator().Fund(d.ctx, d.org.ID, money.FromInt(money.MWK, 1_000_000), "start-mwk"))
	return &pv2Env{deskEnv: d, prov: prov}
}

func bankDest() tambala.PayoutV2Destination {
	return tambala.PayoutV2Destination{Type: "bank", InstitutionID: 1, AccountNumber: pv2Bank, BeneficiaryName: "Chikondi Banda"}
}

func momoDest() tambala.PayoutV2Destination {
	return tambala.PayoutV2Destination{Type: "momo", InstitutionID: 101, MobileNumber: pv2Wallet, BeneficiaryName: "Chikondi Banda"}
}

func walletDest(network, addr string) tambala.PayoutV2Destination {
	return tambala.PayoutV2Destination{Type: "wallet", Network: network, Address: addr}
}

func (d *pv2Env) payFor(p tambala.Principal, src, asset, amount string, dest tambala.PayoutV2Destination) (tambala.Created[tambala.PayoutV2], error) {
	return d.e.Client(p).CreatePayout(d.ctx, tambala.PayoutV2Request{SourceAsset: money.AssetCode(src), Asset: money.AssetCode(asset), Amount: money.DecimalText(amount), Destination: dest},
		tambala.Idempotency{Key: d.next("pv2")})
}

func (d *pv2Env) pay(t deskTB, src, asset, amount string, dest tambala.PayoutV2Destination) tambala.PayoutV2 {
	t.Helper()
	c, err := d.payFor(d.p, src, asset, amount, dest)
	require.NoError(t, err)
	require.Equal(t, payouts.Held, c.Resource.Status)
	d.check(t)
	return c.Resource
}

// drain runs the worker until nothing is due, advancing the clock.
func (d *pv2Env) drain(t deskTB) {
	t.Helper()
	for range 6 {
		_, err := d.e.Work().ProcessPayouts(d.ctx)
		require.NoError(t, err)
		d.clock.Advance(2 * time.Second)
	}
	d.check(t)
}

func (d *pv2Env) get(t deskTB, id string) tambala.PayoutV2 {
	t.Helper()
	p, err := d.e.Client(d.p).Payout(d.ctx, id)
	require.NoError(t, err)
	return p
}

func renderMap(t *testing.T, p tambala.PayoutV2) map[string]any {
	t.Helper()
	b := tambala.RenderPayoutV2(p)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestPayoutV2Pricing(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newPV2Env(t, s, nil)
		for _, c := range []struct {
			name, src, asset, amount string
			dest                     tambala.PayoutV2Destination
			rate                     any
			fee, source              string
		}{
			{"same MWK momo", "MWK", "MWK", "1000", momoDest(), nil, "244.40", "1244.40"},
			{"same MWK bank", "MWK", "MWK", "1000.00", bankDest(), nil, "596.90", "1596.90"},
			{"same USDT wallet fee", "USDT", "USDT", "5", walletDest("ethereum", pv2EVM), nil, "1.500000", "6.500000"},
			{"same USDT wallet free", "USDT", "USDT", "5", walletDest("tron", pv2Tron), nil, "0.000000", "5.000000"},
			// 1000.00 / 1750.5 = 0.5712653... up 0.571266; 596.90 / 1750.5 up 0.340989
			{"FX USDT to MWK bank", "USDT", "MWK", "1000.00", bankDest(), "1750.5", "596.90", "0.912255"},
			// 10 × 1800 = 18000.00, fee 0
			{"FX MWK to USDT tron", "MWK", "USDT", "10", walletDest("tron", pv2Tron), "1800", "0.000000", "18000.00"},
			// 0.000001 × 1800 = 0.0018 up 0.01; 1.5 × 1800 = 2700.00
			{"FX MWK to USDT tiny", "MWK", "USDT", "0.000001", walletDest("ethereum", pv2EVM), "1800", "1.500000", "2700.01"},
		} {
			before := d.balance(t, d.org.ID, mustAsset(t, d.e, c.src))
			p := d.pay(t, c.src, c.asset, c.amount, c.dest)
			m := renderMap(t, p)
			assert.Equal(t, c.source, m["source_amount"], c.name)
			assert.Equal(t, c.rate, m["rate"], c.name)
			assert.Nil(t, m["fee"], c.name) // null until terminal
			assert.Equal(t, "held", m["status"], c.name)
			assert.Equal(t, string(c.dest.Type), m["destination"].(map[string]any)["type"], c.name)
			after := d.balance(t, d.org.ID, mustAsset(t, d.e, c.src))
			held, _ := after.Held.Sub(before.Held)
			assert.Equal(t, c.source, held.String(), c.name)
			d.drain(t)
			got := d.get(t, p.ID)
			require.Equal(t, payouts.Succeeded, got.Status, c.name)
			require.NotNil(t, got.Fee)
			assert.Equal(t, c.fee, got.Fee.String(), c.name)
			end := d.balance(t, d.org.ID, mustAsset(t, d.e, c.src))
			assert.Equal(t, before.Held.String(), end.Held.String(), c.name)
			spent, _ := before.Available.Sub(end.Available)
			assert.Equal(t, c.source, spent.String(), c.name)
		}
	})
}

func mustAsset(t deskTB, e *tambala.Engine, code string) money.Asset {
	a, err := e.Settings().Asset(money.AssetCode(code))
	require.NoError(t, err)
	return a
}

func TestPayoutV2Checks(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newPV2Env(t, s, nil)
		type tc struct {
			name, src, asset, amount string
			dest                     tambala.PayoutV2Destination
			want                     errcode.Code
		}
		for _, c := range []tc{
			{"malformed asset", "USDT", "usdt", "1", walletDest("tron", pv2Tron), errcode.UnsupportedAsset},
			{"unknown asset", "USDT", "EUR", "1", walletDest("tron", pv2Tron), errcode.CorridorNotEnabled},
			{"unknown source", "EURC", "USDT", "1", walletDest("tron", pv2Tron), errcode.CorridorNotEnabled},
			{"bad amount", "USDT", "USDT", "1.0000001", walletDest("tron", pv2Tron), errcode.ValidationError},
			{"zero amount", "USDT", "USDT", "0", walletDest("tron", pv2Tron), errcode.ValidationError},
			{"bank in USDT", "USDT", "USDT", "1", bankDest(), errcode.UnsupportedAsset},
			{"wallet in MWK", "MWK", "MWK", "1", walletDest("tron", pv2Tron), errcode.UnsupportedAsset},
			{"unknown network", "USDT", "USDT", "1", walletDest("solana", pv2Tron), errcode.UnsupportedNetwork},
			{"bad address", "USDT", "USDT", "1", walletDest("tron", pv2EVM), errcode.InvalidWalletAddress},
			{"bad type", "USDT", "USDT", "1", tambala.PayoutV2Destination{Type: "card"}, errcode.ValidationError},
			{"unknown institution", "MWK", "MWK", "1000", tambala.PayoutV2Destination{Type: "bank", InstitutionID: 77, AccountNumber: "1", BeneficiaryName: "B"}, errcode.UnknownInstitution},
			{"bad mobile", "MWK", "MWK", "1000", tambala.PayoutV2Destination{Type: "momo", InstitutionID: 101, MobileNumber: "12", BeneficiaryName: "B"}, errcode.InvalidMobileNumber},
			{"mobile mismatch", "MWK", "MWK", "1000", tambala.PayoutV2Destination{Type: "momo", InstitutionID: 101, MobileNumber: "265888888888", BeneficiaryName: "B"}, errcode.MobileNumberInstitutionMismatch},
			{"insufficient USDT", "USDT", "USDT", "1000", walletDest("ethereum", pv2EVM), errcode.InsufficientFunds},
			{"insufficient via FX", "USDT", "MWK", "2000000.00", bankDest(), errcode.InsufficientFunds},
		} {
			_, err := d.payFor(d.p, c.src, c.asset, c.amount, c.dest)
			requireCode(t, c.want, err, c.name)
		}
		// limits per (asset, payout)
		mn, mx := money.FromInt(money.USDT, 2), money.FromInt(money.USDT, 10)
		require.NoError(t, d.e.Operator().Desk().SetAssetLimits(d.ctx, "USDT", tambala.OpPayout, quotes.Limits{Min: mn, Max: mx}))
		_, err := d.payFor(d.p, "USDT", "USDT", "1", walletDest("tron", pv2Tron))
		requireCode(t, errcode.AmountBelowMinimum, err)
		_, err = d.payFor(d.p, "USDT", "USDT", "11", walletDest("tron", pv2Tron))
		requireCode(t, errcode.LimitExceeded, err)
		require.NoError(t, d.e.Operator().Desk().SetAssetLimits(d.ctx, "USDT", tambala.OpPayout, quotes.Limits{}))
		// rail switch
		_, err = d.e.Operator().SetRailDisabled(d.ctx, payouts.Bank, true)
		require.NoError(t, err)
		_, err = d.payFor(d.p, "MWK", "MWK", "1000", bankDest())
		requireCode(t, errcode.RailDisabled, err)
		_, err = d.e.Operator().SetRailDisabled(d.ctx, payouts.Bank, false)
		require.NoError(t, err)
		// no rate: corridor closed
		d.setCorridor(t, func(c *quotes.Corridor) { c.Open = false })
		_, err = d.payFor(d.p, "USDT", "MWK", "1000", bankDest())
		requireCode(t, errcode.ServiceUnavailable, err)
		d.setCorridor(t, func(c *quotes.Corridor) { c.Open = true })
		// operation not enabled: an org with USDT without payout
		other := d.newOrg(t, "NoPayout", []tambala.AssetAccess{{Asset: "USDT", Operations: []string{tambala.OpConvert}}, {Asset: "MWK", Operations: []string{tambala.OpPayout}}})
		op := actFor(d.e, other.ID)
		_, err = d.payFor(op, "MWK", "USDT", "1", walletDest("tron", pv2Tron))
		requireCode(t, errcode.CorridorNotEnabled, err)
		// idempotency: replay and conflict
		req := tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "USDT", Amount: money.DecimalText("3"), Destination: walletDest("tron", pv2Tron)}
		c1, err := d.e.Client(d.p).CreatePayout(d.ctx, req, tambala.Idempotency{Key: "same"})
		require.NoError(t, err)
		c2, err := d.e.Client(d.p).CreatePayout(d.ctx, req, tambala.Idempotency{Key: "same"})
		require.NoError(t, err)
		assert.True(t, c2.Replayed)
		assert.Equal(t, renderMap(t, c1.Resource), renderMap(t, c2.Resource))
		req.Amount = money.DecimalText("4")
		_, err = d.e.Client(d.p).CreatePayout(d.ctx, req, tambala.Idempotency{Key: "same"})
		requireCode(t, errcode.Conflict, err)
		_, err = d.e.Client(d.p).CreatePayout(d.ctx, req, tambala.Idempotency{})
		requireCode(t, errcode.ValidationError, err)
		// the FX pricer port
		d2 := newPV2Env(t, s, func(o *tambala.Options) { o.PayoutsV2.FXPricer = fixedFXPricer{rate: money.MustRate("2000")} })
		p := d2.pay(t, "USDT", "MWK", "1000.00", bankDest())
		assert.Equal(t, "2000", p.Rate.String())
		assert.Equal(t, "0.798450", p.SourceAmount.String()) // 0.5 + 0.29845
		d3 := newPV2Env(t, s, func(o *tambala.Options) { o.PayoutsV2.FXPricer = fixedFXPricer{} })
		_, err = d3.payFor(d3.p, "USDT", "MWK", "1000.00", bankDest())
		requireCode(t, errcode.ServiceUnavailable, err)
		d.check(t)
	})
}

type fixedFXPricer struct{ rate money.Rate }

func (f fixedFXPricer) PayoutRate(context.Context, quotes.Pair) (money.Rate, error) {
	if f.rate.IsZero() {
		return money.Rate{}, errcode.Newf(errcode.RateUnavailable, "no rate")
	}
	return f.rate, nil
}

func TestPayoutV2WorkerOutcomes(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newPV2Env(t, s, nil)
		usdt := d.balance(t, d.org.ID, money.USDT)
		// failure: the hold is released in the source asset
		d.prov.ScriptDestination(pv2EVM, sandbox.Outcome{Fail: string(payouts.Declined)})
		failed := d.pay(t, "USDT", "USDT", "5", walletDest("ethereum", pv2EVM))
		// an unknown address fails recipient_account_invalid
		invalid := d.pay(t, "USDT", "USDT", "5", walletDest("tron", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"))
		// FX clawback: principal_src returns, the fee stays charged
		fx := d.pay(t, "USDT", "MWK", "1000.00", bankDest())
		d.prov.ScriptPayout(fx.ID, sandbox.Outcome{Clawback: true})
		// same asset, provider fee above the hold: capped (absorbed)
		over := mustParse(money.MWK, "900.00")
		big := d.pay(t, "MWK", "MWK", "1000.00", momoDest())
		d.prov.ScriptPayout(big.ID, sandbox.Outcome{Fee: &over})
		// FX, provider fee below the priced one: converted, rounded up
		low := mustParse(money.MWK, "100.00")
		fx2 := d.pay(t, "USDT", "MWK", "1000.00", bankDest())
		d.prov.ScriptPayout(fx2.ID, sandbox.Outcome{Fee: &low})
		mwk := d.balance(t, d.org.ID, money.MWK)
		d.drain(t)
		f2 := d.get(t, fx2.ID)
		assert.Equal(t, payouts.Succeeded, f2.Status)
		assert.Equal(t, "100.00", f2.Fee.String())

		f := d.get(t, failed.ID)
		assert.Equal(t, payouts.Failed, f.Status)
		assert.Equal(t, payouts.Declined, f.Failure.Code)
		assert.Equal(t, "0.000000", f.Fee.String())
		assert.Equal(t, payouts.RecipientAccountInvalid, d.get(t, invalid.ID).Failure.Code)
		r := d.get(t, fx.ID)
		assert.Equal(t, payouts.Reversed, r.Status)
		assert.Equal(t, "596.90", r.Fee.String())
		g := d.get(t, big.ID)
		assert.Equal(t, payouts.Succeeded, g.Status)
		assert.Equal(t, "244.40", g.Fee.String())
		// USDT: fx's fee_src (0.340989), fx2's principal (0.571266) and
		// its fee 100.00 / 1750.5 rounded up (0.057127) are gone.
		endU := d.balance(t, d.org.ID, money.USDT)
		spent, _ := usdt.Available.Sub(endU.Available)
		assert.Equal(t, "0.969382", spent.String())
		assert.True(t, endU.Held.IsZero())
		endM := d.balance(t, d.org.ID, money.MWK)
		spentM, _ := mwk.Held.Sub(endM.Held)
		assert.Equal(t, "1244.40", spentM.String())
		assert.Equal(t, mwk.Available.String(), endM.Available.String())

		var types []string
		for _, ev := range d.events(t, d.org.ID) {
			types = append(types, ev.Type)
			if ev.Type == "payout_v2.succeeded" || ev.Type == "payout_v2.failed" || ev.Type == "payout_v2.reversed" {
				assert.Contains(t, ev.Data, "source_amount")
			}
			assert.NotContains(t, []string{"payout.succeeded", "payout.failed", "payout.reversed"}, ev.Type)
		}
		assert.Contains(t, types, "payout_v2.reversed")
		assert.Contains(t, types, "payout_v2.failed")
		assert.Contains(t, types, "payout_v2.succeeded")

		// /v1 never sees a /v2 payout
		_, err := d.e.Client(d.p).V1().Payout(d.ctx, big.ID)
		requireCode(t, errcode.NotFound, err)
		page, err := d.e.Client(d.p).V1().Payouts(d.ctx, tambala.PageRequest{Limit: 100}, tambala.PayoutFilter{})
		require.NoError(t, err)
		assert.Empty(t, page.Items)
		// and /v2 reads never a /v1 one
		v1, err := d.e.Client(d.p).V1().CreatePayout(d.ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 500),
			Destination: payouts.Destination{InstitutionID: 101, MobileNumber: pv2Wallet, BeneficiaryName: "B"}}, tambala.Idempotency{Key: "v1"})
		require.NoError(t, err)
		_, err = d.e.Client(d.p).Payout(d.ctx, v1.Resource.ID)
		requireCode(t, errcode.NotFound, err)
		list, err := d.e.Client(d.p).Payouts(d.ctx, tambala.PageRequest{Limit: 2}, tambala.PayoutFilter{})
		require.NoError(t, err)
		assert.Len(t, list.Items, 2)
		assert.NotEmpty(t, list.NextBeforeID)
		failedOnly, err := d.e.Client(d.p).Payouts(d.ctx, tambala.PageRequest{Limit: 100}, tambala.PayoutFilter{Status: payouts.Failed})
		require.NoError(t, err)
		assert.Len(t, failedOnly.Items, 2)
		d.drain(t)
		v1p, err := d.e.Client(d.p).V1().Payout(d.ctx, v1.Resource.ID)
		require.NoError(t, err)
		assert.Equal(t, payouts.Succeeded, v1p.Status)
	})
}

func TestPayoutV2PauseHoldsBack(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newPV2Env(t, s, nil)
		p := d.pay(t, "USDT", "USDT", "5", walletDest("tron", pv2Tron))
		v1, err := d.e.Client(d.p).V1().CreatePayout(d.ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 500),
			Destination: payouts.Destination{InstitutionID: 101, MobileNumber: pv2Wallet, BeneficiaryName: "B"}}, tambala.Idempotency{Key: "v1"})
		require.NoError(t, err)
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Maintenance)
		require.NoError(t, err)
		d.drain(t)
		assert.Equal(t, 0, d.prov.SubmitCalls(p.ID))
		v1p, err := d.e.Client(d.p).V1().Payout(d.ctx, v1.Resource.ID)
		require.NoError(t, err)
		assert.Equal(t, payouts.Succeeded, v1p.Status) // /v1 goes on
		_, err = d.e.Client(d.p).Payout(d.ctx, p.ID)
		requireCode(t, errcode.ServiceMaintenance, err)
		_, err = d.e.Operator().SetPause(d.ctx, tambala.APIv2, tambala.Live)
		require.NoError(t, err)
		d.drain(t)
		assert.Equal(t, payouts.Succeeded, d.get(t, p.ID).Status)
		// The passes that held it back left nothing due behind.
		d.clock.Advance(time.Hour)
		b, err := d.e.Operator().BackOffice().Backlog(d.ctx)
		require.NoError(t, err)
		assert.Zero(t, b.PayoutsDue, "a payout held back by the pause leaves no due entry once finished")
	})
}

// TestPayoutV2PairAndNoDailyCap: two stablecoins are unsupported_pair;
// /v2 payouts know no org_limit_exceeded (the /v1 rolling limits do not
// apply).
func TestPayoutV2PairAndNoDailyCap(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		usdc := money.Asset{Code: "USDC", Decimals: 6}
		d := newPV2Env(t, s, func(o *tambala.Options) {
			o.Assets = money.DefaultAssets()
			o.Assets["USDC"] = usdc
			o.AssetClasses = quotes.DefaultClasses()
			o.AssetClasses["USDC"] = quotes.Stablecoin
			o.Networks = networks.Default()
			o.Networks["ethereum"] = networks.Network{ID: "ethereum", Kind: networks.EVM, Assets: []money.AssetCode{"USDT", "USDC"}}
		})
		org := d.newOrg(t, "Pair", append(deskAssets(), tambala.AssetAccess{Asset: "USDC", Operations: []string{tambala.OpPayout}}))
		require.NoError(t, d.e.Operator().Fund(d.ctx, org.ID, money.FromInt(money.USDT, 100), "f"))
		p := actFor(d.e, org.ID)
		_, err := d.payFor(p, "USDT", "USDC", "1", walletDest("ethereum", pv2EVM))
		requireCode(t, errcode.UnsupportedPair, err)
		_, err = d.payFor(p, "USDT", "USDC", "1", bankDest())
		requireCode(t, errcode.UnsupportedAsset, err)
		// an hourly count of 1 stops /v1, never /v2
		_, err = d.e.Operator().SetPayoutLimits(d.ctx, d.org.ID, tambala.PayoutLimits{HourlyCount: 1, DailyVolumeMWK: mustParse(money.MWK, "1000.00")})
		require.NoError(t, err)
		for range 3 {
			d.pay(t, "MWK", "MWK", "5000.00", momoDest())
		}
	})
}
