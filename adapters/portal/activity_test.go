package portal_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/textproto"
	"regexp"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/portal"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
)

// payerName is a payer's name an outsider chose.
const payerName = "<script>alert(1)</script>"

var (
	proofPDF = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n")
	proofPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
)

func activityAssets() []tambala.AssetAccess {
	ops := []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}
	return []tambala.AssetAccess{{Asset: "MWK", Operations: ops}, {Asset: "USDT", Operations: ops}}
}

// activity is an engine with a sandbox converter and a desk corridor, and
// an organization with /v2 access whose admin has accepted an invitation:
// one payout of each API, a to-bank and a from-bank order awaiting funds,
// a conversion and a collection of each API (the /v1 one from payerName).
type activity struct {
	*fixture
	p        tambala.Principal
	payout   payouts.Payout
	payoutV2 tambala.PayoutV2
	toBank   orders.Order
	fromBank orders.Order
	conv     tambala.Conversion
	col      tambala.Collection
	colV2    tambala.CollectionV2
}

func newActivity(t *testing.T, email string) *activity {
	t.Helper()
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	e, err := tambala.New(s, &tambala.Options{People: tambala.PeopleOptions{PasswordParams: accounts.TestParams},
		Converter: sandbox.NewConverter(nil)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.1")})
	op := e.Operator()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	org, err := op.CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd", V2Access: tambala.V2Enabled, Assets: activityAssets()})
	must(err)
	must(op.Fund(ctx, org.ID, money.FromInt(money.MWK, 500_000), "opening"))
	must(op.Fund(ctx, org.ID, money.FromInt(money.USDT, 1_000), "opening"))
	_, err = op.Desk().SetCorridor(ctx, quotes.Corridor{Asset: money.MWK, RateOffRamp: money.MustRate("1750.5"), RateOnRamp: money.MustRate("1800"),
		Min: money.FromInt(money.MWK, 1000), Open: true})
	must(err)
	inv, err := e.People().InviteUser(ctx, tambala.InviteUser{Org: org.ID, Email: email})
	must(err)
	_, err = e.Sessions().AcceptInvitation(ctx, inv.Token, password)
	must(err)
	a := &activity{fixture: &fixture{engine: e, org: org, email: email, ctx: ctx}}
	a.p, err = e.Act(ctx, org.ID)
	must(err)
	c := e.Client(a.p)

	po, err := c.V1().CreatePayout(ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 1500),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "Test Wallet"}},
		tambala.Idempotency{Key: "p1"})
	must(err)
	a.payout = po.Resource
	p2, err := c.CreatePayout(ctx, tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "USDT", Amount: money.DecimalText("100"),
		Destination: tambala.PayoutV2Destination{Type: "wallet", Network: "tron", Address: "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV"}},
		tambala.Idempotency{Key: "p2"})
	must(err)
	a.payoutV2 = p2.Resource

	q, err := c.QuoteOrder(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("10")})
	must(err)
	ob, err := c.CreateOrder(ctx, tambala.NewOrder{QuoteID: q.ID, ClientRef: "to-bank-1", Beneficiary: &orders.Beneficiary{
		Name: "Chikondi Banda", BankName: "National Bank of Malawi", AccountNumber: "1001234567"}}, tambala.Idempotency{Key: "o1"})
	must(err)
	a.toBank = ob.Resource
	q, err = c.QuoteOrder(ctx, quotes.Request{FromAsset: "MWK", ToAsset: "USDT", FromAmount: money.DecimalText("100000.00")})
	must(err)
	ob, err = c.CreateOrder(ctx, tambala.NewOrder{QuoteID: q.ID, ClientRef: "from-bank-1"}, tambala.Idempotency{Key: "o2"})
	must(err)
	a.fromBank, err = op.Desk().MoveOrder(ctx, ob.Resource.ID, orders.Instructions{BankName: "Standard Bank Malawi",
		AccountName: "Tambala Desk Ltd", AccountNumber: "9100000123"})
	must(err)

	q, err = c.QuoteConversion(ctx, quotes.Request{FromAsset: "USDT", ToAsset: "MWK", FromAmount: money.DecimalText("2")})
	must(err)
	cv, err := c.CreateConversion(ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: "c1"})
	must(err)
	a.conv = cv.Resource

	a.col, err = op.RecordCollection(ctx, org.ID, tambala.NewCollection{Amount: money.FromInt(money.MWK, 2500),
		SourceCustomerName: payerName, SourceAccountNumber: "0999123456", RTPReferenceNumber: "RTP-1"})
	must(err)
	a.colV2, err = c.SimulateCollection(ctx, tambala.SimulatedCollectionV2{Asset: "USDT", Amount: money.DecimalText("25"), Network: "tron"})
	must(err)
	return a
}

