package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/internal/strictjson"
)

// fuzzRoutes are the POST routes FuzzRequest drives. Each builds the body
// from the fuzzed raw body or amount.
var fuzzRoutes = []struct {
	name  string
	admin bool
	path  string // "{org}" is replaced
	idem  bool
	body  func(raw []byte, amount string) []byte
}{
	{"admin createOrg raw", true, "/admin/orgs", false, func(raw []byte, _ string) []byte { return raw }},
	{"admin createOrg name", true, "/admin/orgs", false, func(_ []byte, a string) []byte { return jsonObj("name", quote(a), "balance_floor_mwk", quote(a)) }},
	{"admin fund raw", true, "/admin/orgs/{org}/funding", false, func(raw []byte, _ string) []byte { return raw }},
	{"admin fund amount string", true, "/admin/orgs/{org}/funding", false, func(_ []byte, a string) []byte {
		return jsonObj("asset", `"MWK"`, "amount", quote(a), "ref", quote(a))
	}},
	{"admin fund amount raw", true, "/admin/orgs/{org}/funding", false, func(_ []byte, a string) []byte {
		return jsonObj("asset", `"USDT"`, "amount", a, "ref", `"r"`)
	}},
	{"bank raw", false, "/v1/payouts/bank", true, func(raw []byte, _ string) []byte { return raw }},
	{"momo raw", false, "/v1/payouts/momo", true, func(raw []byte, _ string) []byte { return raw }},
	{"fees raw", false, "/v1/fees/quote", false, func(raw []byte, _ string) []byte { return raw }},
	{"bank amount raw", false, "/v1/payouts/bank", true, func(_ []byte, a string) []byte {
		return jsonObj("amount_mwk", a, "institution_id", "1", "account_number", `"3333888800"`, "beneficiary_name", `"A"`)
	}},
	{"bank amount string", false, "/v1/payouts/bank", true, func(_ []byte, a string) []byte {
		return jsonObj("amount_mwk", quote(a), "institution_id", "1", "account_number", quote(a), "beneficiary_name", quote(a))
	}},
	{"momo amount raw", false, "/v1/payouts/momo", true, func(_ []byte, a string) []byte {
		return jsonObj("amount_mwk", a, "institution_id", "101", "mobile_number", `"265991234567"`, "beneficiary_name", `"A"`)
	}},
	{"momo fields", false, "/v1/payouts/momo", true, func(_ []byte, a string) []byte {
		return jsonObj("amount_mwk", `"10"`, "institution_id", "102", "mobile_number", quote(a), "beneficiary_name", quote(a))
	}},
	{"fees amount raw", false, "/v1/fees/quote", false, func(_ []byte, a string) []byte {
		return jsonObj("direction", `"payout"`, "rail", `"bank"`, "amount_mwk", a)
	}},
	{"fees amount string", false, "/v1/fees/quote", false, func(_ []byte, a string) []byte {
		return jsonObj("direction", `"collection"`, "rail", `"momo"`, "amount_mwk", quote(a))
	}},
}

