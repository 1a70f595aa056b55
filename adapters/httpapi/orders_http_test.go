package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

// The /v2 desk through HTTP only: corridors, quotes, orders, funding
// proofs and their links, every error code of these routes, the /v2
// pause and access states.

// The responses of GET /files/proofs/{token} and GET
// /admin/orders/{id}/proofs/funding are the proof's bytes: the document
// types them as binary strings, which kin-openapi decodes with its file
// decoder once it knows the media types.
func init() {
	for _, ct := range []string{"application/pdf", "image/png", "image/jpeg"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

// deskAssets: MWK for both directions, USDT with every operation.
var deskAssets = []tambala.AssetAccess{
	{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection}},
	{Asset: "USDT", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
}

// corridorMWK is the MWK corridor of every desk test.
const corridorMWK = `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":true}`

// zmw is a second corridor currency, configured only by withZMW.
var zmw = money.Asset{Code: "ZMW", Decimals: 2}

// withZMW configures ZMW as a second fiat asset (a second corridor, or a
// fiat asset without one).
func withZMW(o *tambala.Options) {
	o.Assets = money.DefaultAssets()
	o.Assets["ZMW"] = zmw
	o.AssetClasses = quotes.DefaultClasses()
	o.AssetClasses["ZMW"] = quotes.Fiat
}

// newDeskEnv is newEnv with engine options of its own (the desk's options,
// extra assets), and the MWK corridor set through PUT /admin/corridors/MWK.
func newDeskEnv(t testing.TB, opts ...func(*tambala.Options)) *testEnv {
	t.Helper()
	e := &testEnv{Store: memstore.New(), Clock: &fakeClock{t: epoch}}
	o := &tambala.Options{Clock: e.Clock.Now, Limits: tambala.Limits{RatePerSecond: 1_000_000, RateBurst: 1_000_000}}
	for _, f := range opts {
		f(o)
	}
	eng, err := tambala.New(e.Store, o)
	if err != nil {
		t.Fatal(err)
	}
	e.Engine = eng
	e.Public = httpapi.New(eng, nil)
	adm, err := httpapi.NewAdmin(eng, adminToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Admin = adm
	e.srv = httptest.NewServer(e.Public)
	e.admSrv = httptest.NewServer(e.Admin)
	t.Cleanup(func() {
		e.srv.Close()
		e.admSrv.Close()
	})
	e.admin(t, "PUT", "/admin/corridors/MWK", corridorMWK).want(t, 200, "")
	return e
}

// deskOrg is an organization with /v2 enabled, deskAssets and 1000 USDT.
func (e *testEnv) deskOrg(t testing.TB, name string) (tambala.Organization, string) {
	t.Helper()
	return e.newOrg(t, orgSpec{name: name, v2: tambala.V2Enabled, assets: deskAssets, fundUSDT: 1000})
}

// ---------------------------------------------------------------------------
// Bodies and reads.

const pdf1 = "%PDF-1.4 first funding proof\n%%EOF\n"
const pdf2 = "%PDF-1.4 second funding proof, after the rejection\n%%EOF\n"

var pngBytes = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

type orderJSON struct {
	ID          string                   `json:"id"`
	ClientRef   string                   `json:"client_ref"`
	FromAsset   string                   `json:"from_asset"`
	FromAmount  string                   `json:"from_amount"`
	ToAsset     string                   `json:"to_asset"`
	ToAmount    string                   `json:"to_amount"`
	Rate        string                   `json:"rate"`
	Status      string                   `json:"status"`
	Failure     *orderFailureJSON        `json:"failure"`
	Refund      *struct{ Status string } `json:"refund"`
	Beneficiary map[string]string        `json:"beneficiary"`
	Funding     *fundingJSON             `json:"funding"`
	Proofs      struct {
		Funding *struct {
			UploadedAt     string  `json:"uploaded_at"`
			RejectedReason *string `json:"rejected_reason"`
		} `json:"funding"`
	} `json:"proofs"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	ExpiresAt *string `json:"expires_at"`
}

type orderFailureJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type fundingJSON struct {
	BankName      string `json:"bank_name"`
	AccountName   string `json:"account_name"`
	AccountNumber string `json:"account_number"`
	Reference     string `json:"reference"`
	Amount        string `json:"amount"`
	Asset         string `json:"asset"`
	Deadline      string `json:"deadline"`
}

type deskOrderJSON struct {
	Org   string          `json:"org"`
	Order json.RawMessage `json:"order"`
	Proof *struct {
		ID          string `json:"id"`
		SHA256      string `json:"sha256"`
		ContentType string `json:"content_type"`
		Size        int64  `json:"size"`
	} `json:"proof"`
	CoinsLeftAt *string `json:"coins_left_at"`
}

func (d deskOrderJSON) order(t testing.TB) orderJSON {
	t.Helper()
	var o orderJSON
	if err := json.Unmarshal(d.Order, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

type quoteJSON struct {
	QuoteID    string `json:"quote_id"`
	FromAsset  string `json:"from_asset"`
	ToAsset    string `json:"to_asset"`
	FromAmount string `json:"from_amount"`
	ToAmount   string `json:"to_amount"`
	Rate       string `json:"rate"`
	ExpiresAt  string `json:"expires_at"`
}

const beneficiaryJSON = `{"name":"Chisomo Banda","bank_name":"National Bank of Malawi","account_number":"100200300"}`

// quoteBody is a quote request fixing one side: "from" or "to".
func quoteBody(from, to, side, amount string) string {
	return fmt.Sprintf(`{"from_asset":%q,"to_asset":%q,"%s_amount":%q}`, from, to, side, amount)
}

func orderBody(quoteID, clientRef, beneficiary string) string {
	if beneficiary == "" {
		return fmt.Sprintf(`{"quote_id":%q,"client_ref":%q}`, quoteID, clientRef)
	}
	return fmt.Sprintf(`{"quote_id":%q,"client_ref":%q,"beneficiary":%s}`, quoteID, clientRef, beneficiary)
}

func takeQuote(t testing.TB, e *testEnv, key, body string) quoteJSON {
	t.Helper()
	var q quoteJSON
	e.do(t, "POST", "/v2/orders/quotes", body, hdr(key)).want(t, 201, "").decode(t, &q)
	return q
}

// toBankQuote quotes 123.456789 USDT to MWK; fromBankQuote 100000.00 MWK
// to USDT.
func toBankQuote(t testing.TB, e *testEnv, key string) quoteJSON {
	return takeQuote(t, e, key, quoteBody("USDT", "MWK", "from", "123.456789"))
}

func fromBankQuote(t testing.TB, e *testEnv, key string) quoteJSON {
	return takeQuote(t, e, key, quoteBody("MWK", "USDT", "from", "100000.00"))
}

func createOrder(t testing.TB, e *testEnv, key, idem, body string) (orderJSON, *resp) {
	t.Helper()
	var o orderJSON
	r := e.do(t, "POST", "/v2/orders", body, hdr(key, "Idempotency-Key", idem)).want(t, 201, "")
	r.decode(t, &o)
	return o, r
}

func getOrder(t testing.TB, e *testEnv, key, id string) orderJSON {
	t.Helper()
	var o orderJSON
	e.do(t, "GET", "/v2/orders/"+id, nil, hdr(key)).want(t, 200, "").decode(t, &o)
	return o
}

// move makes a desk move through the admin API and returns the desk view.
func move(t testing.TB, e *testEnv, id, mv string, body any, status int, code string) deskOrderJSON {
	t.Helper()
	var d deskOrderJSON
	r := e.admin(t, "POST", "/admin/orders/"+id+"/"+mv, body).want(t, status, code)
	if status == 200 {
		r.decode(t, &d)
	}
	return d
}

func deskOrder(t testing.TB, e *testEnv, id string) deskOrderJSON {
	t.Helper()
	var d deskOrderJSON
	e.admin(t, "GET", "/admin/orders/"+id, nil).want(t, 200, "").decode(t, &d)
	return d
}

func uploadProof(t testing.TB, e *testEnv, key, id, contentType string, body any) *resp {
	t.Helper()
	return e.do(t, "PUT", "/v2/orders/"+id+"/proofs/funding", body, hdr(key, "Content-Type", contentType))
}

func balanceV2(t testing.TB, e *testEnv, key, asset string) (available, held string) {
	t.Helper()
	m := e.do(t, "GET", "/v2/balances/"+asset, nil, hdr(key)).want(t, 200, "").obj(t)
	return m["available"].(string), m["held"].(string)
}

func wantBalance(t testing.TB, e *testEnv, key, asset, available, held string) {
	t.Helper()
	if a, h := balanceV2(t, e, key, asset); a != available || h != held {
		t.Errorf("%s balance = %s available, %s held; want %s, %s", asset, a, h, available, held)
	}
}

// file sends a request whose success answer is a file: a 2xx is validated
// against the document's binary response (and recorded as exercised), any
// other answer is the JSON envelope as usual.
func (e *testEnv) file(t testing.TB, admin bool, path string, headers map[string]string) *resp {
	t.Helper()
	srv, s := e.srv, loadSpec(t)
	if admin {
		srv, s = e.admSrv, loadAdminSpec(t)
	}
	r, err := send(srv, "GET", path, nil, headers)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if r.Status >= 300 {
		if admin {
			checkAdmin(t, "GET", path, r.Status, r.Header, r.Body)
		} else {
			checkPublic(t, "GET", path, r.Status, r.Header, r.Body)
		}
		return r
	}
	req, _ := http.NewRequest("GET", path, nil)
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		t.Errorf("GET %s answered %d, but the document lists no such operation (%v)", path, r.Status, err)
		return r
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: validationOptions},
		Status:                 r.Status, Header: r.Header, Body: io.NopCloser(bytes.NewReader(r.Body)), Options: validationOptions,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("GET %s -> %d does not match the document: %v", path, r.Status, err)
		return r
	}
	exercised.Store(fmt.Sprintf("%s %d", route.Operation.OperationID, r.Status), true)
	return r
}

// ---------------------------------------------------------------------------
// The journeys.

func TestOrders_CorridorsListedAndNotTakenForAnOrderID(t *testing.T) {
	e := newDeskEnv(t, withZMW)
	_, key := e.deskOrg(t, "")
	// ZMW has a corridor, but this organization does not have ZMW.
	e.admin(t, "PUT", "/admin/corridors/ZMW", `{"rate_off_ramp":null,"rate_on_ramp":"21.25","min":"10.00","open":false}`).want(t, 200, "")
	r := e.do(t, "GET", "/v2/orders/corridors", nil, hdr(key)).want(t, 200, "")
	want := `{"corridors":[{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":true}]}`
	if string(r.Body) != want {
		t.Errorf("GET /v2/orders/corridors = %s, want %s", r.Body, want)
	}
	// Another organization with ZMW too sees both, by code.
	_, both := e.newOrg(t, orgSpec{name: "both", v2: tambala.V2Enabled, assets: append(deskAssets[:2:2], tambala.AssetAccess{Asset: "ZMW", Operations: []string{tambala.OpPayout}})})
	r = e.do(t, "GET", "/v2/orders/corridors", nil, hdr(both)).want(t, 200, "")
	want = `{"corridors":[{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":true},` +
		`{"asset":"ZMW","rate_off_ramp":null,"rate_on_ramp":"21.25","min":"10.00","open":false}]}`
	if string(r.Body) != want {
		t.Errorf("GET /v2/orders/corridors = %s, want %s", r.Body, want)
	}
	// The admin sees every corridor, with max.
	r = e.admin(t, "GET", "/admin/corridors", nil).want(t, 200, "")
	want = `{"corridors":[{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","max":null,"open":true},` +
		`{"asset":"ZMW","rate_off_ramp":null,"rate_on_ramp":"21.25","min":"10.00","max":null,"open":false}]}`
	if string(r.Body) != want {
		t.Errorf("GET /admin/corridors = %s, want %s", r.Body, want)
	}
	// "corridors" and "quotes" are literal segments: never order ids.
	e.do(t, "GET", "/v2/orders/quotes", nil, hdr(key)).want(t, 404, "not_found")
	e.do(t, "POST", "/v2/orders/corridors", "{}", hdr(key, "Idempotency-Key", "k")).want(t, 405, "method_not_allowed")
}

func TestOrders_ToBankJourney(t *testing.T) {
	e := newDeskEnv(t)
	org, key := e.deskOrg(t, "")
	q := toBankQuote(t, e, key)
	if q.FromAsset != "USDT" || q.ToAsset != "MWK" || q.FromAmount != "123.456789" || q.ToAmount != "216111.10" ||
		q.Rate != "1750.5" || q.ExpiresAt != "2026-03-02T09:01:00.000Z" {
		t.Errorf("quote = %+v", q)
	}
	// The other side fixed: 216111.10 MWK at 1750.5 needs 123.4567837...
	// USDT, rounded up.
	q2 := takeQuote(t, e, key, quoteBody("USDT", "MWK", "to", "216111.10"))
	if q2.FromAmount != "123.456784" || q2.ToAmount != "216111.10" {
		t.Errorf("quote fixing to_amount = %+v", q2)
	}

	o, r := createOrder(t, e, key, "tb-1", orderBody(q.QuoteID, "inv-1", beneficiaryJSON))
	if o.Status != "accepted" || o.ClientRef != "inv-1" || o.FromAsset != "USDT" || o.FromAmount != "123.456789" ||
		o.ToAsset != "MWK" || o.ToAmount != "216111.10" || o.Rate != "1750.5" || o.Failure != nil || o.Refund != nil ||
		o.Funding != nil || o.ExpiresAt != nil || o.Proofs.Funding != nil || o.CreatedAt != "2026-03-02T09:00:00.000Z" || o.UpdatedAt != o.CreatedAt {
		t.Errorf("created = %s", r.Body)
	}
	if got := o.Beneficiary; len(got) != 3 || got["name"] != "Chisomo Banda" || got["bank_name"] != "National Bank of Malawi" || got["account_number"] != "100200300" {
		t.Errorf("beneficiary = %v", got)
	}
	if !bytes.Contains(r.Body, []byte(`"proofs":{}`)) || !bytes.Contains(r.Body, []byte(`"failure":null`)) {
		t.Errorf("created = %s: want proofs {} and failure null", r.Body)
	}
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Error("a first create says Idempotent-Replayed")
	}
	wantBalance(t, e, key, "USDT", "876.543211", "123.456789")

	// GET shows the same bytes as the create.
	if g := e.do(t, "GET", "/v2/orders/"+o.ID, nil, hdr(key)).want(t, 200, ""); !bytes.Equal(g.Body, r.Body) {
		t.Errorf("GET = %s, create = %s", g.Body, r.Body)
	}

	e.Clock.Advance(time.Minute)
	d := move(t, e, o.ID, "processing", nil, 200, "")
	if d.Org != org.ID || d.order(t).Status != "processing" || d.Proof != nil || d.CoinsLeftAt != nil {
		t.Errorf("processing: %+v", d)
	}
	if got := d.order(t).UpdatedAt; got != "2026-03-02T09:01:00.000Z" {
		t.Errorf("updated_at = %s", got)
	}
	e.Clock.Advance(time.Minute)
	d = move(t, e, o.ID, "coins-sent", nil, 200, "")
	if d.CoinsLeftAt == nil || *d.CoinsLeftAt != "2026-03-02T09:02:00.000Z" || d.order(t).Status != "processing" || d.order(t).UpdatedAt != "2026-03-02T09:01:00.000Z" {
		t.Errorf("coins-sent: %+v %s", d, d.Order)
	}
	wantBalance(t, e, key, "USDT", "876.543211", "0.000000")
	e.Clock.Advance(time.Minute)
	d = move(t, e, o.ID, "complete", nil, 200, "")
	if d.order(t).Status != "completed" {
		t.Errorf("complete: %s", d.Order)
	}
	got := getOrder(t, e, key, o.ID)
	if got.Status != "completed" || got.Failure != nil || got.Refund != nil || got.UpdatedAt != "2026-03-02T09:03:00.000Z" || got.CreatedAt != o.CreatedAt {
		t.Errorf("GET after complete = %+v", got)
	}
	wantBalance(t, e, key, "USDT", "876.543211", "0.000000")

	// The list, its filters and the desk queue.
	var page struct {
		Orders       []orderJSON `json:"orders"`
		HasMore      bool        `json:"has_more"`
		NextBeforeID *string     `json:"next_before_id"`
	}
	e.do(t, "GET", "/v2/orders", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Orders) != 1 || page.Orders[0].ID != o.ID || page.HasMore || page.NextBeforeID != nil {
		t.Errorf("GET /v2/orders = %+v", page)
	}
	e.do(t, "GET", "/v2/orders?status=completed&client_ref=inv-1", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Orders) != 1 || page.Orders[0].ID != o.ID {
		t.Errorf("by client_ref = %+v", page)
	}
	e.do(t, "GET", "/v2/orders?status=accepted", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Orders) != 0 {
		t.Errorf("status=accepted lists %d", len(page.Orders))
	}
	e.do(t, "GET", "/v2/orders?client_ref=INV-1", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Orders) != 0 {
		t.Errorf("client_ref is compared exactly, yet INV-1 lists %d", len(page.Orders))
	}
	for _, q := range []string{"?status=done", "?client_ref=", "?limit=0", "?limit=201", "?before_id=0190c4d2-7f3a-7b1e-8a2b-000000000000"} {
		e.do(t, "GET", "/v2/orders"+q, nil, hdr(key)).want(t, 400, "validation_error")
	}
	var desk struct {
		Orders  []deskOrderJSON `json:"orders"`
		HasMore bool            `json:"has_more"`
	}
	e.admin(t, "GET", "/admin/orders?status=completed&org="+org.ID, nil).want(t, 200, "").decode(t, &desk)
	if len(desk.Orders) != 1 || desk.Orders[0].Org != org.ID || desk.Orders[0].order(t).ID != o.ID {
		t.Errorf("desk queue = %+v", desk)
	}
	e.admin(t, "GET", "/admin/orders?status=accepted", nil).want(t, 200, "").decode(t, &desk)
	if len(desk.Orders) != 0 {
		t.Errorf("accepted queue = %+v", desk)
	}
	for _, q := range []string{"?status=done", "?limit=0", "?limit=201", "?limit=x"} {
		e.admin(t, "GET", "/admin/orders"+q, nil).want(t, 400, "validation_error")
	}
	// The queue's cursor is any id (an order leaves a status queue when it
	// moves, so a cursor need not be in it): before the only order, none.
	e.admin(t, "GET", "/admin/orders?before_id="+o.ID, nil).want(t, 200, "").decode(t, &desk)
	if len(desk.Orders) != 0 || desk.HasMore {
		t.Errorf("before the only order: %+v", desk)
	}
	checkLedger(t, e)
}

func TestOrders_FromBankJourney(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	q := fromBankQuote(t, e, key)
	if q.FromAsset != "MWK" || q.ToAsset != "USDT" || q.FromAmount != "100000.00" || q.ToAmount != "55.555556" || q.Rate != "1800" {
		t.Errorf("quote = %+v", q)
	}
	o, r := createOrder(t, e, key, "fb-1", orderBody(q.QuoteID, "wire-1", ""))
	if o.Status != "awaiting_instructions" || o.Beneficiary != nil || o.Funding != nil || o.ExpiresAt != nil || o.Proofs.Funding != nil {
		t.Errorf("created = %s", r.Body)
	}
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000") // nothing is held
	// No proof is expected before the instructions, and there is no link.
	uploadProof(t, e, key, o.ID, "application/pdf", pdf1).want(t, 409, "proof_not_expected")
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(key)).want(t, 404, "not_found")
	e.file(t, true, "/admin/orders/"+o.ID+"/proofs/funding", hdr(adminToken)).want(t, 404, "not_found")

	d := move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Tambala Desk", "account_number": "0011223344"}, 200, "")
	got := d.order(t)
	f := got.Funding
	if got.Status != "awaiting_funds" || f == nil || f.BankName != "NBM" || f.AccountName != "Tambala Desk" || f.AccountNumber != "0011223344" ||
		f.Amount != "100000.00" || f.Asset != "MWK" || f.Deadline != "2026-03-05T09:00:00.000Z" || got.ExpiresAt == nil || *got.ExpiresAt != f.Deadline ||
		!strings.HasPrefix(f.Reference, "TMB") || len(f.Reference) != 13 {
		t.Errorf("instructions: %s", d.Order)
	}

	e.Clock.Advance(time.Hour)
	r = uploadProof(t, e, key, o.ID, "application/pdf", pdf1).want(t, 200, "")
	var up orderJSON
	r.decode(t, &up)
	if up.Status != "proof_submitted" || up.Proofs.Funding == nil || up.Proofs.Funding.UploadedAt != "2026-03-02T10:00:00.000Z" ||
		up.Proofs.Funding.RejectedReason != nil || up.UpdatedAt != "2026-03-02T10:00:00.000Z" || up.Funding == nil || *up.Funding != *f {
		t.Errorf("upload: %s", r.Body)
	}
	// Another file while under review is not expected (the same file
	// again: TestOrders_IdenticalProofReuploadIsIdempotent).
	uploadProof(t, e, key, o.ID, "application/pdf", pdf2).want(t, 409, "proof_not_expected")

	d = deskOrder(t, e, o.ID)
	if d.Proof == nil || d.Proof.ContentType != "application/pdf" || d.Proof.Size != int64(len(pdf1)) || len(d.Proof.SHA256) != 64 {
		t.Fatalf("desk view: %+v", d)
	}
	first := d.Proof.ID
	if b := e.file(t, true, "/admin/orders/"+o.ID+"/proofs/funding", hdr(adminToken)).want(t, 200, ""); string(b.Body) != pdf1 || b.Header.Get("Content-Type") != "application/pdf" {
		t.Errorf("desk proof = %q %q", b.Header.Get("Content-Type"), b.Body)
	}

	e.Clock.Advance(time.Minute)
	d = move(t, e, o.ID, "reject-proof", map[string]string{"proof_id": first, "reason": "The amount is not visible."}, 200, "")
	got = d.order(t)
	if got.Status != "awaiting_funds" || got.Proofs.Funding == nil || got.Proofs.Funding.RejectedReason == nil ||
		*got.Proofs.Funding.RejectedReason != "The amount is not visible." || got.ExpiresAt == nil || *got.ExpiresAt != f.Deadline {
		t.Errorf("reject-proof: %s", d.Order)
	}
	// A rejected proof still has a link.
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(key)).want(t, 200, "")

	e.Clock.Advance(time.Minute)
	r = uploadProof(t, e, key, o.ID, "APPLICATION/PDF", pdf2).want(t, 200, "")
	r.decode(t, &up)
	if up.Status != "proof_submitted" || up.Proofs.Funding == nil || up.Proofs.Funding.RejectedReason != nil || up.Proofs.Funding.UploadedAt != "2026-03-02T10:02:00.000Z" {
		t.Errorf("second upload: %s", r.Body)
	}
	d = deskOrder(t, e, o.ID)
	if d.Proof == nil || d.Proof.ID == first || d.Proof.Size != int64(len(pdf2)) {
		t.Fatalf("desk view after the second upload: %+v", d.Proof)
	}
	newest := d.Proof.ID
	// The first proof is stale: no move on it.
	move(t, e, o.ID, "confirm-funds", map[string]string{"proof_id": first}, 409, "conflict")
	move(t, e, o.ID, "reject-proof", map[string]string{"proof_id": first, "reason": "stale"}, 409, "conflict")
	d = move(t, e, o.ID, "confirm-funds", map[string]string{"proof_id": newest}, 200, "")
	if d.order(t).Status != "funds_confirmed" {
		t.Errorf("confirm-funds: %s", d.Order)
	}
	// A repeat is 200 unchanged.
	if again := move(t, e, o.ID, "confirm-funds", map[string]string{"proof_id": newest}, 200, ""); !bytes.Equal(again.Order, d.Order) {
		t.Errorf("repeated confirm-funds = %s, want %s", again.Order, d.Order)
	}
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000")
	d = move(t, e, o.ID, "complete", nil, 200, "")
	if d.order(t).Status != "completed" {
		t.Errorf("complete: %s", d.Order)
	}
	if got := getOrder(t, e, key, o.ID); got.Status != "completed" || got.Funding == nil || *got.Funding != *f {
		t.Errorf("GET after complete = %+v", got)
	}
	wantBalance(t, e, key, "USDT", "1055.555556", "0.000000")
	// No proof is expected on a completed order.
	uploadProof(t, e, key, o.ID, "application/pdf", pdf1).want(t, 409, "proof_not_expected")
	checkLedger(t, e)
}

func TestOrders_CreateReplaysByteForByte(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	q := toBankQuote(t, e, key)
	body := orderBody(q.QuoteID, "replay-1", beneficiaryJSON)
	_, first := createOrder(t, e, key, "replay", body)
	second := e.do(t, "POST", "/v2/orders", body, hdr(key, "Idempotency-Key", "replay")).want(t, 201, "")
	if !bytes.Equal(first.Body, second.Body) || second.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay: %q %s, want true and %s", second.Header.Get("Idempotent-Replayed"), second.Body, first.Body)
	}
	// The order moves on; a replay still answers the outcome of the create.
	var o orderJSON
	first.decode(t, &o)
	move(t, e, o.ID, "processing", nil, 200, "")
	third := e.do(t, "POST", "/v2/orders", body, hdr(key, "Idempotency-Key", "replay")).want(t, 201, "")
	if !bytes.Equal(first.Body, third.Body) || third.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay after a move: %s, want %s", third.Body, first.Body)
	}
	// The same key with another body: conflict; the same body under a new
	// key: the quote is used.
	e.do(t, "POST", "/v2/orders", orderBody(q.QuoteID, "replay-2", beneficiaryJSON), hdr(key, "Idempotency-Key", "replay")).want(t, 409, "conflict")
	e.do(t, "POST", "/v2/orders", `{"quote_id":`, hdr(key, "Idempotency-Key", "replay")).want(t, 409, "conflict")
	e.do(t, "POST", "/v2/orders", body, hdr(key, "Idempotency-Key", "replay-new")).want(t, 409, "quote_used")
	wantBalance(t, e, key, "USDT", "876.543211", "123.456789")
	// The key is scoped to the organization.
	_, other := e.deskOrg(t, "other")
	e.do(t, "POST", "/v2/orders", body, hdr(other, "Idempotency-Key", "replay")).want(t, 404, "not_found")
}

func TestOrders_ProofLink(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	_, other := e.deskOrg(t, "other")
	q := fromBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(q.QuoteID, "link-1", ""))
	move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")
	uploadProof(t, e, key, o.ID, "application/pdf", pdf1).want(t, 200, "")

	var link struct {
		URL       string `json:"url"`
		ExpiresAt string `json:"expires_at"`
	}
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(key)).want(t, 200, "").decode(t, &link)
	if link.ExpiresAt != "2026-03-02T09:05:00.000Z" || !strings.HasPrefix(link.URL, "/files/proofs/") { // relative: no PublicBaseURL
		t.Fatalf("link = %+v (server %s)", link, e.srv.URL)
	}
	u, err := url.Parse(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	// No API key: the token is the credential.
	r := e.file(t, false, u.Path, nil).want(t, 200, "")
	if string(r.Body) != pdf1 || r.Header.Get("Content-Type") != "application/pdf" ||
		!strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") || r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("download: %v %q", r.Header, r.Body)
	}
	// Through the handler directly, as a host behind a proxy serves it.
	direct := serveDirect(e.Public, httptest.NewRequest("GET", u.Path, nil))
	if direct.Status != 200 || string(direct.Body) != pdf1 {
		t.Errorf("direct download: %d %q", direct.Status, direct.Body)
	}
	// Tampered tokens: every byte flipped in turn, cut, extended.
	token := strings.TrimPrefix(u.Path, "/files/proofs/")
	for i := 0; i < len(token); i += 7 {
		b := []byte(token)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		e.file(t, false, "/files/proofs/"+string(b), nil).want(t, 404, "not_found")
	}
	for _, bad := range []string{token[:len(token)-1], token + "A", "x", strings.Repeat("A", 80), "%00"} {
		e.file(t, false, "/files/proofs/"+bad, nil).want(t, 404, "not_found")
	}
	// Another organization has no link to it.
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(other)).want(t, 404, "not_found")
	// Paused with /v2; back when it lifts.
	setPause(t, e, "v2", "maintenance")
	e.file(t, false, u.Path, nil).want(t, 503, "service_maintenance")
	setPause(t, e, "v2", "incident")
	e.file(t, false, u.Path, nil).want(t, 503, "service_incident")
	setPause(t, e, "v2", "live")
	e.file(t, false, u.Path, nil).want(t, 200, "")
	// Expired after five minutes (still good at the last millisecond).
	e.Clock.Advance(5 * time.Minute)
	e.file(t, false, u.Path, nil).want(t, 200, "")
	e.Clock.Advance(time.Millisecond)
	e.file(t, false, u.Path, nil).want(t, 404, "not_found")
	// A fresh link works again.
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(key)).want(t, 200, "").decode(t, &link)
	u, _ = url.Parse(link.URL)
	e.file(t, false, u.Path, nil).want(t, 200, "")

	// A to-bank order has no proof and no link.
	tq := toBankQuote(t, e, key)
	tb, _ := createOrder(t, e, key, "tb", orderBody(tq.QuoteID, "tb", beneficiaryJSON))
	e.do(t, "GET", "/v2/orders/"+tb.ID+"/proofs/funding", nil, hdr(key)).want(t, 404, "not_found")
	e.file(t, true, "/admin/orders/"+tb.ID+"/proofs/funding", hdr(adminToken)).want(t, 404, "not_found")
}