// get serves a GET with the session token and checks its status.
func get(t *testing.T, h http.Handler, target, token string, want int) string {
	t.Helper()
	w := do(h, "GET", target, token, nil)
	if w.Code != want {
		t.Fatalf("GET %s: %d, want %d: %s", target, w.Code, want, w.Body.String())
	}
	return w.Body.String()
}

func contains(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(body, want) {
			t.Errorf("%s lacks %q", what, want)
		}
	}
}

func lacks(t *testing.T, what, body string, nots ...string) {
	t.Helper()
	for _, not := range nots {
		if strings.Contains(body, not) {
			t.Errorf("%s has %q", what, not)
		}
	}
}

func TestActivityListsAndDetails(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	h, tok := a.handler(), a.signIn(t)

	b := get(t, h, "/portal/payouts", tok, http.StatusOK)
	contains(t, "payouts", b, `href="/portal/payouts/`+a.payout.ID+`"`, "1500.00", "Test Wallet", `href="/portal/v2/payouts"`,
		`href="/portal/orders"`, `href="/portal/conversions"`, `href="/portal/collections"`)
	b = get(t, h, "/portal/payouts/"+a.payout.ID, tok, http.StatusOK)
	contains(t, "payout", b, a.payout.ID, "111100000112", string(a.payout.Status))

	b = get(t, h, "/portal/v2/payouts", tok, http.StatusOK)
	contains(t, "/v2 payouts", b, `href="/portal/v2/payouts/`+a.payoutV2.ID+`"`, "USDT")
	b = get(t, h, "/portal/v2/payouts/"+a.payoutV2.ID, tok, http.StatusOK)
	contains(t, "/v2 payout", b, "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV", "tron")

	b = get(t, h, "/portal/orders", tok, http.StatusOK)
	contains(t, "orders", b, a.toBank.ID, a.fromBank.ID)
	b = get(t, h, "/portal/orders/"+a.toBank.ID, tok, http.StatusOK)
	contains(t, "to-bank order", b, "Chikondi Banda", "1001234567", "10.000000 USDT", a.toBank.To.String(), "1750.5", "to-bank-1")
	lacks(t, "to-bank order", b, `enctype="multipart/form-data"`)
	b = get(t, h, "/portal/orders/"+a.fromBank.ID, tok, http.StatusOK)
	contains(t, "from-bank order", b, "Funding instructions", "Standard Bank Malawi", "9100000123", a.fromBank.Funding.Reference,
		"100000.00 MWK", "1800", `enctype="multipart/form-data"`, `name="csrf" value="`+accounts.CSRFToken(tok)+`"`, `type="file"`)

	b = get(t, h, "/portal/conversions", tok, http.StatusOK)
	contains(t, "conversions", b, `href="/portal/conversions/`+a.conv.ID+`"`)
	b = get(t, h, "/portal/conversions/"+a.conv.ID, tok, http.StatusOK)
	contains(t, "conversion", b, a.conv.ID, "2.000000 USDT", a.conv.Rate.String())

	b = get(t, h, "/portal/collections", tok, http.StatusOK)
	contains(t, "collections", b, `href="/portal/collections/`+a.col.ID+`"`, "2500.00", `href="/portal/v2/collections"`)
	b = get(t, h, "/portal/collections/"+a.col.ID, tok, http.StatusOK)
	contains(t, "collection", b, "0999123456", "RTP-1", a.col.AmountCredited.String())

	b = get(t, h, "/portal/v2/collections", tok, http.StatusOK)
	contains(t, "/v2 collections", b, `href="/portal/v2/collections/`+a.colV2.ID+`"`, "25.000000 USDT")
	b = get(t, h, "/portal/v2/collections/"+a.colV2.ID, tok, http.StatusOK)
	contains(t, "/v2 collection", b, a.colV2.ID, "tron")

	// Signed out, the pages send the browser to sign in.
	if w := do(h, "GET", "/portal/orders/"+a.fromBank.ID, "", nil); w.Code != http.StatusSeeOther {
		t.Errorf("signed out: %d", w.Code)
	}
}

