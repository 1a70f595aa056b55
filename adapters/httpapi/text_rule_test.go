package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
)

// TestTextRuleHTTP: through the binding, invisible format characters in
// the text a person reads are 400 validation_error (escaped or raw in the
// body), a bank account number that does not fit its institution is 422
// invalid_account_number, and neither creates nor holds anything.
func TestTextRuleHTTP(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.newOrg(t, orgSpec{name: "Payer", v2: tambala.V2Enabled, assets: deskAssets, fundUSDT: 1000, fundMWK: 100000})
	n := 0
	post := func(path, body string) *resp {
		n++
		return e.do(t, "POST", path, body, hdr(key, "Idempotency-Key", fmt.Sprint("k", n)))
	}
	wantMessage := func(r *resp, part string) {
		t.Helper()
		var env struct{ Error struct{ Message string } }
		r.decode(t, &env)
		if !strings.Contains(env.Error.Message, part) {
			t.Errorf("message %q does not mention %q", env.Error.Message, part)
		}
	}
	bank := func(account, name string) string {
		return fmt.Sprintf(`{"amount_mwk":"1000.00","institution_id":1,"account_number":%q,"beneficiary_name":"%s"}`, account, name)
	}

	// /v1: an escaped override, a raw zero width space, a raw isolate.
	wantMessage(post("/v1/payouts/bank", bank("3333888800", `Chisomo \u202Eadnab`)).want(t, 400, "validation_error"), "beneficiary_name")
	wantMessage(post("/v1/payouts/bank", bank("3333888800", "Chisomo\u200bBanda")).want(t, 400, "validation_error"), "U+200B")
	post("/v1/payouts/momo", `{"amount_mwk":"1000.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"\u2066Chisomo\u2069"}`).
		want(t, 400, "validation_error")
	wantMessage(post("/v1/payouts/bank", bank("3333888800\ufeff", "Chisomo Banda")).want(t, 400, "validation_error"), "account_number")
	for _, account := range []string{"3333-888800", "3333 888800", "12345", "33338888OO"} {
		wantMessage(post("/v1/payouts/bank", bank(account, "Chisomo Banda")).want(t, 422, "invalid_account_number"), "6 to 13 digits")
	}
	post("/v1/payouts/bank", `{"amount_mwk":"1000.00","institution_id":99,"account_number":"x","beneficiary_name":"A"}`).
		want(t, 422, "unknown_institution")

	// /v2 payouts: the same rules on a bank or momo destination.
	v2 := func(dest string) string {
		return `{"source_asset":"MWK","asset":"MWK","amount":"1000.00","destination":` + dest + `}`
	}
	post("/v2/payouts", v2(`{"type":"bank","institution_id":2,"account_number":"123456789","beneficiary_name":"Chikondi Banda"}`)).
		want(t, 422, "invalid_account_number")
	post("/v2/payouts", v2(`{"type":"bank","institution_id":2,"account_number":"3333888801","beneficiary_name":"Chikondi\u00adBanda"}`)).
		want(t, 400, "validation_error")
	post("/v2/payouts", v2(`{"type":"momo","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"\u061cChikondi"}`)).
		want(t, 400, "validation_error")

	// /v2 orders: every beneficiary field and client_ref.
	q := toBankQuote(t, e, key)
	for _, b := range []string{
		`{"name":"Chisomo \u202eadnab","bank_name":"National Bank of Malawi","account_number":"100200300"}`,
		`{"name":"Chisomo Banda","bank_name":"National\u2060Bank","account_number":"100200300"}`,
		`{"name":"Chisomo Banda","bank_name":"National Bank of Malawi","account_number":"100200300\u200f"}`,
		`{"name":"Chisomo Banda","bank_name":"National Bank of Malawi","account_number":"100200300","branch":"\u2067Lilongwe"}`,
	} {
		wantMessage(post("/v2/orders", orderBody(q.QuoteID, "inv-1", b)).want(t, 400, "validation_error"), "beneficiary.")
	}
	post("/v2/orders", orderBody(q.QuoteID, "inv\ufeff-1", beneficiaryJSON)).want(t, 400, "validation_error")

	// Nothing was created or held.
	if got := listPayouts(t, e, key, ""); len(got.Payouts) != 0 {
		t.Errorf("/v1 payouts: %s", got.Payouts)
	}
	var v2page struct{ Payouts []any }
	e.do(t, "GET", "/v2/payouts", nil, hdr(key)).want(t, 200, "").decode(t, &v2page)
	var orderPage struct{ Orders []any }
	e.do(t, "GET", "/v2/orders", nil, hdr(key)).want(t, 200, "").decode(t, &orderPage)
	if len(v2page.Payouts) != 0 || len(orderPage.Orders) != 0 {
		t.Errorf("created: %d /v2 payouts, %d orders", len(v2page.Payouts), len(orderPage.Orders))
	}
	wantBalance(t, e, key, "MWK", "100000.00", "0.00")
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000")
	createOrder(t, e, key, "ok", orderBody(q.QuoteID, "inv-1", `{"name":"Łukasz محمد","bank_name":"Banki ya Ŵanthu","account_number":"100200300"}`))
	post("/v1/payouts/bank", bank("3333888800", "Ŵongani Mhango")).want(t, 202, "")
}