// TestOrders_ProofLinkUsesPublicBaseURL: with Options.PublicBaseURL the
// link is absolute on it, whatever host the request came to.
func TestOrders_ProofLinkUsesPublicBaseURL(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	q := fromBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(q.QuoteID, "base-1", ""))
	move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")
	uploadProof(t, e, key, o.ID, "image/png", pngBytes).want(t, 200, "")
	h := httpapi.New(e.Engine, &httpapi.Options{PublicBaseURL: "https://api.example.com/"})
	req := httptest.NewRequest("GET", "/v2/orders/"+o.ID+"/proofs/funding", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	r := serveDirect(h, req)
	checkPublic(t, "GET", req.URL.Path, r.Status, r.Header, r.Body)
	var link struct{ URL string }
	r.decode(t, &link)
	if !strings.HasPrefix(link.URL, "https://api.example.com/files/proofs/") {
		t.Errorf("url = %s", link.URL)
	}
	b := e.file(t, false, strings.TrimPrefix(link.URL, "https://api.example.com"), nil).want(t, 200, "")
	if string(b.Body) != pngBytes || b.Header.Get("Content-Type") != "image/png" {
		t.Errorf("download = %q %q", b.Header.Get("Content-Type"), b.Body)
	}
}

// TestOrders_IdenticalProofReuploadIsIdempotent: uploading the newest
// proof again while the order is proof_submitted answers 200 with the
// order unchanged, so a client may retry an upload whose answer it
// lost. Another file is 409 proof_not_expected.
func TestOrders_IdenticalProofReuploadIsIdempotent(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	q := fromBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(q.QuoteID, "retry-1", ""))
	move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")
	first := uploadProof(t, e, key, o.ID, "application/pdf", pdf1).want(t, 200, "")
	e.Clock.Advance(time.Minute)
	again := uploadProof(t, e, key, o.ID, "application/pdf; name=proof.pdf", pdf1).want(t, 200, "")
	if again.Status == 200 && !bytes.Equal(again.Body, first.Body) {
		t.Errorf("identical re-upload = %s, want the order unchanged: %s", again.Body, first.Body)
	}
	uploadProof(t, e, key, o.ID, "application/pdf", pdf2).want(t, 409, "proof_not_expected")
	if d := deskOrder(t, e, o.ID); d.Proof == nil || d.Proof.Size != int64(len(pdf1)) {
		t.Errorf("desk view: %+v", d.Proof)
	}
}

