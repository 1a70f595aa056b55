package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
)

// sendRaw sends body with exactly the headers given (send adds
// Content-Type: application/json to every request with a body; here a
// request may have none) and validates the answer against the public or
// the admin document.
func (e *testEnv) sendRaw(t testing.TB, admin bool, method, path, body string, h http.Header) *resp {
	t.Helper()
	srv := e.srv
	if admin {
		srv = e.admSrv
	}
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := &resp{Status: res.StatusCode, Header: res.Header, Body: b}
	if admin {
		checkAdmin(t, method, path, r.Status, r.Header, r.Body)
	} else {
		checkPublic(t, method, path, r.Status, r.Header, r.Body)
	}
	return r
}

func bearerWith(key string, kv ...string) http.Header {
	h := http.Header{"Authorization": {"Bearer " + key}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// jsonBodyOperations lists "METHOD /path" of the operations of doc that
// take a JSON body, in order.
func jsonBodyOperations(doc *openapi3.T) []string {
	var out []string
	for k, op := range operationsOf(doc) {
		if op.RequestBody != nil && op.RequestBody.Value.Content.Get("application/json") != nil {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// concrete fills a documented path's parameters.
func concrete(path, org string) string {
	return strings.NewReplacer("{org}", org, "{id}", "0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "{asset}", "MWK",
		"{rail}", "bank", "{operation}", "payout", "{network}", "tron", "{key}", "k").Replace(path)
}

// notJSON are media types a JSON route refuses.
var notJSON = []string{
	"text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "application/xml", "text/xml",
	"multipart/form-data; boundary=x", "application/octet-stream", "application/jsonx", "application/json-patch+json",
	"application/json; charset=iso-8859-1", "application/json;;", "", "json",
}

// TestJSONRoutes_RefuseOtherMediaTypes: every operation of both documents
// that takes a JSON body answers 415 unsupported_media_type to a body
// declared as another media type, and documents it.
func TestJSONRoutes_RefuseOtherMediaTypes(t *testing.T) {
	e := newEnv(t)
	org, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: allAssets, fundMWK: 1_000_000, fundUSDT: 1000})
	for _, doc := range []struct {
		admin bool
		doc   *openapi3.T
		auth  string
		min   int
	}{{false, loadSpec(t).doc, key, 10}, {true, loadAdminSpec(t).doc, adminToken, 17}} {
		ops := jsonBodyOperations(doc.doc)
		if len(ops) < doc.min {
			t.Fatalf("only %d operations with a JSON body: %v", len(ops), ops)
		}
		for _, k := range ops {
			method, path, _ := strings.Cut(k, " ")
			if operationsOf(doc.doc)[k].Responses.Status(415) == nil {
				t.Errorf("%s takes a JSON body and does not document 415", k)
			}
			for _, ct := range notJSON {
				r := e.sendRaw(t, doc.admin, method, concrete(path, org.ID), `{}`, bearerWith(doc.auth, "Content-Type", ct, "Idempotency-Key", "ct-"+ct))
				if r.Status != 415 || r.code() != "unsupported_media_type" {
					t.Errorf("%s with Content-Type %q: %d %s, want 415 unsupported_media_type", k, ct, r.Status, truncate(r.Body))
				}
			}
		}
	}
	// Routes without a JSON body are not concerned.
	e.sendRaw(t, true, "POST", "/admin/orgs/"+org.ID+"/keys", "", bearerWith(adminToken, "Content-Type", "application/x-www-form-urlencoded")).want(t, 201, "")
	// Nothing was created on the way.
	orgs, err := e.Engine.Operator().Organizations(context.Background())
	if err != nil || len(orgs) != 1 {
		t.Errorf("organizations: %d %v", len(orgs), err)
	}
	r := e.do(t, "GET", "/v2/payouts", nil, hdr(key)).want(t, 200, "")
	if !strings.Contains(string(r.Body), `"payouts":[]`) {
		t.Errorf("payouts after refusals: %s", r.Body)
	}
	e.do(t, "GET", "/v1/balance", nil, hdr(key)).want(t, 200, "")
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000")
}

// TestJSONRoutes_MediaTypeAccepted: application/json in any case, with
// charset=utf-8 or other parameters, is read as JSON.
func TestJSONRoutes_MediaTypeAccepted(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: allAssets, fundMWK: 1_000_000})
	body := `{"amount_mwk":"1000.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"Test Wallet"}`
	for i, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON; Charset=\"UTF-8\"", "application/json;version=1"} {
		h := bearerWith(key, "Idempotency-Key", "ok-"+strconv.Itoa(i))
		h.Set("Content-Type", ct)
		e.sendRaw(t, false, "POST", "/v1/payouts/momo", body, h).want(t, 202, "")
	}
	r := e.sendRaw(t, true, "POST", "/admin/orgs", `{"name":"With Content-Type"}`, bearerWith(adminToken, "Content-Type", "application/json"))
	r.want(t, 201, "")
}