// TestTextRuleAdminHTTP: the operator's institutions carry account number
// ranges, checked by the engine (400 on a bad list, which replaces
// nothing); the operator's text obeys the text rule too.
func TestTextRuleAdminHTTP(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.newOrg(t, orgSpec{name: "Payer", fundMWK: 100000})
	for _, bad := range []map[string]any{
		{"institution_id": 7, "name": "Bank Seven", "rail": "bank", "account_number_digits": map[string]any{"min_digits": 9, "max_digits": 8}},
		{"institution_id": 7, "name": "Bank Seven", "rail": "bank", "account_number_digits": map[string]any{"max_digits": 35}},
		{"institution_id": 7, "name": "Bank \u202eSeven", "rail": "bank"},
		{"institution_id": 8, "name": "Airtel", "rail": "momo", "network": "9", "account_number_digits": map[string]any{"max_digits": 10}},
	} {
		e.admin(t, "PUT", "/admin/institutions", map[string]any{"institutions": []map[string]any{bad}}).want(t, 400, "validation_error")
	}
	e.admin(t, "PUT", "/admin/institutions", map[string]any{"institutions": []map[string]any{
		{"institution_id": 7, "name": "Bank Seven", "rail": "bank", "account_number_digits": map[string]any{"min_digits": 8, "max_digits": 8}},
		{"institution_id": 8, "name": "Bank Eight", "rail": "bank", "account_number_digits": nil},
	}}).want(t, 200, "")
	n := 0
	pay := func(inst int, account string) *resp {
		n++
		body := fmt.Sprintf(`{"amount_mwk":"100.00","institution_id":%d,"account_number":%q,"beneficiary_name":"A"}`, inst, account)
		return e.do(t, "POST", "/v1/payouts/bank", body, hdr(key, "Idempotency-Key", fmt.Sprint("k", n)))
	}
	pay(7, "123456789").want(t, 422, "invalid_account_number")
	pay(7, "12345678").want(t, 202, "")
	pay(8, "12345678901234567").want(t, 422, "invalid_account_number")
	pay(8, "1234567890123456").want(t, 202, "")
	pay(1, "3333888800").want(t, 422, "unknown_institution") // the synced list replaced the built-in one

	e.admin(t, "POST", "/admin/orgs", map[string]any{"name": "Acme\u2066 Ltd"}).want(t, 400, "validation_error")
	e.admin(t, "POST", "/admin/orgs", map[string]any{"name": "Łukasz & Chikondi Ltd"}).want(t, 201, "")
}

// TestTextRuleHTTPDefaultIgnorable (issue #33): default-ignorable code
// points that are not format characters (the combining grapheme joiner
// U+034F, the Hangul filler U+3164, a variation selector) render as
// nothing and are refused like the format characters: 400
// validation_error naming the code point, nothing created.
func TestTextRuleHTTPDefaultIgnorable(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.newOrg(t, orgSpec{name: "Payer", v2: tambala.V2Enabled, assets: deskAssets, fundUSDT: 1000, fundMWK: 100000})
	n := 0
	post := func(path, body string) *resp {
		n++
		return e.do(t, "POST", path, body, hdr(key, "Idempotency-Key", fmt.Sprint("k", n)))
	}
	q := toBankQuote(t, e, key)
	for _, c := range []struct{ beneficiary, code string }{
		{`{"name":"Grace\u034f Phiri\u3164","bank_name":"National Bank of Malawi","account_number":"100200300"}`, "U+034F"},
		{`{"name":"Grace Phiri\u3164","bank_name":"National Bank of Malawi","account_number":"100200300"}`, "U+3164"},
		{"{\"name\":\"Grace Phiri\",\"bank_name\":\"National\u115fBank\",\"account_number\":\"100200300\"}", "U+115F"},
		{`{"name":"Grace Phiri","bank_name":"National Bank of Malawi","account_number":"100200300","branch":"Lilongwe\ufe0f"}`, "U+FE0F"},
	} {
		r := post("/v2/orders", orderBody(q.QuoteID, "inv-1", c.beneficiary)).want(t, 400, "validation_error")
		var env struct{ Error struct{ Message string } }
		r.decode(t, &env)
		if !strings.Contains(env.Error.Message, c.code) || !strings.Contains(env.Error.Message, "beneficiary.") {
			t.Errorf("message %q does not name the field and %s", env.Error.Message, c.code)
		}
	}
	post("/v1/payouts/bank", `{"amount_mwk":"1000.00","institution_id":1,"account_number":"3333888800","beneficiary_name":"Grace\u034f Phiri"}`).
		want(t, 400, "validation_error")
	var orderPage struct{ Orders []any }
	e.do(t, "GET", "/v2/orders", nil, hdr(key)).want(t, 200, "").decode(t, &orderPage)
	if len(orderPage.Orders) != 0 {
		t.Errorf("created %d orders", len(orderPage.Orders))
	}
	// A no-break space is a space, not an invisible character: accepted
	// (the desk's page marks it).
	createOrder(t, e, key, "nbsp", orderBody(q.QuoteID, "inv-1", `{"name":"Grace Phiri","bank_name":"National\u00a0Bank","account_number":"100200300"}`))
}