// quote renders s as a JSON string (invalid UTF-8 becomes U+FFFD).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// jsonObj splices raw JSON values into an object without validating them.
func jsonObj(kv ...string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quote(kv[i]) + ":" + kv[i+1])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// FuzzRequest feeds arbitrary bodies, amounts and header values to the POST
// routes: the handlers never panic, never answer 5xx, always answer JSON,
// every non-2xx is the envelope with a code of errcode.Table (public
// responses also match the OpenAPI document), and no body that the strict
// decoding refuses (duplicate or case-variant names, invalid UTF-8,
// control characters, trailing data) is ever accepted.
func FuzzRequest(f *testing.F) {
	e := newEnv(f, withRealClock(), withLimits(tambala.Limits{RatePerSecond: 1e9, RateBurst: 1 << 30, MaxBodyBytes: 64 << 10}))
	org, key := e.newOrg(f, orgSpec{v2: tambala.V2Enabled, assets: allAssets, fundMWK: 1_000_000_000, fundUSDT: 1000})

	bodies := []string{
		``, `{}`, `null`, `[]`, `"x"`, `0`, `{"amount_mwk":null}`, `{"amount_mwk":[]}`, `{"amount_mwk":{}}`,
		`{"amount_mwk":"100","institution_id":1,"account_number":"3333888800","beneficiary_name":"A"}`,
		`{"amount_mwk":100,"institution_id":101,"mobile_number":"265991234567","beneficiary_name":"A"}`,
		`{"amount_mwk":"1.5","institution_id":102,"mobile_number":"111100000112","beneficiary_name":"A"}`,
		`{"direction":"payout","rail":"bank","amount_mwk":"100.01"}`,
		`{"direction":"collection","rail":"momo","amount_mwk":1}`,
		`{"name":"Org","assets":[{"asset":"USDT","operations":["payout","payout"]}],"v2_access":"enabled","balance_floor_mwk":"1"}`,
		`{"name":"Org","assets":null}`, `{"name":"Org","assets":[{"asset":"MWK","operations":null}]}`,
		`{"asset":"MWK","amount":"1.00","ref":"a"}`, `{"asset":"USDT","amount":"0.000001","ref":"b"}`,
		`{"amount_mwk":"1","amount_mwk":"2"}`, `{"AMOUNT_MWK":"1"}`, `{"amount_mwk":"1"} trailing`,
		`{"amount_mwk":"1.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"A","AMOUNT_MWK":"3.00"}`,
		`{"amount_mwk":"1.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"A","amount_mwk":"2.00"}`,
		`{"amount_mwk":"1.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"A\ud800"}`,
		`{"amount_mwk":"1.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"A\u0000"}`,
		"{\"name\":\"\xff\xfe\"}", "{\"beneficiary_name\":\"\xc3\x28\",\"amount_mwk\":\"1\",\"institution_id\":1,\"account_number\":\"1\"}",
		`{"institution_id":9223372036854775808,"amount_mwk":"1","account_number":"1","beneficiary_name":"A"}`,
		`{"institution_id":-1}`, `{"institution_id":1e2}`, `{"name":"` + strings.Repeat("a", 5000) + `"}`,
		strings.Repeat("[", 10000), `{"a":` + strings.Repeat(`{"a":`, 2000) + `1` + strings.Repeat(`}`, 2001),
	}
	amounts := []string{
		"100", "100.5", "100.50", "100.505", "0", "0.00", "-1", "+1", "1e3", "1E3", "1.5e2", "0x10", "1_000", "1,000",
		" 1", "1 ", ".5", "5.", "00012.30", "1000000000000", "1000000000000.01", "99999999999999999999999999999999999999",
		strings.Repeat("9", 400), "NaN", "Infinity", "null", "true", "[]", "{}", `"1"`, "", "١٢٣", "\xff", "1\x00",
		"0.000001", "0.0000001", "18446744073709551616",
	}
	auths := []string{"", "Bearer", "Basic x", "Bearer tmb_live_short", "Bearer " + key + "\n", "Bearer \xff", "bearer " + key}
	idems := []string{"", "k", strings.Repeat("k", 256), "\xff\xfe", "key with spaces", "k\x00"}
	for i, b := range bodies {
		f.Add(uint8(i), []byte(b), amounts[i%len(amounts)], "", idems[i%len(idems)])
	}
	for i, a := range amounts {
		f.Add(uint8(i), []byte(`{}`), a, auths[i%len(auths)], "k")
	}
	for i := range fuzzRoutes {
		f.Add(uint8(i), []byte(bodies[9]), "100", "", "seed")
		f.Add(uint8(i)|0x80, []byte(bodies[9]), "100", auths[i%len(auths)], "seed")
	}

	f.Fuzz(func(t *testing.T, route uint8, body []byte, amount, auth, idem string) {
		r := fuzzRoutes[int(route&0x7f)%len(fuzzRoutes)]
		path := strings.ReplaceAll(r.path, "{org}", org.ID)
		req := httptest.NewRequest("POST", path, bytes.NewReader(r.body(body, amount)))
		req.Header.Set("Content-Type", "application/json")
		switch {
		case route&0x80 != 0:
			req.Header.Set("Authorization", auth) // fuzzed
		case r.admin:
			req.Header.Set("Authorization", "Bearer "+adminToken)
		default:
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if r.idem || idem != "" {
			req.Header.Set("Idempotency-Key", idem)
		}
		h := e.Public
		if r.admin {
			h = e.Admin
		}
		sent := r.body(body, amount)
		res := serveDirect(h, req)
		if res.Status >= 500 {
			t.Fatalf("%s: %d %s", r.name, res.Status, truncate(res.Body))
		}
		if res.Status < 300 && strictjson.Validate(sent) != nil {
			t.Fatalf("%s: accepted a body the strict decoding refuses: %q", r.name, sent)
		}
		if r.admin {
			checkEnvelope(t, "POST", path, res.Status, res.Header, res.Body)
		} else {
			checkPublic(t, "POST", path, res.Status, res.Header, res.Body)
		}
	})
}