// TestJSONRoutes_BodyWithoutContentTypeRefused (issue #33): every
// operation of both documents that takes a JSON body answers 415
// unsupported_media_type to a body sent without a Content-Type, as to a
// wrong one, and uses no Idempotency-Key on the way; a request with no
// body needs no Content-Type.
func TestJSONRoutes_BodyWithoutContentTypeRefused(t *testing.T) {
	e := newEnv(t)
	org, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: allAssets, fundMWK: 1_000_000, fundUSDT: 1000})
	for _, doc := range []struct {
		admin bool
		doc   *openapi3.T
		auth  string
	}{{false, loadSpec(t).doc, key}, {true, loadAdminSpec(t).doc, adminToken}} {
		for _, k := range jsonBodyOperations(doc.doc) {
			method, path, _ := strings.Cut(k, " ")
			r := e.sendRaw(t, doc.admin, method, concrete(path, org.ID), `{}`, bearerWith(doc.auth, "Idempotency-Key", "no-ct"))
			if r.Status != 415 || r.code() != "unsupported_media_type" {
				t.Errorf("%s with a body and no Content-Type: %d %s, want 415 unsupported_media_type", k, r.Status, truncate(r.Body))
			}
		}
	}
	// A valid payout without a Content-Type is refused and stores
	// nothing: the same key sent as JSON afterwards is a first creation.
	body := `{"amount_mwk":"1000.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"Test Wallet"}`
	e.sendRaw(t, false, "POST", "/v1/payouts/momo", body, bearerWith(key, "Idempotency-Key", "later")).want(t, 415, "unsupported_media_type")
	r := e.do(t, "GET", "/v1/payouts", nil, hdr(key)).want(t, 200, "")
	if strings.Contains(string(r.Body), `"id"`) {
		t.Errorf("a payout was created without a Content-Type: %s", r.Body)
	}
	e.sendRaw(t, false, "POST", "/v1/payouts/momo", body, bearerWith(key, "Idempotency-Key", "later", "Content-Type", "application/json")).want(t, 202, "")
	// No body, no Content-Type: not a media type question (the route
	// answers for the missing body, or takes none).
	e.sendRaw(t, false, "POST", "/v1/payouts/momo", "", bearerWith(key, "Idempotency-Key", "empty")).want(t, 400, "validation_error")
	e.sendRaw(t, true, "POST", "/admin/orgs/"+org.ID+"/keys", "", bearerWith(adminToken)).want(t, 201, "")
}

// TestJSONRoutes_RefusedMediaTypeStoresNothing: a create refused for its
// media type uses no idempotency key and moves no money: the same key and
// body sent as JSON afterwards is a first creation, not a replay.
func TestJSONRoutes_RefusedMediaTypeStoresNothing(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: allAssets, fundUSDT: 1000})
	body := `{"source_asset":"USDT","amount":"25.00","asset":"USDT","destination":{"type":"wallet","network":"tron","address":"TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV"}}`
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/xml", "multipart/form-data; boundary=b"} {
		e.sendRaw(t, false, "POST", "/v2/payouts", body, bearerWith(key, "Content-Type", ct, "Idempotency-Key", "same")).want(t, 415, "unsupported_media_type")
	}
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000")
	r := e.sendRaw(t, false, "POST", "/v2/payouts", body, bearerWith(key, "Content-Type", "application/json", "Idempotency-Key", "same")).want(t, 202, "")
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Error("the first JSON request under the key is not a replay")
	}
	// A decided key does not change the answer: 415 still comes first.
	e.sendRaw(t, false, "POST", "/v2/payouts", body, bearerWith(key, "Content-Type", "text/plain", "Idempotency-Key", "same")).want(t, 415, "unsupported_media_type")
}

