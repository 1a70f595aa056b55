package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

// The /v2 conversions through HTTP only: quotes, creates, reads, the
// worker's result, every error code of these routes,
// the /v2 pause and access states, and the admin limits.

const convHTTPDelay = 2 * time.Second

func newConvEnv(t *testing.T, opts ...func(*tambala.Options)) (*testEnv, *sandbox.Converter) {
	t.Helper()
	var conv *sandbox.Converter
	e := newDeskEnv(t, append([]func(*tambala.Options){func(o *tambala.Options) {
		conv = sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: convHTTPDelay})
		o.Converter = conv
	}}, opts...)...)
	return e, conv
}

// convOrg has convert on MWK and USDT, 1000 USDT and 100000 MWK.
func (e *testEnv) convOrg(t testing.TB, name string) (tambala.Organization, string) {
	t.Helper()
	return e.newOrg(t, orgSpec{name: name, v2: tambala.V2Enabled, assets: allAssets, fundUSDT: 1000, fundMWK: 100000})
}

type conversionJSON struct {
	ID         string `json:"id"`
	FromAsset  string `json:"from_asset"`
	ToAsset    string `json:"to_asset"`
	FromAmount string `json:"from_amount"`
	ToAmount   string `json:"to_amount"`
	Rate       string `json:"rate"`
	Status     string `json:"status"`
	Failure    *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"failure"`
	CreatedAt string `json:"created_at"`
}

func convQuote(t *testing.T, e *testEnv, key, from, to, amount string) quoteJSON {
	t.Helper()
	var q quoteJSON
	e.do(t, "POST", "/v2/conversions/quotes", quoteBody(from, to, "from", amount), hdr(key)).want(t, 201, "").decode(t, &q)
	return q
}

func convBody(qid string) string { return fmt.Sprintf(`{"quote_id":%q}`, qid) }

func createConv(t *testing.T, e *testEnv, key, idem, qid string) conversionJSON {
	t.Helper()
	var c conversionJSON
	e.do(t, "POST", "/v2/conversions", convBody(qid), hdr(key, "Idempotency-Key", idem)).want(t, 201, "").decode(t, &c)
	return c
}

func TestConversions_HappyPathAndReads(t *testing.T) {
	e, conv := newConvEnv(t)
	_, key := e.convOrg(t, "")
	q := convQuote(t, e, key, "USDT", "MWK", "100")
	if q.ToAmount != "175050.00" || q.Rate != "1750.5" {
		t.Errorf("quote = %+v", q)
	}
	r := e.do(t, "POST", "/v2/conversions", convBody(q.QuoteID), hdr(key, "Idempotency-Key", "k1")).want(t, 201, "")
	var c conversionJSON
	r.decode(t, &c)
	if c.Status != "processing" || c.Failure != nil || c.FromAmount != "100.000000" || c.ToAmount != "175050.00" {
		t.Errorf("conversion = %+v", c)
	}
	// Replay: byte for byte, flagged.
	again := e.do(t, "POST", "/v2/conversions", convBody(q.QuoteID), hdr(key, "Idempotency-Key", "k1")).want(t, 201, "")
	if string(again.Body) != string(r.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay differs: %s", again.Body)
	}
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Error("first answer flagged as a replay")
	}
	// A failing one.
	q2 := convQuote(t, e, key, "MWK", "USDT", "18000.00")
	bad := createConv(t, e, key, "k2", q2.QuoteID)
	conv.ScriptFailure(bad.ID, tambala.ConversionProviderDeclined)

	ctx := context.Background()
	if _, err := e.Engine.Work().ProcessConversions(ctx); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(convHTTPDelay + time.Second)
	if _, err := e.Engine.Work().ProcessConversions(ctx); err != nil {
		t.Fatal(err)
	}
	var got conversionJSON
	e.do(t, "GET", "/v2/conversions/"+c.ID, nil, hdr(key)).want(t, 200, "").decode(t, &got)
	if got.Status != "completed" {
		t.Errorf("status = %s", got.Status)
	}
	e.do(t, "GET", "/v2/conversions/"+bad.ID, nil, hdr(key)).want(t, 200, "").decode(t, &got)
	if got.Status != "failed" || got.Failure == nil || got.Failure.Code != "provider_declined" {
		t.Errorf("failed = %+v", got)
	}
	var bal struct {
		Available string `json:"available"`
	}
	e.do(t, "GET", "/v2/balances/MWK", nil, hdr(key)).want(t, 200, "").decode(t, &bal)
	if bal.Available != "275050.00" { // 100000 (18000 held, then released) + 175050
		t.Errorf("MWK available = %s", bal.Available)
	}

	// The list, its filter and pages.
	var page struct {
		Conversions  []conversionJSON `json:"conversions"`
		HasMore      bool             `json:"has_more"`
		NextBeforeID *string          `json:"next_before_id"`
	}
	e.do(t, "GET", "/v2/conversions?limit=1", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Conversions) != 1 || page.Conversions[0].ID != bad.ID || !page.HasMore || page.NextBeforeID == nil {
		t.Errorf("page 1 = %+v", page)
	}
	e.do(t, "GET", "/v2/conversions?limit=1&before_id="+*page.NextBeforeID, nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Conversions) != 1 || page.Conversions[0].ID != c.ID || page.HasMore {
		t.Errorf("page 2 = %+v", page)
	}
	e.do(t, "GET", "/v2/conversions?asset=USDT", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Conversions) != 2 {
		t.Errorf("asset filter: %d", len(page.Conversions))
	}
}

// TestConversions_Codes: every error code of the conversion
// routes (the request chain's codes in TestConversions_PauseAndAccess).
func TestConversions_Codes(t *testing.T) {
	e, _ := newConvEnv(t, func(o *tambala.Options) { o.Limits.MaxBodyBytes = 512 })
	_, key := e.convOrg(t, "")
	_, other := e.newOrg(t, orgSpec{name: "NoConvert", v2: tambala.V2Enabled, assets: deskAssets, fundUSDT: 10})
	quote := func(k, body string, status int, code string) {
		t.Helper()
		e.do(t, "POST", "/v2/conversions/quotes", body, hdr(k)).want(t, status, code)
	}
	// Quotes.
	quote(key, `{"from_asset":"USDT","to_asset":"MWK"}`, 400, "validation_error")
	quote(key, `{"from_asset":"USDT","to_asset":"MWK","from_amount":10}`, 400, "validation_error")
	quote(key, `not json`, 400, "validation_error")
	quote(key, quoteBody("USDT", "MWK", "from", "1.1234567"), 400, "validation_error")
	quote(key, quoteBody("usdt", "MWK", "from", "1"), 422, "unsupported_asset")
	quote(key, quoteBody("USDT", "USDT", "from", "1"), 422, "unsupported_pair")
	quote(key, quoteBody("USDT", "ZMW", "from", "1"), 403, "corridor_not_enabled")
	quote(other, quoteBody("USDT", "MWK", "from", "1"), 403, "corridor_not_enabled")
	quote(key, quoteBody("USDT", "MWK", "from", "0.000001"), 422, "amount_below_minimum")
	e.admin(t, "PUT", "/admin/assets/USDT/limits/convert", `{"min":"5","max":"500"}`).want(t, 200, "")
	var lim map[string]any
	e.admin(t, "GET", "/admin/assets/USDT/limits/convert", nil).want(t, 200, "").decode(t, &lim)
	if lim["min"] != "5.000000" || lim["max"] != "500.000000" {
		t.Errorf("limits = %v", lim)
	}
	e.admin(t, "PUT", "/admin/assets/USDT/limits/convert", `{"min":"5","max":"1"}`).want(t, 400, "validation_error")
	e.admin(t, "PUT", "/admin/assets/USDT/limits/trade", `{}`).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/assets/EURC/limits/convert", nil).want(t, 400, "validation_error")
	quote(key, quoteBody("USDT", "MWK", "from", "4"), 422, "amount_below_minimum")
	quote(key, quoteBody("USDT", "MWK", "from", "501"), 422, "limit_exceeded")
	e.admin(t, "PUT", "/admin/assets/USDT/limits/convert", `{"min":null}`).want(t, 200, "")
	e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":null,"rate_on_ramp":"1800","min":"1000.00","open":true}`).want(t, 200, "")
	quote(key, quoteBody("USDT", "MWK", "from", "10"), 503, "rate_unavailable")
	e.admin(t, "PUT", "/admin/corridors/MWK", corridorMWK).want(t, 200, "")
	quote(key, `{"from_asset":"USDT","to_asset":"MWK","from_amount":"10","pad":"`+strings.Repeat("x", 600)+`"}`, 413, "payload_too_large")

	// Creates.
	create := func(idem, body string, status int, code string) {
		t.Helper()
		h := hdr(key)
		if idem != "" {
			h["Idempotency-Key"] = idem
		}
		e.do(t, "POST", "/v2/conversions", body, h).want(t, status, code)
	}
	q := convQuote(t, e, key, "USDT", "MWK", "10")
	create("", convBody(q.QuoteID), 400, "validation_error")
	create(strings.Repeat("k", 256), convBody(q.QuoteID), 400, "validation_error")
	create("bad-body", `{"quote_id":1}`, 400, "validation_error")
	create("missing", `{}`, 400, "validation_error")
	create("unknown", convBody("0190a0a0-0000-7000-8000-000000000000"), 404, "not_found")
	create("malformed", convBody("nope"), 404, "not_found")
	var oq quoteJSON
	e.do(t, "POST", "/v2/orders/quotes", quoteBody("USDT", "MWK", "from", "10"), hdr(key)).want(t, 201, "").decode(t, &oq)
	create("order-quote", convBody(oq.QuoteID), 404, "not_found")
	create("first", convBody(q.QuoteID), 201, "")
	create("first", convBody(oq.QuoteID), 409, "conflict")
	create("second", convBody(q.QuoteID), 409, "quote_used")
	big := convQuote(t, e, key, "USDT", "MWK", "991")
	create("short", convBody(big.QuoteID), 402, "insufficient_funds")
	late := convQuote(t, e, key, "USDT", "MWK", "1")
	e.Clock.Advance(61 * time.Second)
	create("late", convBody(late.QuoteID), 422, "quote_expired")
	// Operation re-checked: convert removed from MWK.
	q3 := convQuote(t, e, key, "USDT", "MWK", "1")
	org := mustOrgOfKey(t, e, key)
	e.admin(t, "PUT", "/admin/orgs/"+org+"/assets", map[string]any{"assets": assetsJSON(deskAssets)}).want(t, 200, "")
	create("disabled", convBody(q3.QuoteID), 403, "corridor_not_enabled")

	// Reads.
	e.do(t, "GET", "/v2/conversions/nope", nil, hdr(key)).want(t, 404, "not_found")
	e.do(t, "GET", "/v2/conversions?limit=0", nil, hdr(key)).want(t, 400, "validation_error")
	e.do(t, "GET", "/v2/conversions?before_id=nope", nil, hdr(key)).want(t, 400, "validation_error")
	e.do(t, "GET", "/v2/conversions?asset=", nil, hdr(key)).want(t, 400, "validation_error")
	e.do(t, "GET", "/v2/conversions?asset=ZMW", nil, hdr(key)).want(t, 403, "corridor_not_enabled")
}

