package httpapi_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala/adapters/boltstore"
)

// The desk's side through the admin API: corridors, the queue, the order
// view and every move.

var instructions = map[string]string{"bank_name": "NBM", "account_name": "Tambala Desk", "account_number": "0011223344"}

func TestAdminOrders_CorridorValidation(t *testing.T) {
	e := newDeskEnv(t)
	cases := []struct {
		name, path, body string
	}{
		{"negative rate", "/admin/corridors/MWK", `{"rate_off_ramp":"-1750.5","rate_on_ramp":"1800","min":"1000.00","open":true}`},
		{"zero rate", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"0","min":"1000.00","open":true}`},
		{"rate with 19 decimals", "/admin/corridors/MWK", `{"rate_off_ramp":"1.0000000000000000001","rate_on_ramp":"1800","min":"1000.00","open":true}`},
		{"rate a number", "/admin/corridors/MWK", `{"rate_off_ramp":1750.5,"rate_on_ramp":"1800","min":"1000.00","open":true}`},
		{"rate missing", "/admin/corridors/MWK", `{"rate_on_ramp":"1800","min":"1000.00","open":true}`},
		{"rate exponent", "/admin/corridors/MWK", `{"rate_off_ramp":"1.75e3","rate_on_ramp":"1800","min":"1000.00","open":true}`},
		{"min with too many decimals", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.001","open":true}`},
		{"min negative", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"-1","open":true}`},
		{"min a number", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":1000,"open":true}`},
		{"min missing", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","open":true}`},
		{"open missing", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00"}`},
		{"open a string", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","open":"yes"}`},
		{"max below min", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","max":"999.99","open":true}`},
		{"max zero", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"0","max":"0","open":true}`},
		{"bad JSON", "/admin/corridors/MWK", `{"rate_off_ramp":`},
		{"duplicate field", "/admin/corridors/MWK", `{"rate_off_ramp":"1","rate_off_ramp":"2","rate_on_ramp":"1800","min":"1000.00","open":true}`},
		{"non-fiat asset", "/admin/corridors/USDT", corridorMWK},
		{"unknown asset", "/admin/corridors/EUR", corridorMWK},
		{"lowercase asset", "/admin/corridors/mwk", corridorMWK},
	}
	for _, c := range cases {
		e.admin(t, "PUT", c.path, c.body).want(t, 400, "validation_error")
	}
	// Nothing changed; a valid update replaces the corridor whole.
	want := `{"corridors":[{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":"1800","min":"1000.00","max":null,"open":true}]}`
	if r := e.admin(t, "GET", "/admin/corridors", nil).want(t, 200, ""); string(r.Body) != want {
		t.Errorf("after the refusals: %s", r.Body)
	}
	r := e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"1750.500","rate_on_ramp":null,"min":"0","max":"9000000.5","open":false,"note":"ignored"}`).want(t, 200, "")
	want = `{"corridors":[{"asset":"MWK","rate_off_ramp":"1750.5","rate_on_ramp":null,"min":"0.00","max":"9000000.50","open":false}]}`
	if string(r.Body) != want {
		t.Errorf("PUT = %s, want %s", r.Body, want)
	}
	if r := e.admin(t, "GET", "/admin/corridors", nil).want(t, 200, ""); string(r.Body) != want {
		t.Errorf("GET = %s, want %s", r.Body, want)
	}
	// A rate with 18 decimals is fine and renders trimmed.
	r = e.admin(t, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"0.000000000000000001","rate_on_ramp":"1800.10","min":"1000.00","open":true}`).want(t, 200, "")
	if !bytes.Contains(r.Body, []byte(`"rate_off_ramp":"0.000000000000000001","rate_on_ramp":"1800.1"`)) {
		t.Errorf("PUT = %s", r.Body)
	}
}

// TestAdminOrders_ToBankMoves: the to-bank state machine through the
// admin API, its ledger effects through GET /v2/balances/USDT, the refund.
func TestAdminOrders_ToBankMoves(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	newOrder := func(ref string) orderJSON {
		t.Helper()
		q := toBankQuote(t, e, key)
		o, _ := createOrder(t, e, key, ref, orderBody(q.QuoteID, ref, beneficiaryJSON))
		return o
	}

	// Moves the state does not allow: 409; from-bank moves on a to-bank
	// order too.
	a := newOrder("a")
	for _, mv := range []string{"coins-sent", "complete", "refund-returned"} {
		move(t, e, a.ID, mv, nil, 409, "conflict")
	}
	move(t, e, a.ID, "instructions", instructions, 409, "conflict")
	move(t, e, a.ID, "confirm-funds", map[string]string{"proof_id": "0190c4d2-7f3a-7b1e-8a2b-000000000000"}, 409, "conflict")
	move(t, e, a.ID, "reject-proof", map[string]string{"proof_id": "0190c4d2-7f3a-7b1e-8a2b-000000000000", "reason": "x"}, 409, "conflict")
	// A failure code outside the to-bank list is 400; one the state does
	// not allow (beneficiary_rejected from accepted) 409.
	for _, body := range []any{nil, `{}`, map[string]string{"code": "nope"}, map[string]string{"code": "funds_not_received"}, map[string]string{"code": ""}, `{"code":1}`} {
		move(t, e, a.ID, "fail", body, 400, "validation_error")
	}
	move(t, e, a.ID, "fail", map[string]string{"code": "beneficiary_rejected"}, 409, "conflict")
	// Malformed bodies: 400.
	move(t, e, a.ID, "processing", `{"x":`, 400, "validation_error")
	move(t, e, a.ID, "processing", `[1]`, 400, "validation_error")
	// Unknown moves and orders: 404.
	e.admin(t, "POST", "/admin/orders/"+a.ID+"/nope", nil).want(t, 404, "not_found")
	e.admin(t, "POST", "/admin/orders/"+a.ID+"/Processing", nil).want(t, 404, "not_found")
	e.admin(t, "POST", "/admin/orders/0190c4d2-7f3a-7b1e-8a2b-000000000000/processing", nil).want(t, 404, "not_found")
	e.admin(t, "POST", "/admin/orders/not-an-id/cancel", nil).want(t, 404, "not_found")
	e.admin(t, "GET", "/admin/orders/"+a.ID+"/processing", nil).want(t, 405, "method_not_allowed")
	if got := getOrder(t, e, key, a.ID); got.Status != "accepted" {
		t.Fatalf("after the refused moves: %s", got.Status)
	}

	// accepted → processing, repeated: 200, unchanged.
	e.Clock.Advance(time.Minute)
	p1 := move(t, e, a.ID, "processing", nil, 200, "")
	e.Clock.Advance(time.Minute)
	p2 := move(t, e, a.ID, "processing", `{}`, 200, "")
	if !bytes.Equal(p1.Order, p2.Order) {
		t.Errorf("repeated processing changed the order: %s then %s", p1.Order, p2.Order)
	}
	// coins-sent, repeated: unchanged, coins_left_at kept.
	c1 := move(t, e, a.ID, "coins-sent", nil, 200, "")
	e.Clock.Advance(time.Minute)
	c2 := move(t, e, a.ID, "coins-sent", nil, 200, "")
	if c1.CoinsLeftAt == nil || c2.CoinsLeftAt == nil || *c1.CoinsLeftAt != *c2.CoinsLeftAt || !bytes.Equal(c1.Order, c2.Order) || !bytes.Equal(c1.Order, p1.Order) {
		t.Errorf("coins-sent: %+v then %+v", c1, c2)
	}
	// Once the coins left: cancel is refused (use fail), fail starts a
	// refund.
	move(t, e, a.ID, "cancel", nil, 409, "conflict")
	f := move(t, e, a.ID, "fail", map[string]string{"code": "not_delivered"}, 200, "")
	fo := f.order(t)
	if fo.Status != "failed" || fo.Failure == nil || fo.Failure.Code != "not_delivered" || fo.Failure.Message == "" || fo.Refund == nil || fo.Refund.Status != "pending" {
		t.Errorf("fail after coins-sent: %s", f.Order)
	}
	// The same failure again: unchanged; another code: 409; processing
	// again (superseded): 409.
	if again := move(t, e, a.ID, "fail", map[string]string{"code": "not_delivered"}, 200, ""); !bytes.Equal(again.Order, f.Order) {
		t.Errorf("repeated fail: %s", again.Order)
	}
	move(t, e, a.ID, "fail", map[string]string{"code": "other"}, 409, "conflict")
	move(t, e, a.ID, "processing", nil, 409, "conflict")
	move(t, e, a.ID, "complete", nil, 409, "conflict")
	wantBalance(t, e, key, "USDT", "876.543211", "0.000000")
	// The refund comes back: credited once.
	e.Clock.Advance(time.Minute)
	rr := move(t, e, a.ID, "refund-returned", nil, 200, "")
	if ro := rr.order(t); ro.Status != "failed" || ro.Refund == nil || ro.Refund.Status != "returned" || ro.UpdatedAt == fo.UpdatedAt {
		t.Errorf("refund-returned: %s", rr.Order)
	}
	if again := move(t, e, a.ID, "refund-returned", nil, 200, ""); !bytes.Equal(again.Order, rr.Order) {
		t.Errorf("repeated refund-returned: %s", again.Order)
	}
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000")
	if got := getOrder(t, e, key, a.ID); got.Refund == nil || got.Refund.Status != "returned" || got.Failure == nil {
		t.Errorf("GET: %+v", got)
	}

	// Fail before the coins left: the hold is released, no refund.
	b := newOrder("b")
	move(t, e, b.ID, "processing", nil, 200, "")
	wantBalance(t, e, key, "USDT", "876.543211", "123.456789")
	fb := move(t, e, b.ID, "fail", map[string]string{"code": "beneficiary_rejected"}, 200, "").order(t)
	if fb.Status != "failed" || fb.Refund != nil || fb.Failure == nil || fb.Failure.Code != "beneficiary_rejected" {
		t.Errorf("fail before coins-sent: %+v", fb)
	}
	move(t, e, b.ID, "refund-returned", nil, 409, "conflict")
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000")

	// accepted → cancelled, repeated; accepted → failed unable_to_fill.
	c := newOrder("c")
	cc := move(t, e, c.ID, "cancel", nil, 200, "")
	if cc.order(t).Status != "cancelled" {
		t.Errorf("cancel: %s", cc.Order)
	}
	if again := move(t, e, c.ID, "cancel", nil, 200, ""); !bytes.Equal(again.Order, cc.Order) {
		t.Errorf("repeated cancel: %s", again.Order)
	}
	move(t, e, c.ID, "processing", nil, 409, "conflict")
	d := newOrder("d")
	if got := move(t, e, d.ID, "fail", map[string]string{"code": "unable_to_fill"}, 200, "").order(t); got.Status != "failed" || got.Refund != nil {
		t.Errorf("fail from accepted: %+v", got)
	}
	// processing → cancelled before the coins left.
	g := newOrder("g")
	move(t, e, g.ID, "processing", nil, 200, "")
	if got := move(t, e, g.ID, "cancel", nil, 200, "").order(t); got.Status != "cancelled" {
		t.Errorf("cancel from processing: %+v", got)
	}
	// complete without coins-sent captures the hold.
	h := newOrder("h")
	move(t, e, h.ID, "processing", nil, 200, "")
	if got := move(t, e, h.ID, "complete", nil, 200, ""); got.order(t).Status != "completed" || got.CoinsLeftAt != nil {
		t.Errorf("complete: %+v", got)
	}
	move(t, e, h.ID, "coins-sent", nil, 409, "conflict")
	wantBalance(t, e, key, "USDT", "876.543211", "0.000000")

	// The queue by status and organization.
	var queue struct {
		Orders       []deskOrderJSON `json:"orders"`
		HasMore      bool            `json:"has_more"`
		NextBeforeID *string         `json:"next_before_id"`
	}
	e.admin(t, "GET", "/admin/orders?status=cancelled", nil).want(t, 200, "").decode(t, &queue)
	if len(queue.Orders) != 2 || queue.Orders[0].order(t).ID != g.ID || queue.Orders[1].order(t).ID != c.ID {
		t.Errorf("cancelled queue = %+v", queue)
	}
	e.admin(t, "GET", "/admin/orders?limit=2", nil).want(t, 200, "").decode(t, &queue)
	if len(queue.Orders) != 2 || !queue.HasMore || queue.NextBeforeID == nil || *queue.NextBeforeID != g.ID {
		t.Fatalf("first page = %+v", queue)
	}
	e.admin(t, "GET", "/admin/orders?limit=200&before_id="+*queue.NextBeforeID, nil).want(t, 200, "").decode(t, &queue)
	if len(queue.Orders) != 4 || queue.HasMore || queue.NextBeforeID != nil {
		t.Errorf("second page = %d orders, has_more %v", len(queue.Orders), queue.HasMore)
	}
	e.admin(t, "GET", "/admin/orders?org=0190c4d2-7f3a-7b1e-8a2b-000000000000", nil).want(t, 200, "").decode(t, &queue)
	if len(queue.Orders) != 0 {
		t.Errorf("an unknown organization's queue lists %d", len(queue.Orders))
	}
	checkLedger(t, e)
}

// TestAdminOrders_FromBankMoves: the from-bank state machine's refusals
// and the instructions' rules.
func TestAdminOrders_FromBankMoves(t *testing.T) {
	e := newDeskEnv(t)
	_, key := e.deskOrg(t, "")
	newOrder := func(ref string) orderJSON {
		t.Helper()
		q := fromBankQuote(t, e, key)
		o, _ := createOrder(t, e, key, ref, orderBody(q.QuoteID, ref, ""))
		return o
	}
	a := newOrder("a")
	for _, mv := range []string{"processing", "coins-sent", "complete", "refund-returned"} {
		move(t, e, a.ID, mv, nil, 409, "conflict")
	}
	move(t, e, a.ID, "confirm-funds", map[string]string{"proof_id": "0190c4d2-7f3a-7b1e-8a2b-000000000000"}, 409, "conflict")
	// Failure codes: outside the from-bank list 400, not allowed in
	// awaiting_instructions (funds_not_received) 409.
	move(t, e, a.ID, "fail", map[string]string{"code": "beneficiary_rejected"}, 400, "validation_error")
	move(t, e, a.ID, "fail", map[string]string{"code": "not_delivered"}, 400, "validation_error")
	move(t, e, a.ID, "fail", map[string]string{"code": "funds_not_received"}, 409, "conflict")

	// The instructions' data: 400.
	long := strings.Repeat("b", 201)
	for _, body := range []any{
		nil, `{}`,
		map[string]string{"account_name": "D", "account_number": "1"},
		map[string]string{"bank_name": "", "account_name": "D", "account_number": "1"},
		map[string]string{"bank_name": long, "account_name": "D", "account_number": "1"},
		map[string]string{"bank_name": "NBM", "account_name": "D", "account_number": "1", "reference": "abc"},
		map[string]string{"bank_name": "NBM", "account_name": "D", "account_number": "1", "reference": "TOOLONGREFERENCE1234"},
		map[string]string{"bank_name": "NBM", "account_name": "D", "account_number": "1", "deadline": "tomorrow"},
		map[string]string{"bank_name": "NBM", "account_name": "D", "account_number": "1", "deadline": "2026-03-02T09:30:00.000Z"},
		map[string]string{"bank_name": "NBM", "account_name": "D", "account_number": "1", "deadline": "2026-03-01T09:00:00Z"},
	} {
		move(t, e, a.ID, "instructions", body, 400, "validation_error")
	}
	if got := getOrder(t, e, key, a.ID); got.Status != "awaiting_instructions" || got.Funding != nil {
		t.Fatalf("after the refusals: %+v", got)
	}
	// A given reference and deadline are used as given; repeated: 200
	// unchanged; other data: 409.
	body := map[string]string{"bank_name": "NBM", "account_name": "D", "account_number": "1", "reference": "INV2026A", "deadline": "2026-03-04T12:00:00Z"}
	i1 := move(t, e, a.ID, "instructions", body, 200, "")
	if f := i1.order(t).Funding; f == nil || f.Reference != "INV2026A" || f.Deadline != "2026-03-04T12:00:00.000Z" {
		t.Errorf("instructions: %s", i1.Order)
	}
	if again := move(t, e, a.ID, "instructions", body, 200, ""); !bytes.Equal(again.Order, i1.Order) {
		t.Errorf("repeated instructions: %s", again.Order)
	}
	move(t, e, a.ID, "instructions", instructions, 409, "conflict")
	// The reference is unique across organizations.
	_, otherKey := e.deskOrg(t, "other")
	oq := fromBankQuote(t, e, otherKey)
	other, _ := createOrder(t, e, otherKey, "o", orderBody(oq.QuoteID, "o", ""))
	move(t, e, other.ID, "instructions", body, 409, "conflict")
	move(t, e, other.ID, "instructions", instructions, 200, "")

	// awaiting_funds: no confirm-funds or reject-proof without a proof;
	// fail with funds_not_received is allowed, unable_to_fill is not.
	move(t, e, a.ID, "confirm-funds", map[string]string{"proof_id": "0190c4d2-7f3a-7b1e-8a2b-000000000000"}, 409, "conflict")
	move(t, e, a.ID, "reject-proof", map[string]string{"proof_id": "0190c4d2-7f3a-7b1e-8a2b-000000000000", "reason": "x"}, 409, "conflict")
	move(t, e, a.ID, "fail", map[string]string{"code": "unable_to_fill"}, 409, "conflict")

	uploadProof(t, e, key, a.ID, "image/jpeg", "\xff\xd8\xff\xe0JFIF").want(t, 200, "")
	proof := deskOrder(t, e, a.ID).Proof
	if proof == nil || proof.ContentType != "image/jpeg" {
		t.Fatalf("proof = %+v", proof)
	}
	// reject-proof's reason: 1 to 500 characters; proof_id required.
	for _, body := range []any{
		map[string]string{"proof_id": proof.ID},
		map[string]string{"proof_id": proof.ID, "reason": ""},
		map[string]string{"proof_id": proof.ID, "reason": strings.Repeat("r", 501)},
	} {
		move(t, e, a.ID, "reject-proof", body, 400, "validation_error")
	}
	move(t, e, a.ID, "complete", nil, 409, "conflict")
	// The proof's bytes for the desk.
	if b := e.file(t, true, "/admin/orders/"+a.ID+"/proofs/funding", hdr(adminToken)).want(t, 200, ""); string(b.Body) != "\xff\xd8\xff\xe0JFIF" || b.Header.Get("Content-Type") != "image/jpeg" || b.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("desk proof: %v %q", b.Header, b.Body)
	}
	e.file(t, true, "/admin/orders/"+a.ID+"/proofs/funding", nil).want(t, 401, "unauthorized")
	// confirm-funds, then fail with unable_to_fill (never funds_not_received).
	move(t, e, a.ID, "confirm-funds", map[string]string{"proof_id": proof.ID}, 200, "")
	move(t, e, a.ID, "fail", map[string]string{"code": "funds_not_received"}, 409, "conflict")
	if got := move(t, e, a.ID, "fail", map[string]string{"code": "unable_to_fill"}, 200, "").order(t); got.Status != "failed" || got.Failure == nil || got.Refund != nil {
		t.Errorf("fail from funds_confirmed: %+v", got)
	}
	move(t, e, a.ID, "cancel", nil, 409, "conflict")
	wantBalance(t, e, key, "USDT", "1000.000000", "0.000000") // never credited

	// cancel from any non-terminal state; fail from awaiting_instructions.
	b := newOrder("b")
	if got := move(t, e, b.ID, "fail", map[string]string{"code": "other"}, 200, "").order(t); got.Status != "failed" {
		t.Errorf("fail from awaiting_instructions: %+v", got)
	}
	c := newOrder("c")
	move(t, e, c.ID, "instructions", instructions, 200, "")
	if got := move(t, e, c.ID, "cancel", nil, 200, "").order(t); got.Status != "cancelled" {
		t.Errorf("cancel from awaiting_funds: %+v", got)
	}
	uploadProof(t, e, key, c.ID, "application/pdf", pdf1).want(t, 409, "proof_not_expected")

	// Desk moves go on while /v2 is paused.
	d := newOrder("d")
	setPause(t, e, "v2", "maintenance")
	move(t, e, d.ID, "instructions", instructions, 200, "")
	move(t, e, d.ID, "cancel", nil, 200, "")
	setPause(t, e, "v2", "live")
	checkLedger(t, e)
}

// TestAdminOrders_DeskQueueOrgFilterPages: the desk queue of one
// organization pages over that organization's orders only: has_more means
// another page has some.
func TestAdminOrders_DeskQueueOrgFilterPages(t *testing.T) {
	e := newDeskEnv(t)
	org, key := e.deskOrg(t, "")
	_, otherKey := e.deskOrg(t, "other")
	oq := toBankQuote(t, e, otherKey)
	createOrder(t, e, otherKey, "theirs", orderBody(oq.QuoteID, "theirs", beneficiaryJSON))
	q := toBankQuote(t, e, key)
	mine, _ := createOrder(t, e, key, "mine", orderBody(q.QuoteID, "mine", beneficiaryJSON))
	var queue struct {
		Orders       []deskOrderJSON `json:"orders"`
		HasMore      bool            `json:"has_more"`
		NextBeforeID *string         `json:"next_before_id"`
	}
	e.admin(t, "GET", "/admin/orders?org="+org.ID+"&limit=1", nil).want(t, 200, "").decode(t, &queue)
	if len(queue.Orders) != 1 || queue.Orders[0].order(t).ID != mine.ID {
		t.Fatalf("queue = %+v", queue)
	}
	if queue.HasMore || queue.NextBeforeID != nil {
		t.Errorf("has_more %v, next_before_id %v: the organization has no other order", queue.HasMore, *queue.NextBeforeID)
	}
}

// TestAdminOpenAPI_BackupAnswersItsDocument: GET /admin/backup (issue #15)
// is in the admin document, and its copy answers as documented: a binary
// attachment, never cached (the backup's own tests check the copy).
func TestAdminOpenAPI_BackupAnswersItsDocument(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "live.bolt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, withStore(st))
	r := e.file(t, true, "/admin/backup", hdr(adminToken)).want(t, 200, "")
	if r.Header.Get("Content-Type") != "application/octet-stream" || len(r.Body) == 0 {
		t.Errorf("backup: %v, %d bytes", r.Header, len(r.Body))
	}
	newEnv(t).file(t, true, "/admin/backup", hdr(adminToken)).want(t, 404, "not_found")
}
