package httpapi_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
)

// /v2 payouts through HTTP: every error code of POST /v2/payouts, GET
// /v2/payouts/{id} and GET /v2/payouts, checked against the OpenAPI
// document by send.

const (
	v2Tron = "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV"
	v2EVM  = "0x1111111111111111111111111111111111111111"
)

func walletBody(src, asset, amount, network, addr string) string {
	return fmt.Sprintf(`{"source_asset":%q,"asset":%q,"amount":%q,"destination":{"type":"wallet","network":%q,"address":%q}}`,
		src, asset, amount, network, addr)
}

func bankV2Body(src, amount string, inst int) string {
	return fmt.Sprintf(`{"source_asset":%q,"asset":"MWK","amount":%q,"destination":{"type":"bank","institution_id":%d,"account_number":"3333888801","beneficiary_name":"Chikondi Banda"}}`,
		src, amount, inst)
}

func momoV2Body(amount, mobile string, inst int) string {
	return fmt.Sprintf(`{"source_asset":"MWK","asset":"MWK","amount":%q,"destination":{"type":"momo","institution_id":%d,"mobile_number":%q,"beneficiary_name":"Chikondi Banda"}}`,
		amount, inst, mobile)
}

func TestPayoutsV2HTTP(t *testing.T) {
	var prov *sandbox.Provider
	e := newDeskEnv(t, func(o *tambala.Options) {
		prov = sandbox.New(&sandbox.Options{Clock: o.Clock, Delay: time.Second})
		o.Payouts = prov
	})
	_, key := e.newOrg(t, orgSpec{name: "Payer", v2: tambala.V2Enabled, assets: deskAssets, fundUSDT: 1000, fundMWK: 100000})
	n := 0
	post := func(body string, headers ...string) *resp {
		n++
		h := hdr(key, append([]string{"Idempotency-Key", fmt.Sprint("k", n)}, headers...)...)
		return e.do(t, "POST", "/v2/payouts", body, h)
	}

	// 202, replay, conflict
	r := post(walletBody("USDT", "USDT", "5", "tron", v2Tron)).want(t, 202, "")
	first := r.obj(t)
	if first["status"] != "held" || first["source_amount"] != "5.000000" || first["rate"] != nil || first["fee"] != nil {
		t.Fatalf("created: %v", first)
	}
	h := hdr(key, "Idempotency-Key", "same")
	a := e.do(t, "POST", "/v2/payouts", walletBody("USDT", "USDT", "6", "tron", v2Tron), h).want(t, 202, "")
	b := e.do(t, "POST", "/v2/payouts", walletBody("USDT", "USDT", "6", "tron", v2Tron), h).want(t, 202, "")
	if string(a.Body) != string(b.Body) || b.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %s / %s", a.Body, b.Body)
	}
	e.do(t, "POST", "/v2/payouts", walletBody("USDT", "USDT", "7", "tron", v2Tron), h).want(t, 409, "conflict")
	e.do(t, "POST", "/v2/payouts", `{"amount":1}`, h).want(t, 409, "conflict") // decided key first, even undecodable

	// FX: 1000.00 MWK from USDT at 1750.5
	fx := post(bankV2Body("USDT", "1000.00", 1)).want(t, 202, "").obj(t)
	if fx["rate"] != "1750.5" || fx["source_amount"] != "0.912255" {
		t.Fatalf("fx: %v", fx)
	}
	post(momoV2Body("1000", "111100000112", 101)).want(t, 202, "")

	// 400
	e.do(t, "POST", "/v2/payouts", walletBody("USDT", "USDT", "5", "tron", v2Tron), hdr(key)).want(t, 400, "validation_error")
	for _, body := range []string{
		`{"source_asset":"USDT","asset":"USDT","amount":5,"destination":{"type":"wallet","network":"tron","address":"` + v2Tron + `"}}`,
		walletBody("USDT", "USDT", "5.0000001", "tron", v2Tron),
		walletBody("USDT", "USDT", "0", "tron", v2Tron),
		walletBody("USDT", "USDT", "-1", "tron", v2Tron),
		`{"source_asset":"USDT","asset":"USDT","amount":"5"}`,
		`{"source_asset":"USDT","asset":"USDT","amount":"5","destination":{"type":"card"}}`,
		`{"source_asset":"USDT","asset":"USDT","amount":"5","destination":{"type":"wallet","network":"tron","address":"x","institution_id":1}}`,
		`{"source_asset":"MWK","asset":"MWK","amount":"5","destination":{"type":"bank","institution_id":"1","account_number":"1","beneficiary_name":"A"}}`,
		`[1]`, `{`, ``,
	} {
		post(body).want(t, 400, "validation_error")
	}
	// 402
	post(walletBody("USDT", "USDT", "5000", "tron", v2Tron)).want(t, 402, "insufficient_funds")
	post(bankV2Body("USDT", "3000000.00", 1)).want(t, 402, "insufficient_funds")
	// 403
	post(walletBody("EURC", "USDT", "5", "tron", v2Tron)).want(t, 403, "corridor_not_enabled")
	post(walletBody("USDT", "EURC", "5", "tron", v2Tron)).want(t, 403, "corridor_not_enabled")
	// 422
	for body, code := range map[string]string{
		walletBody("USDT", "usdt", "5", "tron", v2Tron): "unsupported_asset",
		`{"source_asset":"USDT","asset":"USDT","amount":"5","destination":{"type":"bank","institution_id":1,"account_number":"3333888801","beneficiary_name":"A"}}`: "unsupported_asset",
		walletBody("MWK", "MWK", "5", "tron", v2Tron):     "unsupported_asset",
		walletBody("USDT", "USDT", "5", "solana", v2Tron): "unsupported_network",
		walletBody("USDT", "USDT", "5", "tron", v2EVM):    "invalid_wallet_address",
		bankV2Body("MWK", "1000", 77):                     "unknown_institution",
		momoV2Body("1000", "12", 101):                     "invalid_mobile_number",
		momoV2Body("1000", "265888888888", 101):           "mobile_number_institution_mismatch",
	} {
		post(body).want(t, 422, code)
	}
	mn, mx := money.FromInt(money.USDT, 2), money.FromInt(money.USDT, 10)
	if err := e.Engine.Operator().Desk().SetAssetLimits(context.Background(), "USDT", tambala.OpPayout, quotes.Limits{Min: mn, Max: mx}); err != nil {
		t.Fatal(err)
	}
	post(walletBody("USDT", "USDT", "1", "tron", v2Tron)).want(t, 422, "amount_below_minimum")
	post(walletBody("USDT", "USDT", "11", "tron", v2Tron)).want(t, 422, "limit_exceeded")
	if err := e.Engine.Operator().Desk().SetAssetLimits(context.Background(), "USDT", tambala.OpPayout, quotes.Limits{}); err != nil {
		t.Fatal(err)
	}
	// unsupported_pair needs two stablecoins or two fiats: TestPayoutsV2HTTPUnsupportedPair
	// 503
	if _, err := e.Engine.Operator().SetRailDisabled(context.Background(), payouts.Bank, true); err != nil {
		t.Fatal(err)
	}
	post(bankV2Body("MWK", "1000", 1)).want(t, 503, "rail_disabled")
	if _, err := e.Engine.Operator().SetRailDisabled(context.Background(), payouts.Bank, false); err != nil {
		t.Fatal(err)
	}
	e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":false}`).want(t, 200, "")
	post(bankV2Body("USDT", "1000", 1)).want(t, 503, "service_unavailable")
	e.admin(t, "PUT", "/admin/corridors/MWK", corridorMWK).want(t, 200, "")

	// reads
	id := first["id"].(string)
	got := e.do(t, "GET", "/v2/payouts/"+id, nil, hdr(key)).want(t, 200, "").obj(t)
	if got["id"] != id {
		t.Fatalf("get: %v", got)
	}
	e.do(t, "GET", "/v2/payouts/not-an-id", nil, hdr(key)).want(t, 404, "not_found")
	e.do(t, "GET", "/v2/payouts/0190c4d2-7f3a-7b1e-8a2b-000000000000", nil, hdr(key)).want(t, 404, "not_found")
	list := e.do(t, "GET", "/v2/payouts?limit=2", nil, hdr(key)).want(t, 200, "").obj(t)
	if len(list["payouts"].([]any)) != 2 || list["has_more"] != true {
		t.Fatalf("list: %v", list)
	}
	e.do(t, "GET", "/v2/payouts?status=held", nil, hdr(key)).want(t, 200, "")
	e.do(t, "GET", "/v2/payouts?status=done", nil, hdr(key)).want(t, 400, "validation_error")
	e.do(t, "GET", "/v2/payouts?limit=0", nil, hdr(key)).want(t, 400, "validation_error")

	// the worker pays them; the resource and its event share one rendering
	for range 4 {
		if _, err := e.Engine.Work().ProcessPayouts(context.Background()); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(2 * time.Second)
	}
	done := e.do(t, "GET", "/v2/payouts/"+id, nil, hdr(key)).want(t, 200, "").obj(t)
	if done["status"] != "succeeded" || done["fee"] != "0.000000" {
		t.Fatalf("paid: %v", done)
	}

	// pause
	e.admin(t, "PUT", "/admin/pause", map[string]string{"api": "v2", "mode": "maintenance"}).want(t, 200, "")
	post(walletBody("USDT", "USDT", "5", "tron", v2Tron)).want(t, 503, "service_maintenance")
	e.do(t, "GET", "/v2/payouts/"+id, nil, hdr(key)).want(t, 503, "service_maintenance")
	e.admin(t, "PUT", "/admin/pause", map[string]string{"api": "v2", "mode": "live"}).want(t, 200, "")
}

