package httpapi_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
)

// The attack that poisoned the shared USDT accounts, through HTTP: one
// organization's oversized amounts are 422 limit_exceeded on every route
// that takes an amount and create nothing; its balances stay readable,
// and another organization's payout still completes.
func TestBoundsHTTP(t *testing.T) {
	e, _ := newConvEnv(t, func(o *tambala.Options) {
		o.Payouts = sandbox.New(&sandbox.Options{Clock: o.Clock, Delay: time.Second})
	})
	attacker, key := e.convOrg(t, "Attacker")
	_, victimKey := e.convOrg(t, "Victim")
	const huge = "900000000000000000000000000000"
	n := 0
	idem := func(k string) map[string]string {
		n++
		return hdr(k, "Idempotency-Key", fmt.Sprint("bounds-", n))
	}
	before := e.do(t, "GET", "/v2/balances", nil, hdr(key)).want(t, 200, "").obj(t)
	for range 2 {
		e.do(t, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"`+huge+`"}`, hdr(key)).want(t, 422, "limit_exceeded")
		e.do(t, "POST", "/v2/payouts", walletBody("USDT", "USDT", huge, "tron", v2Tron), idem(key)).want(t, 422, "limit_exceeded")
	}
	e.do(t, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"999999999999999999999999999999"}`, hdr(key)).want(t, 422, "limit_exceeded")
	e.do(t, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"1000000000000.000001"}`, hdr(key)).want(t, 422, "limit_exceeded")
	e.do(t, "POST", "/v2/conversions/quotes", quoteBody("USDT", "MWK", "from", "500000000000000000000000000"), hdr(key)).want(t, 422, "limit_exceeded")
	e.do(t, "POST", "/v2/orders/quotes", quoteBody("USDT", "MWK", "from", "500000000000000000000000000"), hdr(key)).want(t, 422, "limit_exceeded")
	e.admin(t, "POST", "/admin/orgs/"+attacker.ID+"/funding", `{"asset":"USDT","amount":"`+huge+`","ref":"poison"}`).want(t, 422, "limit_exceeded")
	e.admin(t, "POST", "/admin/orgs/"+attacker.ID+"/deposits", `{"network":"tron","asset":"USDT","amount":"`+huge+`","tx_ref":"0xpoison"}`).want(t, 422, "limit_exceeded")
	e.admin(t, "POST", "/admin/orgs/"+attacker.ID+"/trades", `{"ref":"poison","usdt_amount":"`+huge+`","client_rate":"1750"}`).want(t, 422, "limit_exceeded")

	// Nothing was created or held.
	after := e.do(t, "GET", "/v2/balances", nil, hdr(key)).want(t, 200, "").obj(t)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("balances moved: %v -> %v", before, after)
	}
	for _, path := range []string{"/v2/payouts", "/v2/collections"} {
		list := e.do(t, "GET", path, nil, hdr(key)).want(t, 200, "").obj(t)
		for k, v := range list {
			if items, ok := v.([]any); ok && len(items) != 0 {
				t.Fatalf("%s %s: %v", path, k, items)
			}
		}
	}

	// The maximum itself is accepted, and the other organization's payout
	// completes.
	e.do(t, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"1000000000000"}`, hdr(key)).want(t, 201, "")
	id := e.do(t, "POST", "/v2/payouts", walletBody("USDT", "USDT", "10", "tron", v2Tron), idem(victimKey)).want(t, 202, "").obj(t)["id"].(string)
	for range 4 {
		if _, err := e.Engine.Work().ProcessPayouts(context.Background()); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(2 * time.Second)
	}
	if got := e.do(t, "GET", "/v2/payouts/"+id, nil, hdr(victimKey)).want(t, 200, "").obj(t); got["status"] != "succeeded" {
		t.Fatalf("victim's payout: %v", got)
	}
	e.do(t, "GET", "/v2/balances", nil, hdr(key)).want(t, 200, "")
	e.do(t, "GET", "/v2/balances/USDT", nil, hdr(victimKey)).want(t, 200, "")
}