func TestActivityFilters(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	h, tok := a.handler(), a.signIn(t)

	b := get(t, h, "/portal/payouts?status="+string(a.payout.Status), tok, http.StatusOK)
	contains(t, "payouts of their status", b, a.payout.ID, `<option value="`+string(a.payout.Status)+`" selected>`)
	b = get(t, h, "/portal/payouts?status=failed", tok, http.StatusOK)
	lacks(t, "failed payouts", b, a.payout.ID)
	contains(t, "failed payouts", b, "No payouts.")
	b = get(t, h, "/portal/payouts?status=nonsense", tok, http.StatusUnprocessableEntity)
	contains(t, "a wrong status", b, `id="status-error"`)
	b = get(t, h, "/portal/v2/payouts?status=failed", tok, http.StatusOK)
	lacks(t, "failed /v2 payouts", b, a.payoutV2.ID)

	b = get(t, h, "/portal/orders?status=awaiting_funds", tok, http.StatusOK)
	contains(t, "orders awaiting funds", b, a.fromBank.ID)
	lacks(t, "orders awaiting funds", b, a.toBank.ID)
	b = get(t, h, "/portal/orders?status=expired", tok, http.StatusOK)
	lacks(t, "expired orders", b, a.fromBank.ID, a.toBank.ID)

	b = get(t, h, "/portal/conversions?asset=usdt", tok, http.StatusOK)
	contains(t, "USDT conversions", b, a.conv.ID)
	b = get(t, h, "/portal/conversions?asset=ZAR", tok, http.StatusUnprocessableEntity)
	contains(t, "a conversion asset not enabled", b, `id="asset-error"`)
	lacks(t, "a conversion asset not enabled", b, a.conv.ID)

	b = get(t, h, "/portal/v2/collections?asset=USDT", tok, http.StatusOK)
	contains(t, "USDT collections", b, a.colV2.ID)
	b = get(t, h, "/portal/v2/collections?asset=MWK", tok, http.StatusOK)
	lacks(t, "MWK collections", b, a.colV2.ID)
	b = get(t, h, "/portal/v2/collections?asset=ZAR", tok, http.StatusUnprocessableEntity)
	contains(t, "a collection asset not enabled", b, `id="asset-error"`)
}

func TestActivityPaging(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	h, tok := a.handler(), a.signIn(t)
	for i := range 26 {
		if _, err := a.engine.Operator().RecordCollection(a.ctx, a.org.ID, tambala.NewCollection{Amount: money.FromInt(money.MWK, int64(1000+i)),
			SourceCustomerName: "Payer"}); err != nil {
			t.Fatal(err)
		}
	}
	b := get(t, h, "/portal/collections", tok, http.StatusOK)
	m := regexp.MustCompile(`href="(/portal/collections\?before=[^"]+)" id="older"`).FindStringSubmatch(b)
	if m == nil {
		t.Fatalf("no older page link: %s", b)
	}
	lacks(t, "the first page", b, a.col.ID)
	b = get(t, h, strings.ReplaceAll(m[1], "&amp;", "&"), tok, http.StatusOK)
	contains(t, "the older page", b, a.col.ID)
	lacks(t, "the older page", b, `id="older"`)
}