// ---------------------------------------------------------------------------
// Every error code of these routes.

type call struct {
	name        string
	body        string
	headers     []string // name, value pairs beside the key
	status      int
	code        string
	mustMention string // the message must contain it
}

func TestOrders_QuoteErrors(t *testing.T) {
	e := newDeskEnv(t, withZMW)
	_, key := e.deskOrg(t, "")
	q := func(from, to, side, amount string) string { return quoteBody(from, to, side, amount) }
	cases := []call{
		// 400: the body's shape.
		{name: "empty body", body: ``, status: 400, code: "validation_error"},
		{name: "bad JSON", body: `{"from_asset":"USDT"`, status: 400, code: "validation_error"},
		{name: "array", body: `[]`, status: 400, code: "validation_error"},
		{name: "null", body: `null`, status: 400, code: "validation_error"},
		{name: "trailing data", body: q("USDT", "MWK", "from", "10") + ` {}`, status: 400, code: "validation_error"},
		{name: "duplicate field", body: `{"from_asset":"USDT","from_asset":"MWK","to_asset":"MWK","from_amount":"10"}`, status: 400, code: "validation_error"},
		{name: "number amount", body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":10}`, status: 400, code: "validation_error", mustMention: "string"},
		{name: "number to_amount", body: `{"from_asset":"USDT","to_asset":"MWK","to_amount":20000.5}`, status: 400, code: "validation_error"},
		{name: "both amounts", body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":"10","to_amount":"17505.00"}`, status: 400, code: "validation_error"},
		{name: "neither amount", body: `{"from_asset":"USDT","to_asset":"MWK"}`, status: 400, code: "validation_error"},
		{name: "both null", body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":null,"to_amount":null}`, status: 400, code: "validation_error"},
		{name: "from_asset missing", body: `{"to_asset":"MWK","from_amount":"10"}`, status: 400, code: "validation_error"},
		{name: "to_asset empty", body: `{"from_asset":"USDT","to_asset":"","from_amount":"10"}`, status: 400, code: "validation_error"},
		{name: "asset not a string", body: `{"from_asset":1,"to_asset":"MWK","from_amount":"10"}`, status: 400, code: "validation_error"},
		{name: "exponent", body: q("USDT", "MWK", "from", "1e3"), status: 400, code: "validation_error"},
		{name: "sign", body: q("USDT", "MWK", "from", "-10"), status: 400, code: "validation_error"},
		{name: "zero", body: q("USDT", "MWK", "from", "0"), status: 400, code: "validation_error"},
		{name: "zero at decimals", body: q("MWK", "USDT", "from", "0.00"), status: 400, code: "validation_error"},
		{name: "too many USDT decimals", body: q("USDT", "MWK", "from", "10.0000001"), status: 400, code: "validation_error"},
		{name: "too many MWK decimals", body: q("USDT", "MWK", "to", "20000.001"), status: 400, code: "validation_error"},
		{name: "spaces", body: q("USDT", "MWK", "from", " 10"), status: 400, code: "validation_error"},
		// 422 unsupported_asset: malformed codes, before the list.
		{name: "lowercase", body: q("usdt", "MWK", "from", "10"), status: 422, code: "unsupported_asset"},
		{name: "compound", body: q("USDT-TRC20", "MWK", "from", "10"), status: 422, code: "unsupported_asset"},
		{name: "compound to", body: q("USDT", "MWK.", "from", "10"), status: 422, code: "unsupported_asset"},
		{name: "too long", body: q("ABCDEFGHIJKLM", "MWK", "from", "10"), status: 422, code: "unsupported_asset"},
		{name: "malformed before not enabled", body: q("usdt", "EUR", "from", "10"), status: 422, code: "unsupported_asset"},
		// 403 corridor_not_enabled: well-formed, not in the list (named).
		{name: "not in the list", body: q("USDT", "EUR", "from", "10"), status: 403, code: "corridor_not_enabled", mustMention: "EUR"},
		{name: "configured, not in the list", body: q("USDT", "ZMW", "from", "10"), status: 403, code: "corridor_not_enabled", mustMention: "ZMW"},
		// 422 unsupported_pair.
		{name: "same asset", body: q("MWK", "MWK", "from", "1000.00"), status: 422, code: "unsupported_pair"},
		{name: "two stablecoins", body: q("USDT", "USDT", "from", "10"), status: 422, code: "unsupported_pair"},
		// 422 amount_below_minimum: the corridor-currency side below min,
		// or a derived side of zero.
		{name: "to-bank below min, fixed", body: q("USDT", "MWK", "to", "999.99"), status: 422, code: "amount_below_minimum"},
		{name: "to-bank below min, derived", body: q("USDT", "MWK", "from", "0.5"), status: 422, code: "amount_below_minimum"},
		{name: "to-bank derived zero", body: q("USDT", "MWK", "from", "0.000001"), status: 422, code: "amount_below_minimum"},
		{name: "from-bank below min", body: q("MWK", "USDT", "from", "999.99"), status: 422, code: "amount_below_minimum"},
		{name: "from-bank derived zero", body: q("MWK", "USDT", "to", "0.000001"), status: 422, code: "amount_below_minimum"},
		// The boundary and unknown fields.
		{name: "exactly min", body: q("USDT", "MWK", "to", "1000.00"), status: 201},
		{name: "exactly min from-bank", body: q("MWK", "USDT", "from", "1000.00"), status: 201},
		{name: "unknown fields ignored", body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":"10","network":"tron"}`, status: 201},
		{name: "null other amount", body: `{"from_asset":"USDT","to_asset":"MWK","from_amount":"10","to_amount":null}`, status: 201},
	}
	runCalls(t, e, key, "POST", "/v2/orders/quotes", cases)

	// 403: the operation the direction needs (payout on MWK to-bank,
	// collection from-bank).
	_, collectOnly := e.newOrg(t, orgSpec{name: "collect only", v2: tambala.V2Enabled, assets: []tambala.AssetAccess{
		{Asset: "MWK", Operations: []string{tambala.OpCollection}}, {Asset: "USDT", Operations: []string{tambala.OpConvert}}}})
	r := e.do(t, "POST", "/v2/orders/quotes", q("USDT", "MWK", "from", "10"), hdr(collectOnly)).want(t, 403, "corridor_not_enabled")
	if !bytes.Contains(r.Body, []byte("payout")) {
		t.Errorf("the message names neither the operation: %s", r.Body)
	}
	e.do(t, "POST", "/v2/orders/quotes", q("MWK", "USDT", "from", "1000.00"), hdr(collectOnly)).want(t, 201, "")
	_, payOnly := e.newOrg(t, orgSpec{name: "pay only", v2: tambala.V2Enabled, assets: []tambala.AssetAccess{
		{Asset: "MWK", Operations: []string{tambala.OpPayout}}, {Asset: "USDT"}}})
	e.do(t, "POST", "/v2/orders/quotes", q("MWK", "USDT", "from", "1000.00"), hdr(payOnly)).want(t, 403, "corridor_not_enabled")
	e.do(t, "POST", "/v2/orders/quotes", q("USDT", "MWK", "from", "10"), hdr(payOnly)).want(t, 201, "")
	_, noMWK := e.newOrg(t, orgSpec{name: "no MWK", v2: tambala.V2Enabled, assets: []tambala.AssetAccess{{Asset: "USDT", Operations: []string{tambala.OpPayout}}}})
	e.do(t, "POST", "/v2/orders/quotes", q("USDT", "MWK", "from", "10"), hdr(noMWK)).want(t, 403, "corridor_not_enabled")

	// With ZMW in the list: two corridor currencies are not a pair, and a
	// fiat asset without a corridor has none.
	_, withZ := e.newOrg(t, orgSpec{name: "zmw", v2: tambala.V2Enabled, assets: append(deskAssets[:2:2],
		tambala.AssetAccess{Asset: "ZMW", Operations: []string{tambala.OpPayout, tambala.OpCollection}})})
	e.do(t, "POST", "/v2/orders/quotes", q("MWK", "ZMW", "from", "1000.00"), hdr(withZ)).want(t, 422, "unsupported_pair")
	e.do(t, "POST", "/v2/orders/quotes", q("USDT", "ZMW", "from", "10"), hdr(withZ)).want(t, 422, "unsupported_pair")
	// ZMW's corridor closed while MWK's is open: rate_unavailable, not the
	// desk closed.
	e.admin(t, "PUT", "/admin/corridors/ZMW", `{"rate_off_ramp":"21.5","rate_on_ramp":"22","min":"10.00","open":false}`).want(t, 200, "")
	r = e.do(t, "POST", "/v2/orders/quotes", q("USDT", "ZMW", "from", "10"), hdr(withZ)).want(t, 503, "rate_unavailable")
	if r.Header.Get("Retry-After") != "" {
		t.Error("rate_unavailable with Retry-After")
	}
	e.do(t, "POST", "/v2/orders/quotes", q("USDT", "MWK", "from", "10"), hdr(withZ)).want(t, 201, "")

	// 503 rate_unavailable: the direction's rate null; the other works.
	e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":null,"rate_on_ramp":"1800","min":"1000.00","open":true}`).want(t, 200, "")
	r = e.do(t, "POST", "/v2/orders/quotes", q("USDT", "MWK", "from", "10"), hdr(key)).want(t, 503, "rate_unavailable")
	if r.Header.Get("Retry-After") != "" {
		t.Error("rate_unavailable with Retry-After")
	}
	e.do(t, "POST", "/v2/orders/quotes", q("MWK", "USDT", "from", "1000.00"), hdr(key)).want(t, 201, "")
	e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":null,"min":"1000.00","open":true}`).want(t, 200, "")
	e.do(t, "POST", "/v2/orders/quotes", q("MWK", "USDT", "from", "1000.00"), hdr(key)).want(t, 503, "rate_unavailable")

	// 422 limit_exceeded above the corridor's max (the operator's, never
	// shown to organizations).
	e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","max":"5000000.00","open":true}`).want(t, 200, "")
	if b := e.do(t, "GET", "/v2/orders/corridors", nil, hdr(key)).want(t, 200, "").Body; bytes.Contains(b, []byte("max")) {
		t.Errorf("corridors show max: %s", b)
	}
	e.do(t, "POST", "/v2/orders/quotes", q("USDT", "MWK", "to", "5000000.01"), hdr(key)).want(t, 422, "limit_exceeded")
	e.do(t, "POST", "/v2/orders/quotes", q("USDT", "MWK", "to", "5000000.00"), hdr(key)).want(t, 201, "")
	e.do(t, "POST", "/v2/orders/quotes", q("MWK", "USDT", "from", "5000000.01"), hdr(key)).want(t, 422, "limit_exceeded")

	// 503 service_maintenance: the desk closed (every corridor the
	// organization sees is closed), no Retry-After needed either way.
	e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":false}`).want(t, 200, "")
	e.do(t, "POST", "/v2/orders/quotes", q("USDT", "MWK", "from", "10"), hdr(key)).want(t, 503, "service_maintenance")
	e.do(t, "POST", "/v2/orders/quotes", q("MWK", "USDT", "from", "1000.00"), hdr(key)).want(t, 503, "service_maintenance")
	if b := e.do(t, "GET", "/v2/orders/corridors", nil, hdr(key)).want(t, 200, "").Body; !bytes.Contains(b, []byte(`"open":false`)) {
		t.Errorf("corridors = %s", b)
	}
}

// runCalls sends each call's body to method path with the key and checks
// status and code.
func runCalls(t *testing.T, e *testEnv, key, method, path string, cases []call) {
	t.Helper()
	for _, c := range cases {
		h := hdr(key, c.headers...)
		r := e.do(t, method, path, c.body, h)
		if r.Status != c.status || (c.code != "" && r.code() != c.code) {
			t.Errorf("%s: got %d %s, want %d %s", c.name, r.Status, truncate(r.Body), c.status, c.code)
		}
		if c.mustMention != "" && !bytes.Contains(r.Body, []byte(c.mustMention)) {
			t.Errorf("%s: the message does not mention %s: %s", c.name, c.mustMention, r.Body)
		}
	}
}

func TestOrders_CreateErrors(t *testing.T) {
	e := newDeskEnv(t)
	org, key := e.deskOrg(t, "")
	_, other := e.deskOrg(t, "other")
	tq := toBankQuote(t, e, key)
	fq := fromBankQuote(t, e, key)
	long := strings.Repeat("é", 65)
	ben := func(fields string) string { return orderBody(tq.QuoteID, "ben", "{"+fields+"}") }
	const okFields = `"name":"A","bank_name":"B","account_number":"1"`
	cases := []call{
		// 400: the key and the shape.
		{name: "no key", body: orderBody(tq.QuoteID, "r1", beneficiaryJSON), headers: []string{"Idempotency-Key", ""}, status: 400, code: "validation_error"},
		{name: "key too long", body: orderBody(tq.QuoteID, "r1", beneficiaryJSON), headers: []string{"Idempotency-Key", strings.Repeat("k", 256)}, status: 400, code: "validation_error"},
		{name: "bad JSON", body: `{"quote_id":`, status: 400, code: "validation_error"},
		{name: "not an object", body: `["quote_id"]`, status: 400, code: "validation_error"},
		{name: "empty", body: ``, status: 400, code: "validation_error"},
		{name: "quote_id missing", body: `{"client_ref":"r1"}`, status: 400, code: "validation_error"},
		{name: "quote_id a number", body: `{"quote_id":1,"client_ref":"r1"}`, status: 400, code: "validation_error"},
		{name: "client_ref missing", body: fmt.Sprintf(`{"quote_id":%q}`, tq.QuoteID), status: 400, code: "validation_error"},
		{name: "client_ref empty", body: orderBody(tq.QuoteID, "", beneficiaryJSON), status: 400, code: "validation_error"},
		{name: "client_ref too long", body: orderBody(tq.QuoteID, long, beneficiaryJSON), status: 400, code: "validation_error"},
		{name: "client_ref a number", body: fmt.Sprintf(`{"quote_id":%q,"client_ref":7,"beneficiary":%s}`, tq.QuoteID, beneficiaryJSON), status: 400, code: "validation_error"},
		{name: "duplicate field", body: fmt.Sprintf(`{"quote_id":%q,"client_ref":"a","client_ref":"b","beneficiary":%s}`, tq.QuoteID, beneficiaryJSON), status: 400, code: "validation_error"},
		{name: "beneficiary unknown field", body: ben(okFields + `,"iban":"MW00"`), status: 400, code: "validation_error", mustMention: "iban"},
		{name: "beneficiary empty string", body: orderBody(tq.QuoteID, "ben", `""`), status: 400, code: "validation_error"},
		{name: "beneficiary a number", body: orderBody(tq.QuoteID, "ben", `1`), status: 400, code: "validation_error"},
		{name: "beneficiary an array", body: orderBody(tq.QuoteID, "ben", `[]`), status: 400, code: "validation_error"},
		{name: "beneficiary name empty", body: ben(`"name":"","bank_name":"B","account_number":"1"`), status: 400, code: "validation_error"},
		{name: "beneficiary name too long", body: ben(`"name":"` + strings.Repeat("n", 201) + `","bank_name":"B","account_number":"1"`), status: 400, code: "validation_error"},
		{name: "beneficiary name missing", body: ben(`"bank_name":"B","account_number":"1"`), status: 400, code: "validation_error"},
		{name: "beneficiary name null", body: ben(`"name":null,"bank_name":"B","account_number":"1"`), status: 400, code: "validation_error"},
		{name: "beneficiary field a number", body: ben(`"name":"A","bank_name":"B","account_number":100200`), status: 400, code: "validation_error"},
		{name: "beneficiary branch empty", body: ben(okFields + `,"branch":""`), status: 400, code: "validation_error"},
		{name: "beneficiary empty object", body: ben(``), status: 400, code: "validation_error"},
		// 404: unknown, malformed and foreign quotes look alike.
		{name: "unknown quote", body: orderBody("0190c4d2-7f3a-7b1e-8a2b-000000000000", "r1", beneficiaryJSON), status: 404, code: "not_found"},
		{name: "malformed quote id", body: orderBody("not-a-uuid", "r1", beneficiaryJSON), status: 404, code: "not_found"},
		{name: "empty quote id", body: orderBody("", "r1", beneficiaryJSON), status: 404, code: "not_found"},
		// 422: the beneficiary's presence.
		{name: "to-bank without beneficiary", body: orderBody(tq.QuoteID, "r1", ""), status: 422, code: "beneficiary_required"},
		{name: "to-bank with null beneficiary", body: orderBody(tq.QuoteID, "r1", "null"), status: 422, code: "beneficiary_required"},
		{name: "from-bank with beneficiary", body: orderBody(fq.QuoteID, "r1", beneficiaryJSON), status: 422, code: "beneficiary_not_allowed"},
		{name: "from-bank with empty beneficiary", body: orderBody(fq.QuoteID, "r1", "{}"), status: 422, code: "beneficiary_not_allowed"},
	}
	for i := range cases {
		if len(cases[i].headers) == 0 {
			cases[i].headers = []string{"Idempotency-Key", fmt.Sprintf("create-err-%d", i)}
		}
	}
	runCalls(t, e, key, "POST", "/v2/orders", cases)
	// A foreign quote is not_found too.
	e.do(t, "POST", "/v2/orders", orderBody(tq.QuoteID, "r1", beneficiaryJSON), hdr(other, "Idempotency-Key", "foreign")).want(t, 404, "not_found")
	// Nothing was created or held by the rejections; the quotes are
	// unused, and a key a rejection came with is free.
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000")
	var page struct{ Orders []orderJSON }
	e.do(t, "GET", "/v2/orders", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Orders) != 0 {
		t.Fatalf("%d orders after rejections", len(page.Orders))
	}
	// A branch null counts as absent; a branch is echoed when sent.
	o, _ := createOrder(t, e, key, "create-err-0", orderBody(tq.QuoteID, "ok-1", `{"name":" A ","bank_name":"B","account_number":"007","branch":null}`))
	if len(o.Beneficiary) != 3 || o.Beneficiary["name"] != " A " || o.Beneficiary["account_number"] != "007" {
		t.Errorf("beneficiary = %v", o.Beneficiary)
	}
	if f, _ := createOrder(t, e, key, "create-err-1", orderBody(fq.QuoteID, "ok-2", "null")); f.Status != "awaiting_instructions" || f.Beneficiary != nil {
		t.Errorf("from-bank with beneficiary null = %+v", f)
	}

	// 409 quote_used: the first order stands, under any key.
	e.do(t, "POST", "/v2/orders", orderBody(tq.QuoteID, "ok-3", beneficiaryJSON), hdr(key, "Idempotency-Key", "used")).want(t, 409, "quote_used")
	// 409 client_ref_used: on another order, whatever its direction.
	q2 := toBankQuote(t, e, key)
	e.do(t, "POST", "/v2/orders", orderBody(q2.QuoteID, "ok-2", beneficiaryJSON), hdr(key, "Idempotency-Key", "ref-used")).want(t, 409, "client_ref_used")
	// client_ref is compared exactly and scoped to the organization.
	createOrder(t, e, key, "ref-case", orderBody(q2.QuoteID, "OK-2", beneficiaryJSON))
	oq := toBankQuote(t, e, other)
	createOrder(t, e, other, "ref-other-org", orderBody(oq.QuoteID, "ok-2", beneficiaryJSON))
	// 409 conflict: the same key with another body.
	q3 := toBankQuote(t, e, key)
	e.do(t, "POST", "/v2/orders", orderBody(q3.QuoteID, "ok-9", beneficiaryJSON), hdr(key, "Idempotency-Key", "ref-case")).want(t, 409, "conflict")

	// 402 insufficient_funds: to-bank beyond the USDT available (quotes
	// hold nothing, so the quote is fine); the message names the asset.
	// Held now: 2 × 123.456789; available 753.086422.
	big := takeQuote(t, e, key, quoteBody("USDT", "MWK", "from", "753.086423"))
	r := e.do(t, "POST", "/v2/orders", orderBody(big.QuoteID, "big", beneficiaryJSON), hdr(key, "Idempotency-Key", "big")).want(t, 402, "insufficient_funds")
	if !bytes.Contains(r.Body, []byte("USDT")) {
		t.Errorf("insufficient_funds does not name the asset: %s", r.Body)
	}
	wantBalance(t, e, key, "USDT", "753.086422", "246.913578")
	fit := takeQuote(t, e, key, quoteBody("USDT", "MWK", "from", "753.086422"))
	createOrder(t, e, key, "fit", orderBody(fit.QuoteID, "fit", beneficiaryJSON))
	wantBalance(t, e, key, "USDT", "0.000000", "1000.000000")
	// A from-bank order holds nothing: no funds needed.
	fq2 := fromBankQuote(t, e, key)
	createOrder(t, e, key, "fb-no-funds", orderBody(fq2.QuoteID, "fb-no-funds", ""))

	// 403 corridor_not_enabled: the operation was taken away after the
	// quote.
	tq4 := toBankQuote(t, e, key)
	e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/assets", map[string]any{"assets": assetsJSON([]tambala.AssetAccess{
		{Asset: "MWK", Operations: []string{tambala.OpCollection}}, {Asset: "USDT", Operations: []string{tambala.OpPayout}}})}).want(t, 200, "")
	e.do(t, "POST", "/v2/orders", orderBody(tq4.QuoteID, "op-gone", beneficiaryJSON), hdr(key, "Idempotency-Key", "op-gone")).want(t, 403, "corridor_not_enabled")
	e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/assets", map[string]any{"assets": assetsJSON([]tambala.AssetAccess{
		{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection}}})}).want(t, 200, "")
	e.do(t, "POST", "/v2/orders", orderBody(tq4.QuoteID, "op-gone", beneficiaryJSON), hdr(key, "Idempotency-Key", "asset-gone")).want(t, 403, "corridor_not_enabled")
	checkLedger(t, e)
}