func mustOrgOfKey(t *testing.T, e *testEnv, key string) string {
	t.Helper()
	p, err := e.Engine.Authenticate(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return p.Org.ID
}

// TestConversions_PauseAndAccess: every conversion route is paused with
// /v2 and needs /v2 access, and a conversion accepted before the pause
// still completes while it lasts.
func TestConversions_PauseAndAccess(t *testing.T) {
	e, _ := newConvEnv(t)
	org, key := e.convOrg(t, "")
	q := convQuote(t, e, key, "USDT", "MWK", "10")
	c := createConv(t, e, key, "k", q.QuoteID)
	q2 := convQuote(t, e, key, "USDT", "MWK", "10")
	type req struct {
		method, path, body string
		headers            []string
	}
	routes := []req{
		{"POST", "/v2/conversions/quotes", quoteBody("USDT", "MWK", "from", "10"), nil},
		{"POST", "/v2/conversions", convBody(q2.QuoteID), []string{"Idempotency-Key", "paused"}},
		{"GET", "/v2/conversions", "", nil},
		{"GET", "/v2/conversions/" + c.ID, "", nil},
	}
	send := func(k string, r req) *resp {
		t.Helper()
		var body any
		if r.body != "" {
			body = r.body
		}
		return e.do(t, r.method, r.path, body, hdr(k, r.headers...))
	}
	for _, mode := range []string{"maintenance", "incident"} {
		setPause(t, e, "v2", mode)
		for _, r := range routes {
			send(key, r).want(t, 503, "service_"+mode)
			send("", r).want(t, 401, "unauthorized")
		}
	}
	// Paused: the accepted conversion still completes.
	ctx := context.Background()
	if _, err := e.Engine.Work().ProcessConversions(ctx); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(convHTTPDelay + time.Second)
	if _, err := e.Engine.Work().ProcessConversions(ctx); err != nil {
		t.Fatal(err)
	}
	setPause(t, e, "v2", "live")
	var got conversionJSON
	e.do(t, "GET", "/v2/conversions/"+c.ID, nil, hdr(key)).want(t, 200, "").decode(t, &got)
	if got.Status != "completed" {
		t.Errorf("status after the pause = %s", got.Status)
	}
	for _, access := range []string{"onboarding_incomplete", "access_suspended"} {
		e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/v2-access", map[string]string{"v2_access": access}).want(t, 200, "")
		for _, r := range routes {
			send(key, r).want(t, 403, access)
		}
	}
	e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/v2-access", map[string]string{"v2_access": "enabled"}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/status", map[string]string{"status": "suspended"}).want(t, 200, "")
	for _, r := range routes {
		send(key, r).want(t, 403, "forbidden")
	}
}