// TestPayoutsV2HTTPRateUnavailable: a fee schedule that cannot price the
// rail is 503 rate_unavailable.
func TestPayoutsV2HTTPRateUnavailable(t *testing.T) {
	e := newDeskEnv(t, func(o *tambala.Options) {
		fs := payouts.DefaultFeeSchedule()
		fs.Convenience = map[payouts.Rail]money.Amount{}
		o.Fees = &fs
	})
	_, key := e.newOrg(t, orgSpec{name: "Payer", v2: tambala.V2Enabled, assets: deskAssets, fundMWK: 100000})
	e.do(t, "POST", "/v2/payouts", bankV2Body("MWK", "1000", 1), hdr(key, "Idempotency-Key", "a")).want(t, 503, "rate_unavailable")
}

// TestPayoutsV2HTTPUnsupportedPair: a payout between two stablecoins, or
// between two fiat currencies, is 422 unsupported_pair, and holds nothing.
func TestPayoutsV2HTTPUnsupportedPair(t *testing.T) {
	e := newDeskEnv(t, func(o *tambala.Options) {
		withZMW(o)
		o.Assets["USDC"] = money.Asset{Code: "USDC", Decimals: 6}
		o.AssetClasses["USDC"] = quotes.Stablecoin
		o.Networks = networks.Default()
		o.Networks["ethereum"] = networks.Network{ID: "ethereum", Kind: networks.EVM, Assets: []money.AssetCode{"USDT", "USDC"}}
	})
	assets := append([]tambala.AssetAccess{
		{Asset: "USDC", Operations: []string{tambala.OpPayout}},
		{Asset: "ZMW", Operations: []string{tambala.OpPayout}},
	}, deskAssets...)
	_, key := e.newOrg(t, orgSpec{name: "Pair", v2: tambala.V2Enabled, assets: assets, fundUSDT: 100, fundMWK: 100000})
	n := 0
	for _, body := range []string{
		walletBody("USDT", "USDC", "1", "ethereum", v2EVM),
		bankV2Body("ZMW", "1000.00", 1),
	} {
		n++
		e.do(t, "POST", "/v2/payouts", body, hdr(key, "Idempotency-Key", fmt.Sprint("pair", n))).want(t, 422, "unsupported_pair")
	}
	for _, asset := range []string{"USDT", "MWK"} {
		b := e.do(t, "GET", "/v2/balances/"+asset, nil, hdr(key)).want(t, 200, "").obj(t)
		if b["held"] != "0" && b["held"] != "0.00" && b["held"] != "0.000000" {
			t.Fatalf("%s held after refusals: %v", asset, b)
		}
	}
	list := e.do(t, "GET", "/v2/payouts", nil, hdr(key)).want(t, 200, "").obj(t)
	if data, _ := list["data"].([]any); len(data) != 0 {
		t.Fatalf("payouts created: %v", list)
	}
}

