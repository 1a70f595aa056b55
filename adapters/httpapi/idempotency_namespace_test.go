package httpapi_test

import "testing"

// One idempotency key namespace per organization through HTTP: the key
// b-6, first used on POST /v1/payouts/bank, is 409 conflict on the momo
// rail, on /v2 payouts, orders and conversions, and nothing is created
// there; the bank payout still replays; another organization's b-6 is
// its own.
func TestIdempotencyOneNamespaceHTTP(t *testing.T) {
	e, _ := newConvEnv(t)
	_, key := e.convOrg(t, "One namespace")
	_, other := e.convOrg(t, "Other")
	b6 := func(k string) map[string]string { return hdr(k, "Idempotency-Key", "b-6") }

	first := e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), b6(key)).want(t, 202, "").obj(t)
	e.do(t, "POST", "/v1/payouts/momo", momoBody("100"), b6(key)).want(t, 409, "conflict")
	e.do(t, "POST", "/v2/payouts", walletBody("USDT", "USDT", "5", "tron", v2Tron), b6(key)).want(t, 409, "conflict")
	q := convQuote(t, e, key, "USDT", "MWK", "2")
	e.do(t, "POST", "/v2/conversions", `{"quote_id":"`+q.QuoteID+`"}`, b6(key)).want(t, 409, "conflict")
	var oq quoteJSON
	e.do(t, "POST", "/v2/orders/quotes", quoteBody("USDT", "MWK", "from", "10"), hdr(key)).want(t, 201, "").decode(t, &oq)
	e.do(t, "POST", "/v2/orders", `{"quote_id":"`+oq.QuoteID+`","client_ref":"r1","beneficiary":{"name":"Chikondi Banda","bank_name":"National Bank of Malawi","account_number":"1001234567"}}`, b6(key)).want(t, 409, "conflict")
	e.do(t, "POST", "/v1/payouts/momo", `{"amount_mwk":`, b6(key)).want(t, 409, "conflict") // undecodable, decided key first

	replay := e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), b6(key)).want(t, 202, "")
	if replay.Header.Get("Idempotent-Replayed") != "true" || replay.obj(t)["id"] != first["id"] {
		t.Fatalf("replay: %s", replay.Body)
	}
	for _, path := range []string{"/v1/payouts", "/v2/payouts", "/v2/orders", "/v2/conversions"} {
		list := e.do(t, "GET", path, nil, hdr(key)).want(t, 200, "").obj(t)
		n := 0
		for _, v := range list {
			if items, ok := v.([]any); ok {
				n += len(items)
			}
		}
		want := 0
		if path == "/v1/payouts" {
			want = 1
		}
		if n != want {
			t.Fatalf("%s lists %d, want %d: %v", path, n, want, list)
		}
	}
	e.do(t, "POST", "/v1/payouts/momo", momoBody("100"), b6(other)).want(t, 202, "")
}