func TestConversions_RateLimited(t *testing.T) {
	e, _ := newConvEnv(t, func(o *tambala.Options) { o.Limits.RatePerSecond, o.Limits.RateBurst = 0.001, 1 })
	_, key := e.convOrg(t, "")
	e.do(t, "GET", "/v2/conversions", nil, hdr(key)).want(t, 200, "")
	r := e.do(t, "POST", "/v2/conversions/quotes", quoteBody("USDT", "MWK", "from", "10"), hdr(key)).want(t, 429, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	e.do(t, "POST", "/v2/conversions", convBody("x"), hdr(key, "Idempotency-Key", "k")).want(t, 429, "rate_limited")
	e.do(t, "GET", "/v2/conversions/x", nil, hdr(key)).want(t, 429, "rate_limited")
}

type failingPricer struct{}

func (failingPricer) ConversionRate(context.Context, quotes.Pair) (money.Rate, bool, error) {
	return money.Rate{}, false, errors.New("pricer down")
}

// A pricer that fails is 500 internal_error (its cause never shown); a
// body over the cap is 413 on the create too.
func TestConversions_InternalErrorAndCap(t *testing.T) {
	e, _ := newConvEnv(t, func(o *tambala.Options) { o.ConversionPricer = failingPricer{}; o.Limits.MaxBodyBytes = 512 })
	_, key := e.convOrg(t, "")
	r := e.do(t, "POST", "/v2/conversions/quotes", quoteBody("USDT", "MWK", "from", "10"), hdr(key)).want(t, 500, "internal_error")
	if strings.Contains(string(r.Body), "pricer down") {
		t.Errorf("the cause leaked: %s", r.Body)
	}
	e.do(t, "POST", "/v2/conversions", `{"quote_id":"`+strings.Repeat("x", 600)+`"}`, hdr(key, "Idempotency-Key", "big")).want(t, 413, "payload_too_large")
}