// TestJSONRoutes_MediaTypeAnswerOrder: 415 comes after authentication, the
// pause switch and /v2 access, and before the Idempotency-Key and the
// body.
func TestJSONRoutes_MediaTypeAnswerOrder(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: allAssets, fundUSDT: 1000})
	_, pending := e.newOrg(t, orgSpec{name: "pending", assets: allAssets})
	text := func(k string, kv ...string) http.Header {
		h := http.Header{"Content-Type": {"text/plain"}}
		if k != "" {
			h.Set("Authorization", "Bearer "+k)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	e.sendRaw(t, false, "POST", "/v2/payouts", `{}`, text("")).want(t, 401, "unauthorized")
	e.sendRaw(t, true, "PUT", "/admin/pause", `{}`, text("")).want(t, 401, "unauthorized")
	e.sendRaw(t, false, "POST", "/v2/payouts", `{}`, text(pending)).want(t, 403, "onboarding_incomplete")
	e.sendRaw(t, false, "POST", "/v2/payouts", `not json`, text(key)).want(t, 415, "unsupported_media_type") // no Idempotency-Key, no JSON
	setPause(t, e, "v2", "maintenance")
	e.sendRaw(t, false, "POST", "/v2/payouts", `{}`, text(key, "Idempotency-Key", "p")).want(t, 503, "service_maintenance")
	e.sendRaw(t, false, "POST", "/v1/payouts/momo", `{}`, text(key)).want(t, 415, "unsupported_media_type") // /v1 is not paused
	setPause(t, e, "v2", "live")
}

// TestOrders_ProofLinkIgnoresHost: the link is never built from the
// request's Host: relative without a configured base URL, absolute on the
// configured one otherwise.
func TestOrders_ProofLinkIgnoresHost(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	q := fromBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(q.QuoteID, "host-1", ""))
	move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")
	uploadProof(t, e, key, o.ID, "application/pdf", pdf1).want(t, 200, "")
	for _, c := range []struct{ base, prefix string }{
		{"", "/files/proofs/"},
		{"https://api.example.com", "https://api.example.com/files/proofs/"},
		{"https://example.com/api/", "https://example.com/api/files/proofs/"},
	} {
		h := httpapi.New(e.Engine, &httpapi.Options{PublicBaseURL: c.base})
		for _, host := range []string{"evil.example", "example.com"} {
			req := httptest.NewRequest("GET", "/v2/orders/"+o.ID+"/proofs/funding", nil)
			req.Host = host
			req.Header.Set("X-Forwarded-Host", "evil.example")
			req.Header.Set("Authorization", "Bearer "+key)
			r := serveDirect(h, req)
			checkPublic(t, "GET", req.URL.Path, r.Status, r.Header, r.Body)
			var link struct{ URL string }
			r.decode(t, &link)
			if !strings.HasPrefix(link.URL, c.prefix) || strings.Contains(link.URL, "evil") {
				t.Errorf("base %q, Host %s: url = %s, want it under %s", c.base, host, link.URL, c.prefix)
			}
			u, err := url.Parse(link.URL)
			if err != nil {
				t.Fatal(err)
			}
			e.file(t, false, strings.TrimPrefix(u.Path, "/api"), nil).want(t, 200, "")
		}
	}
	// The default handler of the test environment too.
	var link struct{ URL string }
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(key)).want(t, 200, "").decode(t, &link)
	if !strings.HasPrefix(link.URL, "/files/proofs/") {
		t.Errorf("url = %s, want a relative link", link.URL)
	}
}

// TestCheckPublicBaseURL: what a public base URL may be.
func TestCheckPublicBaseURL(t *testing.T) {
	for _, ok := range []string{"https://api.example.com", "http://127.0.0.1:8080", "https://example.com/api/"} {
		if err := httpapi.CheckPublicBaseURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "api.example.com", "/files", "ftp://example.com", "https://", "https://example.com/?a=b", "https://example.com/#x", "https://u:p@example.com", "https://exa mple.com"} {
		if err := httpapi.CheckPublicBaseURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestProofFiles_NoSniff: a served proof's bytes are never content-sniffed
// by a browser: both downloads say nosniff.
func TestProofFiles_NoSniff(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	q := fromBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(q.QuoteID, "sniff-1", ""))
	move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")
	uploadProof(t, e, key, o.ID, "image/png", pngBytes).want(t, 200, "")
	var link struct{ URL string }
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(key)).want(t, 200, "").decode(t, &link)
	u, err := url.Parse(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*resp{
		e.file(t, false, u.Path, nil).want(t, 200, ""),
		e.file(t, true, "/admin/orders/"+o.ID+"/proofs/funding", hdr(adminToken)).want(t, 200, ""),
	} {
		if got := r.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("X-Content-Type-Options = %q, want nosniff", got)
		}
		if string(r.Body) != pngBytes {
			t.Errorf("body = %q", r.Body)
		}
	}
}