func TestActivityPayerNameIsText(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	h, tok := a.handler(), a.signIn(t)
	for _, target := range []string{"/portal/collections", "/portal/collections/" + a.col.ID} {
		b := get(t, h, target, tok, http.StatusOK)
		lacks(t, target, b, payerName)
		contains(t, target, b, "&lt;script&gt;alert(1)&lt;/script&gt;")
	}
}

func TestActivityOtherOrganization(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	other := newActivity(t, "bob@example.com")
	h, tok := a.handler(), a.signIn(t)
	for _, target := range []string{
		"/portal/payouts/" + other.payout.ID, "/portal/v2/payouts/" + other.payoutV2.ID,
		"/portal/orders/" + other.fromBank.ID, "/portal/conversions/" + other.conv.ID,
		"/portal/collections/" + other.col.ID, "/portal/v2/collections/" + other.colV2.ID,
		"/portal/orders/no-such-order",
	} {
		b := get(t, h, target, tok, http.StatusNotFound)
		contains(t, target, b, "There is no such page.")
		lacks(t, target, b, "Standard Bank Malawi", other.col.ID, "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV", other.fromBank.ID)
	}
	// Nor can a proof be uploaded to another organization's order.
	w := upload(h, other.fromBank.ID, tok, accounts.CSRFToken(tok), "proof.pdf", "application/pdf", proofPDF)
	if w.Code != http.StatusNotFound {
		t.Errorf("upload to another organization's order: %d", w.Code)
	}
	if o, _ := other.engine.Operator().Desk().Order(other.ctx, other.fromBank.ID); o.Proof != nil {
		t.Errorf("a proof was stored: %+v", o.Proof)
	}
}

func TestActivityWithoutV2(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h, tok := f.handler(), f.signIn(t)
	for _, target := range []string{"/portal/v2/payouts", "/portal/orders", "/portal/conversions", "/portal/v2/collections"} {
		b := get(t, h, target, tok, http.StatusOK)
		contains(t, target, b, `id="v2-denied"`, "/v2 access")
	}
	b := get(t, h, "/portal/payouts", tok, http.StatusOK)
	lacks(t, "/v1 payouts without /v2", b, `href="/portal/v2/payouts"`)
	b = get(t, h, "/portal/collections", tok, http.StatusOK)
	lacks(t, "/v1 collections without /v2", b, `href="/portal/v2/collections"`)
}