// TestPayoutsV2HTTPInFlight: the operator's in-flight list shows a /v2
// payout as its client reads it (api_version v2, the wallet destination),
// beside a /v1 payout in the /v1 rendering; the response matches the
// admin document.
func TestPayoutsV2HTTPInFlight(t *testing.T) {
	e := newDeskEnv(t, func(o *tambala.Options) {
		o.Payouts = sandbox.New(&sandbox.Options{Clock: o.Clock, Delay: time.Hour})
	})
	_, key := e.newOrg(t, orgSpec{name: "Payer", v2: tambala.V2Enabled, assets: deskAssets, fundUSDT: 1000, fundMWK: 100000})
	v2 := e.do(t, "POST", "/v2/payouts", walletBody("USDT", "USDT", "5", "tron", v2Tron), hdr(key, "Idempotency-Key", "w")).want(t, 202, "").obj(t)
	v1 := e.do(t, "POST", "/v1/payouts/momo", momoBody("1000"), hdr(key, "Idempotency-Key", "m")).want(t, 202, "").obj(t)
	var list struct {
		Payouts []struct {
			APIVersion string         `json:"api_version"`
			Payout     map[string]any `json:"payout"`
		} `json:"payouts"`
	}
	e.admin(t, "GET", "/admin/payouts/in-flight", nil).want(t, 200, "").decode(t, &list)
	if len(list.Payouts) != 2 {
		t.Fatalf("in flight = %+v", list)
	}
	byID := map[string]string{}
	for _, p := range list.Payouts {
		byID[p.Payout["id"].(string)] = p.APIVersion
		if p.APIVersion == "v2" {
			dest, _ := p.Payout["destination"].(map[string]any)
			if p.Payout["source_asset"] != "USDT" || p.Payout["amount"] != "5.000000" || dest["address"] != v2Tron || dest["network"] != "tron" {
				t.Errorf("v2 payout in flight = %v", p.Payout)
			}
		}
	}
	if byID[v2["id"].(string)] != "v2" || byID[v1["id"].(string)] != "v1" {
		t.Fatalf("api versions = %v", byID)
	}
}