func TestOrders_QuoteExpiryAndTheDeskClosing(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	// Usable at exactly expires_at, expired a millisecond later.
	q := toBankQuote(t, e, key)
	e.Clock.Advance(60 * time.Second)
	createOrder(t, e, key, "at-expiry", orderBody(q.QuoteID, "at-expiry", beneficiaryJSON))
	q = toBankQuote(t, e, key)
	e.Clock.Advance(61 * time.Second)
	e.do(t, "POST", "/v2/orders", orderBody(q.QuoteID, "late", beneficiaryJSON), hdr(key, "Idempotency-Key", "late")).want(t, 422, "quote_expired")
	// The quote's expiry is checked before the beneficiary's presence.
	e.do(t, "POST", "/v2/orders", orderBody(q.QuoteID, "late", ""), hdr(key, "Idempotency-Key", "late-2")).want(t, 422, "quote_expired")
	// Still expired, not not_found, a day later.
	e.Clock.Advance(23 * time.Hour)
	e.do(t, "POST", "/v2/orders", orderBody(q.QuoteID, "late", beneficiaryJSON), hdr(key, "Idempotency-Key", "late-3")).want(t, 422, "quote_expired")

	// The desk closing between quote and order: 503, nothing created, the
	// quote left unused.
	q = toBankQuote(t, e, key)
	fq := fromBankQuote(t, e, key)
	e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":false}`).want(t, 200, "")
	e.do(t, "POST", "/v2/orders", orderBody(q.QuoteID, "closed", beneficiaryJSON), hdr(key, "Idempotency-Key", "closed")).want(t, 503, "service_maintenance")
	e.do(t, "POST", "/v2/orders", orderBody(fq.QuoteID, "closed-fb", ""), hdr(key, "Idempotency-Key", "closed-fb")).want(t, 503, "service_maintenance")
	wantBalance(t, e, key, "USDT", "876.543211", "123.456789")
	// Reopened with other rates and one direction closed: the frozen
	// quotes still execute at their own terms.
	e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"1900","rate_on_ramp":null,"min":"5000.00","open":true}`).want(t, 200, "")
	o, _ := createOrder(t, e, key, "closed", orderBody(q.QuoteID, "closed", beneficiaryJSON))
	if o.Rate != "1750.5" || o.ToAmount != "216111.10" {
		t.Errorf("order after the rate changed = %+v", o)
	}
	f, _ := createOrder(t, e, key, "closed-fb", orderBody(fq.QuoteID, "closed-fb", ""))
	if f.Rate != "1800" || f.ToAmount != "55.555556" {
		t.Errorf("from-bank order after its direction closed = %+v", f)
	}
	wantBalance(t, e, key, "USDT", "753.086422", "246.913578")
}

// TestOrders_CreateChecksInDesignOrder: POST /v2/orders answers the first
// failing check in this order: the key, the shape (quote_id a string,
// client_ref 1 to 64 characters), the quote (404, 409 quote_used, 422
// quote_expired), the beneficiary's presence (422), its fields (400,
// to-bank only), then enablement, the desk, client_ref uniqueness and the
// funds; see docs/decisions.md, "/v2 desk (orders, quotes, corridors)".
func TestOrders_CreateChecksInDesignOrder(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	expired := toBankQuote(t, e, key)
	e.Clock.Advance(61 * time.Second)
	tq := toBankQuote(t, e, key)
	fq := fromBankQuote(t, e, key)
	used := toBankQuote(t, e, key)
	createOrder(t, e, key, "used", orderBody(used.QuoteID, "used", beneficiaryJSON))
	const unknown = "0190c4d2-7f3a-7b1e-8a2b-000000000000"
	long := strings.Repeat("x", 65)
	for _, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		// The shape before the quote.
		{"client_ref too long, unknown quote", orderBody(unknown, long, beneficiaryJSON), 400, "validation_error"},
		{"client_ref empty, used quote", orderBody(used.QuoteID, "", beneficiaryJSON), 400, "validation_error"},
		{"client_ref too long, expired quote", orderBody(expired.QuoteID, long, beneficiaryJSON), 400, "validation_error"},
		{"client_ref too long, no beneficiary", orderBody(tq.QuoteID, long, ""), 400, "validation_error"},
		// The quote and the beneficiary's presence before its fields.
		{"unknown quote, bad beneficiary", orderBody(unknown, "r", `{"iban":"x"}`), 404, "not_found"},
		{"unknown quote, empty name", orderBody(unknown, "r", `{"name":""}`), 404, "not_found"},
		{"used quote, bad beneficiary", orderBody(used.QuoteID, "r", `{"name":1}`), 409, "quote_used"},
		{"expired quote, bad beneficiary", orderBody(expired.QuoteID, "r", `{"name":"A","bank_name":"B","account_number":"1","swift":"X"}`), 422, "quote_expired"},
		// Field validation only on to-bank: any non-null beneficiary
		// on a from-bank order is beneficiary_not_allowed.
		{"from-bank, beneficiary with an unknown field", orderBody(fq.QuoteID, "r", `{"iban":"MW00"}`), 422, "beneficiary_not_allowed"},
		{"from-bank, beneficiary an empty string", orderBody(fq.QuoteID, "r", `""`), 422, "beneficiary_not_allowed"},
		{"from-bank, beneficiary with an empty name", orderBody(fq.QuoteID, "r", `{"name":""}`), 422, "beneficiary_not_allowed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.do(t, "POST", "/v2/orders", c.body, hdr(key, "Idempotency-Key", c.name)).want(t, c.status, c.code)
		})
	}
}

func TestOrders_ProofUploadErrors(t *testing.T) {
	e := newDeskEnv(t, func(o *tambala.Options) { o.Orders.MaxProofBytes = 64 })
	_, key := e.deskOrg(t, "")
	_, other := e.deskOrg(t, "other")
	fq := fromBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(fq.QuoteID, "proofs", ""))
	tq := toBankQuote(t, e, key)
	tb, _ := createOrder(t, e, key, "tb", orderBody(tq.QuoteID, "proofs-tb", beneficiaryJSON))
	const unknown = "0190c4d2-7f3a-7b1e-8a2b-000000000000"

	// 409 proof_not_expected: awaiting_instructions; a to-bank order.
	uploadProof(t, e, key, o.ID, "application/pdf", pdf1).want(t, 409, "proof_not_expected")
	uploadProof(t, e, key, tb.ID, "application/pdf", pdf1).want(t, 409, "proof_not_expected")
	move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")

	// 415 first: before the order is looked at.
	for _, ct := range []string{"", "text/plain", "application/json", "application/pdfx", "image/gif", "application/octet-stream", "multipart/form-data; boundary=x"} {
		uploadProof(t, e, key, o.ID, ct, pdf1).want(t, 415, "unsupported_media_type")
		uploadProof(t, e, key, unknown, ct, pdf1).want(t, 415, "unsupported_media_type")
		uploadProof(t, e, key, tb.ID, ct, pdf1).want(t, 415, "unsupported_media_type")
	}
	// 404: unknown, malformed and foreign orders.
	uploadProof(t, e, key, unknown, "application/pdf", pdf1).want(t, 404, "not_found")
	uploadProof(t, e, key, "not-an-id", "application/pdf", pdf1).want(t, 404, "not_found")
	uploadProof(t, e, other, o.ID, "application/pdf", pdf1).want(t, 404, "not_found")
	// 415: the content does not match its declared type.
	uploadProof(t, e, key, o.ID, "image/png", pdf1).want(t, 415, "unsupported_media_type")
	uploadProof(t, e, key, o.ID, "image/jpeg", pngBytes).want(t, 415, "unsupported_media_type")
	uploadProof(t, e, key, o.ID, "application/pdf", "%PDF").want(t, 415, "unsupported_media_type")
	// 400: empty.
	uploadProof(t, e, key, o.ID, "application/pdf", "").want(t, 400, "validation_error")
	// 413 over the cap (64 bytes here): declared, or read from a body of
	// unknown length.
	over := "%PDF-" + strings.Repeat("x", 60)
	uploadProof(t, e, key, o.ID, "application/pdf", over).want(t, 413, "payload_too_large")
	uploadProof(t, e, key, o.ID, "application/pdf", chunked{strings.NewReader(over)}).want(t, 413, "payload_too_large")
	// A declared length over the cap is refused before the order is
	// looked at.
	uploadProof(t, e, key, unknown, "application/pdf", over).want(t, 413, "payload_too_large")
	// None of that stored a proof.
	if d := deskOrder(t, e, o.ID); d.Proof != nil || d.order(t).Status != "awaiting_funds" {
		t.Fatalf("after the refusals: %+v %s", d.Proof, d.Order)
	}
	// Exactly the cap is fine.
	atCap := "%PDF-" + strings.Repeat("x", 59)
	uploadProof(t, e, key, o.ID, "application/pdf", chunked{strings.NewReader(atCap)}).want(t, 200, "")
	// 409 while under review (another file, whatever its type).
	uploadProof(t, e, key, o.ID, "image/jpeg; q=1", "\xff\xd8\xff\xe0JFIF").want(t, 409, "proof_not_expected")

	// Past the funding deadline with no proof ever: 409 even before the
	// sweep expires the order; the sweep then expires it.
	fq2 := fromBankQuote(t, e, key)
	o2, _ := createOrder(t, e, key, "k2", orderBody(fq2.QuoteID, "proofs-2", ""))
	move(t, e, o2.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")
	// A rejected proof keeps its order open to a new proof past the
	// deadline.
	d := deskOrder(t, e, o.ID)
	move(t, e, o.ID, "reject-proof", map[string]string{"proof_id": d.Proof.ID, "reason": "Unreadable."}, 200, "")
	e.Clock.Advance(72*time.Hour + time.Millisecond)
	uploadProof(t, e, key, o2.ID, "application/pdf", pdf1).want(t, 409, "proof_not_expected")
	if n, err := e.Engine.Work().ProcessOrders(context.Background()); err != nil || n != 1 {
		t.Errorf("ProcessOrders = %d, %v; want 1", n, err)
	}
	if got := getOrder(t, e, key, o2.ID); got.Status != "expired" || got.ExpiresAt == nil || *got.ExpiresAt != "2026-03-05T09:00:00.000Z" {
		t.Errorf("after the sweep: %+v", got)
	}
	uploadProof(t, e, key, o2.ID, "application/pdf", pdf1).want(t, 409, "proof_not_expected")
	if got := getOrder(t, e, key, o.ID); got.Status != "awaiting_funds" {
		t.Errorf("the order with a rejected proof: %s", got.Status)
	}
	uploadProof(t, e, key, o.ID, "image/png", pngBytes).want(t, 200, "")
}

// TestOrders_ProofCapIsPerRoute: the proof upload is exempt from the API's
// body cap, and its own cap (default 10 MiB) holds on a declared length
// before anything is read.
func TestOrders_ProofCapIsPerRoute(t *testing.T) {
	e := newDeskEnv(t, func(o *tambala.Options) { o.Limits.MaxBodyBytes = 512 })
	_, key := e.deskOrg(t, "")
	fq := fromBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(fq.QuoteID, "cap", ""))
	move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")
	// 10 MiB + 1 declared, with a tiny body: refused on the declaration.
	req := httptest.NewRequest("PUT", "/v2/orders/"+o.ID+"/proofs/funding", strings.NewReader(pdf1))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/pdf")
	req.ContentLength = 10<<20 + 1
	r := serveDirect(e.Public, req)
	checkPublic(t, "PUT", req.URL.Path, r.Status, r.Header, r.Body)
	r.want(t, 413, "payload_too_large")
	// Over the API's 512-byte cap, under the proof's: accepted.
	big := "%PDF-1.4\n" + strings.Repeat("0", 4096)
	uploadProof(t, e, key, o.ID, "application/pdf", big).want(t, 200, "")
	if d := deskOrder(t, e, o.ID); d.Proof == nil || d.Proof.Size != int64(len(big)) {
		t.Errorf("proof = %+v", d.Proof)
	}
	// Other routes keep the API's cap.
	e.do(t, "POST", "/v2/orders/quotes", `{"from_asset":"USDT","to_asset":"MWK","from_amount":"10","pad":"`+strings.Repeat("x", 600)+`"}`, hdr(key)).want(t, 413, "payload_too_large")
}

// TestOrders_PauseAndAccess: every desk route is paused with /v2 (503,
// before the access state), the proof download included, and needs /v2
// access (403 onboarding_incomplete, access_suspended); /v1's pause does
// not touch them.
func TestOrders_PauseAndAccess(t *testing.T) {
	e := newDeskEnv(t)
	org, key := e.deskOrg(t, "")
	fq := fromBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(fq.QuoteID, "pause", ""))
	move(t, e, o.ID, "instructions", map[string]string{"bank_name": "NBM", "account_name": "Desk", "account_number": "1"}, 200, "")
	uploadProof(t, e, key, o.ID, "application/pdf", pdf1).want(t, 200, "")
	var link struct{ URL string }
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(key)).want(t, 200, "").decode(t, &link)
	u, _ := url.Parse(link.URL)
	q := toBankQuote(t, e, key)

	type req struct {
		method, path, body string
		headers            []string
	}
	routes := []req{
		{"GET", "/v2/orders/corridors", "", nil},
		{"POST", "/v2/orders/quotes", quoteBody("USDT", "MWK", "from", "10"), nil},
		{"POST", "/v2/orders", orderBody(q.QuoteID, "paused", beneficiaryJSON), []string{"Idempotency-Key", "paused"}},
		{"GET", "/v2/orders", "", nil},
		{"GET", "/v2/orders/" + o.ID, "", nil},
		{"PUT", "/v2/orders/" + o.ID + "/proofs/funding", pdf2, []string{"Content-Type", "application/pdf"}},
		{"GET", "/v2/orders/" + o.ID + "/proofs/funding", "", nil},
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
		e.file(t, false, u.Path, nil).want(t, 503, "service_"+mode)
		// Desk moves go on while /v2 is paused.
		e.admin(t, "GET", "/admin/orders/"+o.ID, nil).want(t, 200, "")
	}
	setPause(t, e, "v2", "live")
	setPause(t, e, "v1", "maintenance")
	e.do(t, "GET", "/v2/orders/"+o.ID, nil, hdr(key)).want(t, 200, "")
	e.file(t, false, u.Path, nil).want(t, 200, "")
	setPause(t, e, "v1", "live")

	for _, access := range []string{"onboarding_incomplete", "access_suspended"} {
		e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/v2-access", map[string]string{"v2_access": access}).want(t, 200, "")
		for _, r := range routes {
			send(key, r).want(t, 403, access)
		}
		// The pause comes first.
		setPause(t, e, "v2", "maintenance")
		send(key, routes[0]).want(t, 503, "service_maintenance")
		setPause(t, e, "v2", "live")
	}
	// A suspended organization is forbidden.
	e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/v2-access", map[string]string{"v2_access": "enabled"}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/status", map[string]string{"status": "suspended"}).want(t, 200, "")
	for _, r := range routes {
		send(key, r).want(t, 403, "forbidden")
	}
	e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/status", map[string]string{"status": "active"}).want(t, 200, "")
	// Nothing of that created an order or a proof.
	var page struct{ Orders []orderJSON }
	e.do(t, "GET", "/v2/orders", nil, hdr(key)).want(t, 200, "").decode(t, &page)
	if len(page.Orders) != 1 {
		t.Errorf("%d orders", len(page.Orders))
	}
	if d := deskOrder(t, e, o.ID); d.Proof == nil || d.Proof.Size != int64(len(pdf1)) {
		t.Errorf("proof = %+v", d.Proof)
	}
}

// TestOrders_ForeignUnknownAndMalformedIDsLookAlike on every order read.
func TestOrders_ForeignUnknownAndMalformedIDsLookAlike(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	_, other := e.deskOrg(t, "other")
	q := toBankQuote(t, e, key)
	o, _ := createOrder(t, e, key, "k", orderBody(q.QuoteID, "mine", beneficiaryJSON))
	for _, id := range []string{"0190c4d2-7f3a-7b1e-8a2b-000000000000", "not-a-uuid", strings.Repeat("a", 65), "%20"} {
		e.do(t, "GET", "/v2/orders/"+id, nil, hdr(key)).want(t, 404, "not_found")
		e.do(t, "GET", "/v2/orders/"+id+"/proofs/funding", nil, hdr(key)).want(t, 404, "not_found")
		e.admin(t, "GET", "/admin/orders/"+id, nil).want(t, 404, "not_found")
	}
	e.do(t, "GET", "/v2/orders/"+o.ID, nil, hdr(other)).want(t, 404, "not_found")
	e.do(t, "GET", "/v2/orders/"+o.ID+"/proofs/funding", nil, hdr(other)).want(t, 404, "not_found")
	var page struct{ Orders []orderJSON }
	e.do(t, "GET", "/v2/orders?client_ref=mine", nil, hdr(other)).want(t, 200, "").decode(t, &page)
	if len(page.Orders) != 0 {
		t.Errorf("another organization finds the order by client_ref")
	}
	e.do(t, "GET", "/v2/orders", nil, hdr(other)).want(t, 200, "").decode(t, &page)
	if len(page.Orders) != 0 {
		t.Errorf("another organization lists the order")
	}
}

// TestOrders_ListPages: GET /v2/orders pages newest first, with and
// without a status filter, without gaps or repeats.
func TestOrders_ListPages(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	var ids []string // oldest first
	for i := 0; i < 5; i++ {
		ref := fmt.Sprintf("page-%d", i)
		var o orderJSON
		if i%2 == 0 {
			o, _ = createOrder(t, e, key, ref, orderBody(toBankQuote(t, e, key).QuoteID, ref, beneficiaryJSON))
		} else {
			o, _ = createOrder(t, e, key, ref, orderBody(fromBankQuote(t, e, key).QuoteID, ref, ""))
		}
		ids = append(ids, o.ID)
	}
	type page struct {
		Orders       []orderJSON `json:"orders"`
		HasMore      bool        `json:"has_more"`
		NextBeforeID *string     `json:"next_before_id"`
	}
	walk := func(query string) []string {
		t.Helper()
		var got []string
		cursor := ""
		for n := 0; n < 10; n++ {
			var p page
			e.do(t, "GET", "/v2/orders?limit=2"+query+cursor, nil, hdr(key)).want(t, 200, "").decode(t, &p)
			for _, o := range p.Orders {
				got = append(got, o.ID)
			}
			if !p.HasMore {
				if p.NextBeforeID != nil {
					t.Errorf("last page with next_before_id %s", *p.NextBeforeID)
				}
				return got
			}
			if p.NextBeforeID == nil || len(p.Orders) == 0 || *p.NextBeforeID != p.Orders[len(p.Orders)-1].ID {
				t.Fatalf("page %+v", p)
			}
			cursor = "&before_id=" + *p.NextBeforeID
		}
		t.Fatal("too many pages")
		return nil
	}
	if got, want := walk(""), []string{ids[4], ids[3], ids[2], ids[1], ids[0]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("all: %v, want %v", got, want)
	}
	if got, want := walk("&status=accepted"), []string{ids[4], ids[2], ids[0]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("accepted: %v, want %v", got, want)
	}
	if got, want := walk("&status=awaiting_instructions"), []string{ids[3], ids[1]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("awaiting_instructions: %v, want %v", got, want)
	}
}

// TestOrders_ConcurrentCreates: racing creates over HTTP:
// one quote under many keys gives one order; one key under many requests
// gives one order, the others its replay or conflict (still in flight);
// one client_ref on many quotes gives one order.
func TestOrders_ConcurrentCreates(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	const n = 8
	race := func(body func(i int) string, idem func(i int) string) map[string]int {
		t.Helper()
		var mu sync.Mutex
		got := map[string]int{}
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.do(t, "POST", "/v2/orders", body(i), hdr(key, "Idempotency-Key", idem(i)))
				k := fmt.Sprint(r.Status, " ", r.code(), r.Header.Get("Idempotent-Replayed"))
				mu.Lock()
				got[k]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		return got
	}
	q := toBankQuote(t, e, key)
	got := race(func(int) string { return orderBody(q.QuoteID, "one-quote", beneficiaryJSON) }, func(i int) string { return fmt.Sprint("q-", i) })
	if got["201 "] != 1 || got["409 quote_used"] != n-1 {
		t.Errorf("one quote, many keys: %v", got)
	}
	q = toBankQuote(t, e, key)
	got = race(func(int) string { return orderBody(q.QuoteID, "one-key", beneficiaryJSON) }, func(int) string { return "one-key" })
	if got["201 "] != 1 || got["201 true"]+got["409 conflict"] != n-1 {
		t.Errorf("one key: %v", got)
	}
	qs := make([]quoteJSON, n)
	for i := range qs {
		qs[i] = toBankQuote(t, e, key)
	}
	got = race(func(i int) string { return orderBody(qs[i].QuoteID, "one-ref", beneficiaryJSON) }, func(i int) string { return fmt.Sprint("r-", i) })
	if got["201 "] != 1 || got["409 client_ref_used"] != n-1 {
		t.Errorf("one client_ref: %v", got)
	}
	wantBalance(t, e, key, "USDT", "629.629633", "370.370367")
	checkLedger(t, e)
}

// TestOpenAPI_DeskSchemas: the desk's schemas accept what the server sends
// and sends back, and refuse drift (validated by hand-written bodies).
func TestOpenAPI_DeskSchemas(t *testing.T) {
	s := loadSpec(t)
	visit := func(schema, body string) error {
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		return s.doc.Components.Schemas[schema].Value.VisitJSON(v, uuidFormat)
	}
	const id = `"0190c4d2-7f3a-7b1e-8a2b-0123456789ab"`
	const common = `"id":` + id + `,"client_ref":"r","from_asset":"USDT","from_amount":"10.000000","to_asset":"MWK","to_amount":"17505.00","rate":"1750.5","created_at":"2026-03-02T09:00:00.000Z","updated_at":"2026-03-02T09:00:00.000Z"`
	const ben = `"beneficiary":{"name":"A","bank_name":"B","account_number":"1"}`
	const funding = `"funding":{"bank_name":"NBM","account_name":"D","account_number":"1","reference":"TMB0123456789","amount":"100000.00","asset":"MWK","deadline":"2026-03-05T09:00:00.000Z"},"expires_at":"2026-03-05T09:00:00.000Z"`
	for _, c := range []struct {
		schema, body string
		ok           bool
	}{
		{"Order", `{` + common + `,"status":"accepted","failure":null,` + ben + `,"proofs":{}}`, true},
		{"Order", `{` + common + `,"status":"failed","failure":{"code":"not_delivered","message":"m"},"refund":{"status":"pending"},` + ben + `,"proofs":{}}`, true},
		{"Order", `{` + common + `,"status":"proof_submitted","failure":null,` + funding + `,"proofs":{"funding":{"uploaded_at":"2026-03-02T10:00:00.000Z"}}}`, true},
		{"Order", `{` + common + `,"status":"awaiting_funds","failure":null,` + funding + `,"proofs":{"funding":{"uploaded_at":"2026-03-02T10:00:00.000Z","rejected_reason":"x"}}}`, true},
		{"Order", `{` + common + `,"status":"accepted","failure":null,` + ben + `,"proofs":{},"org":"x"}`, false},
		{"Order", `{` + common + `,"status":"accepted",` + ben + `,"proofs":{}}`, false},
		{"Order", `{` + common + `,"status":"accepted","failure":null,` + ben + `}`, false},
		{"Order", `{` + common + `,"status":"done","failure":null,"proofs":{}}`, false},
		{"Order", `{` + common + `,"status":"failed","failure":{"code":"declined","message":"m"},"proofs":{}}`, false},
		{"Order", `{` + common + `,"status":"accepted","failure":null,"proofs":{"other":{}}}`, false},
		{"Order", `{` + common + `,"status":"accepted","failure":null,"beneficiary":{"name":"A","bank_name":"B","account_number":"1","iban":"x"},"proofs":{}}`, false},
		{"Order", `{` + common + `,"status":"accepted","failure":null,"refund":{"status":"lost"},"proofs":{}}`, false},
		{"Order", strings.Replace(`{`+common+`,"status":"accepted","failure":null,"proofs":{}}`, `"10.000000"`, `10`, 1), false},
		{"Order", strings.Replace(`{`+common+`,"status":"accepted","failure":null,"proofs":{}}`, `"rate":"1750.5"`, `"rate":"1.75e3"`, 1), false},
		{"Quote", `{"quote_id":` + id + `,"from_asset":"USDT","to_asset":"MWK","from_amount":"1.000000","to_amount":"1750.50","rate":"1750.5","expires_at":"2026-03-02T09:01:00.000Z"}`, true},
		{"Quote", `{"quote_id":"q1","from_asset":"USDT","to_asset":"MWK","from_amount":"1.000000","to_amount":"1750.50","rate":"1750.5","expires_at":"2026-03-02T09:01:00.000Z"}`, false},
		{"Corridor", `{"asset":"MWK","rate_off_ramp":null,"rate_on_ramp":"1800","min":"1000.00","open":false}`, true},
		{"Corridor", `{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":true,"max":null}`, false},
		{"Corridor", `{"asset":"MWK","rate_on_ramp":"1800","min":"1000.00","open":true}`, false},
		{"ProofLink", `{"url":"https://api.example.com/files/proofs/abc","expires_at":"2026-03-02T09:05:00.000Z"}`, true},
		// Requests: what the tests send as valid, and the refusals.
		{"OrderQuoteRequest", quoteBody("USDT", "MWK", "from", "123.456789"), true},
		{"OrderQuoteRequest", quoteBody("MWK", "USDT", "to", "10"), true},
		{"OrderQuoteRequest", `{"from_asset":"USDT","to_asset":"MWK"}`, false},
		{"OrderQuoteRequest", `{"from_asset":"USDT","to_asset":"MWK","from_amount":"1","to_amount":"1750.50"}`, false},
		{"OrderQuoteRequest", `{"from_asset":"USDT","to_asset":"MWK","from_amount":10}`, false},
		{"OrderQuoteRequest", `{"from_asset":"USDT","to_asset":"MWK","from_amount":"-1"}`, false},
		{"OrderRequest", orderBody("0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "r", beneficiaryJSON), true},
		{"OrderRequest", orderBody("0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "r", "null"), true},
		{"OrderRequest", orderBody("0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "r", `{"name":"A","bank_name":"B","account_number":"1","branch":null}`), true},
		{"OrderRequest", orderBody("0190c4d2-7f3a-7b1e-8a2b-0123456789ab", strings.Repeat("é", 65), ""), false},
		{"OrderRequest", orderBody("0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "", ""), false},
		{"OrderRequest", orderBody("0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "r", `{"name":"A","bank_name":"B","account_number":"1","iban":"x"}`), false},
		{"OrderRequest", orderBody("0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "r", `{"name":"","bank_name":"B","account_number":"1"}`), false},
		{"OrderRequest", orderBody("0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "r", `""`), false},
		{"OrderRequest", `{"client_ref":"r"}`, false},
	} {
		if err := visit(c.schema, c.body); (err == nil) != c.ok {
			t.Errorf("%s %s: err=%v, want ok=%v", c.schema, c.body, err, c.ok)
		}
	}
}