// upload posts a funding proof to order id as a multipart form.
func upload(h http.Handler, id, token, csrf, name, contentType string, content []byte) *httptest.ResponseRecorder {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if csrf != "" {
		_ = mw.WriteField("csrf", csrf)
	}
	hd := textproto.MIMEHeader{}
	hd.Set("Content-Disposition", `form-data; name="proof"; filename="`+name+`"`)
	hd.Set("Content-Type", contentType)
	part, _ := mw.CreatePart(hd)
	_, _ = io.Copy(part, bytes.NewReader(content))
	_ = mw.Close()
	r := httptest.NewRequest("POST", "/portal/orders/"+id+"/proof", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	if token != "" {
		r.AddCookie(&http.Cookie{Name: portal.InsecureCookieName, Value: token})
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestActivityProofUpload(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	h, tok := a.handler(), a.signIn(t)
	id := a.fromBank.ID
	stored := func() *orders.Proof {
		t.Helper()
		o, err := a.engine.Operator().Desk().Order(a.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return o.Proof
	}

	// Without the CSRF token, or with a wrong one: forbidden, nothing stored.
	for _, csrf := range []string{"", "wrong"} {
		w := upload(h, id, tok, csrf, "proof.pdf", "application/pdf", proofPDF)
		if w.Code != http.StatusForbidden {
			t.Errorf("csrf %q: %d", csrf, w.Code)
		}
		if p := stored(); p != nil {
			t.Fatalf("csrf %q: a proof was stored: %+v", csrf, p)
		}
	}

	// A wrong media type: the engine's error beside the field.
	w := upload(h, id, tok, accounts.CSRFToken(tok), "proof.txt", "text/plain", []byte("hello"))
	if w.Code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d", w.Code)
	}
	contains(t, "text/plain", w.Body.String(), `id="proof-error"`, "PDF, PNG or JPEG", `aria-invalid="true"`)
	// A PNG that is a PDF: its first bytes are not of its type.
	w = upload(h, id, tok, accounts.CSRFToken(tok), "proof.png", "image/png", proofPDF)
	if w.Code != http.StatusUnsupportedMediaType {
		t.Errorf("a PDF sent as PNG: %d", w.Code)
	}
	contains(t, "a PDF sent as PNG", w.Body.String(), `id="proof-error"`)
	// Too large: refused beside the field.
	big := append(append([]byte{}, proofPNG...), make([]byte, tambala.GateOf(a.engine).MaxProofBytes())...)
	w = upload(h, id, tok, accounts.CSRFToken(tok), "big.png", "image/png", big)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("too large: %d", w.Code)
	}
	contains(t, "too large", w.Body.String(), `id="proof-error"`, "too large")
	// Far too large: the form is refused before it is read whole.
	huge := append(append([]byte{}, proofPNG...), make([]byte, tambala.GateOf(a.engine).MaxProofBytes()+1<<20)...)
	w = upload(h, id, tok, accounts.CSRFToken(tok), "huge.png", "image/png", huge)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("far too large: %d", w.Code)
	}
	contains(t, "far too large", w.Body.String(), `id="proof-error"`, "too large")
	// Signed out: sent to sign in.
	if w = upload(h, id, "", "", "proof.pdf", "application/pdf", proofPDF); w.Code != http.StatusSeeOther {
		t.Errorf("signed out: %d", w.Code)
	}
	// An empty file.
	w = upload(h, id, tok, accounts.CSRFToken(tok), "empty.pdf", "application/pdf", nil)
	if w.Code != http.StatusUnprocessableEntity {
		t.Errorf("an empty file: %d", w.Code)
	}
	contains(t, "an empty file", w.Body.String(), `id="proof-error"`, "empty")
	if p := stored(); p != nil {
		t.Fatalf("a refused upload stored a proof: %+v", p)
	}

	// A PDF: received, the order shows it.
	w = upload(h, id, tok, accounts.CSRFToken(tok), "proof.pdf", "application/pdf", proofPDF)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", w.Code, w.Body.String())
	}
	loc := w.Header().Get("Location")
	b := get(t, h, loc, tok, http.StatusOK)
	contains(t, "after the upload", b, "Your funding proof was received", `id="proof-review">received`, "application/pdf",
		string(orders.ProofSubmitted))
	lacks(t, "after the upload", b, `enctype="multipart/form-data"`)
	if p := stored(); p == nil || p.Size != int64(len(proofPDF)) {
		t.Errorf("stored proof: %+v", p)
	}
	// The upload is the user's act in the audit trail, and so on its page.
	contains(t, "the audit trail", get(t, h, "/portal/audit", tok, http.StatusOK), "order.proof_uploaded", "application/pdf")
	// The order no longer expects one.
	w = upload(h, id, tok, accounts.CSRFToken(tok), "other.png", "image/png", proofPNG)
	if w.Code != http.StatusConflict {
		t.Errorf("a second proof while under review: %d", w.Code)
	}
	// A to-bank order has no proof to upload.
	w = upload(h, a.toBank.ID, tok, accounts.CSRFToken(tok), "proof.pdf", "application/pdf", proofPDF)
	if w.Code != http.StatusConflict {
		t.Errorf("a to-bank order: %d", w.Code)
	}
	contains(t, "a to-bank order", w.Body.String(), `id="proof-error"`, "takes no funding proof")
}
