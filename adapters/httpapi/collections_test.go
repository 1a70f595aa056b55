package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
)

type collectionJSON struct {
	ID                  string `json:"id"`
	Status              string `json:"status"`
	AmountMWK           string `json:"amount_mwk"`
	Fee                 string `json:"fee"`
	AmountCredited      string `json:"amount_credited"`
	Rail                string `json:"rail"`
	SourceCustomerName  string `json:"source_customer_name"`
	SourceAccountNumber string `json:"source_account_number"`
	SourceInstitution   string `json:"source_institution"`
	RTPReferenceNumber  string `json:"rtp_reference_number"`
	CreatedAt           string `json:"created_at"`
}

type collectionPage struct {
	Collections  []json.RawMessage `json:"collections"`
	HasMore      bool              `json:"has_more"`
	NextBeforeID *string           `json:"next_before_id"`
}

func (p collectionPage) ids(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, raw := range p.Collections {
		var c collectionJSON
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c.ID)
	}
	return out
}

type tradeJSON struct {
	ID         string `json:"id"`
	USDTAmount string `json:"usdt_amount"`
	ClientRate string `json:"client_rate"`
	MWKAmount  int64  `json:"mwk_amount"`
	Status     string `json:"status"`
	CreatedAt  string `json:"created_at"`
	SettledAt  string `json:"settled_at"`
}

type tradePage struct {
	Trades       []tradeJSON `json:"trades"`
	HasMore      bool        `json:"has_more"`
	NextBeforeID *string     `json:"next_before_id"`
}

// mwk parses an MWK decimal string exactly.
func mwk(t testing.TB, s string) money.Amount {
	t.Helper()
	a, err := money.Parse(money.MWK, s)
	if err != nil {
		t.Fatalf("money.Parse(%q): %v", s, err)
	}
	return a
}

// mwkSub returns a - b as a decimal string.
func mwkSub(t testing.TB, a, b string) string {
	t.Helper()
	d, err := mwk(t, a).Sub(mwk(t, b))
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

func simulate(t testing.TB, e *testEnv, key, body string) (collectionJSON, *resp) {
	t.Helper()
	var c collectionJSON
	r := e.do(t, "POST", "/v1/collections/simulate", body, hdr(key)).want(t, 201, "")
	r.decode(t, &c)
	return c, r
}

func listCollections(t testing.TB, e *testEnv, key, query string) collectionPage {
	t.Helper()
	var p collectionPage
	e.do(t, "GET", "/v1/collections"+query, nil, hdr(key)).want(t, 200, "").decode(t, &p)
	return p
}

func listTrades(t testing.TB, e *testEnv, key, query string) tradePage {
	t.Helper()
	var p tradePage
	e.do(t, "GET", "/v1/trades"+query, nil, hdr(key)).want(t, 200, "").decode(t, &p)
	return p
}

func checkLedger(t testing.TB, e *testEnv) {
	t.Helper()
	if err := ledger.CheckStore(context.Background(), e.Store); err != nil {
		t.Errorf("ledger.CheckStore: %v", err)
	}
}

func TestCollections_SimulateCreditsNetOfFee(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{})

	c, r := simulate(t, e, key, `{"amount_mwk":10000}`)
	want := collectionJSON{ID: c.ID, Status: "settled", AmountMWK: "10000.00", Fee: "150.00", AmountCredited: "9850.00", Rail: "momo",
		SourceCustomerName: c.SourceCustomerName, SourceAccountNumber: c.SourceAccountNumber, SourceInstitution: c.SourceInstitution,
		RTPReferenceNumber: c.RTPReferenceNumber, CreatedAt: "2026-03-02T09:00:00.000Z"}
	if c != want || c.RTPReferenceNumber == "" {
		t.Errorf("simulated collection = %+v, want %+v", c, want)
	}
	// The fee is the collection quote's, and amount_mwk - fee = amount_credited.
	q := e.do(t, "POST", "/v1/fees/quote", feeBody("collection", "momo", "10000"), hdr(key)).want(t, 200, "").obj(t)
	if q["total_fee"] != c.Fee || q["amount_received"] != c.AmountCredited {
		t.Errorf("collection %s / %s, fee quote %v / %v", c.Fee, c.AmountCredited, q["total_fee"], q["amount_received"])
	}
	if got := mwkSub(t, c.AmountMWK, c.Fee); got != c.AmountCredited {
		t.Errorf("amount_mwk - fee = %s, amount_credited %s", got, c.AmountCredited)
	}
	// The read is the create's bytes.
	if got := e.do(t, "GET", "/v1/collections/"+c.ID, nil, hdr(key)).want(t, 200, ""); !bytes.Equal(got.Body, r.Body) {
		t.Errorf("GET body differs from the create body:\n%s\n%s", got.Body, r.Body)
	}

	// A decimal string on the bank rail: 1.5% of 33.33 = 0.49995, rounded half-up.
	b, _ := simulate(t, e, key, `{"amount_mwk":"33.33","rail":"bank"}`)
	if b.Rail != "bank" || b.AmountMWK != "33.33" || b.Fee != "0.50" || b.AmountCredited != "32.83" {
		t.Errorf("bank collection = %+v", b)
	}
	if av, held := balance(t, e, key); av != "9882.83" || held != "0.00" {
		t.Errorf("balance %s / %s, want 9882.83 / 0.00 (9850.00 + 32.83)", av, held)
	}

	// Rejections create and credit nothing.
	for _, body := range []string{
		`{"amount_mwk":10.5}`,               // fractional JSON number
		`{"amount_mwk":1e3}`,                // exponent
		`{"amount_mwk":"10.123"}`,           // 3 decimals
		`{"amount_mwk":"1.001"}`,            // 3 decimals
		`{"amount_mwk":0}`,                  // zero
		`{"amount_mwk":"0.00"}`,             // zero
		`{"amount_mwk":-5}`,                 // negative
		`{"amount_mwk":"-5.00"}`,            // negative
		`{"amount_mwk":null}`,               // missing
		`{}`,                                // missing
		`{"amount_mwk":"1000000000000.01"}`, // above the maximum
		`{"amount_mwk":100,"rail":"wire"}`,  // unknown rail
		`{"amount_mwk":100,"rail":5}`,       // rail of the wrong type
		`not json`,
		`[]`,
	} {
		e.do(t, "POST", "/v1/collections/simulate", body, hdr(key)).want(t, 400, "validation_error")
	}
	if n := len(listCollections(t, e, key, "").Collections); n != 2 {
		t.Errorf("%d collections after the rejections, want 2", n)
	}
	if av, _ := balance(t, e, key); av != "9882.83" {
		t.Errorf("available %s after the rejections, want 9882.83", av)
	}
	checkLedger(t, e)
}

func TestCollections_SimulateIsNotIdempotent(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{})
	// Even an Idempotency-Key does not make two identical calls one.
	h := hdr(key, "Idempotency-Key", "same")
	var a, b collectionJSON
	e.do(t, "POST", "/v1/collections/simulate", `{"amount_mwk":"1000"}`, h).want(t, 201, "").decode(t, &a)
	e.do(t, "POST", "/v1/collections/simulate", `{"amount_mwk":"1000"}`, h).want(t, 201, "").decode(t, &b)
	if a.ID == b.ID {
		t.Errorf("two calls made one collection: %+v %+v", a, b)
	}
	if ids := listCollections(t, e, key, "").ids(t); !slices.Equal(ids, []string{b.ID, a.ID}) {
		t.Errorf("listed %v, want [%s %s]", ids, b.ID, a.ID)
	}
	if av, _ := balance(t, e, key); av != "1970.00" {
		t.Errorf("available %s, want two credits of 985.00", av)
	}
}

// BUG (reported): SimulateCollection (collections.go:156) sets
// rtp_reference_number to "SIM-" + the first 8 hex digits of a fresh
// UUIDv7, which are the top of its millisecond timestamp: every simulated
// collection within about 65 seconds gets the same reference. Flip this
// constant once the reference uses the whole id.
const simulatedRTPReferencesUniqueFixed = true

func TestCollections_SimulatedReferencesAreUnique(t *testing.T) {
	if !simulatedRTPReferencesUniqueFixed {
		t.Skip("known bug: simulated collections made within ~65 s share one rtp_reference_number (collections.go:156)")
	}
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{})
	seen := map[string]bool{}
	for range 5 {
		c, _ := simulate(t, e, key, `{"amount_mwk":100}`)
		if seen[c.RTPReferenceNumber] {
			t.Errorf("rtp_reference_number %q given twice", c.RTPReferenceNumber)
		}
		seen[c.RTPReferenceNumber] = true
	}
}

func TestCollections_SimulateIsSandboxOnly(t *testing.T) {
	e := newEnv(t, withEnvironment(tambala.Production))
	_, key := e.newOrg(t, orgSpec{})
	e.do(t, "POST", "/v1/collections/simulate", `{"amount_mwk":1000}`, hdr(key)).want(t, 403, "sandbox_only")
	// Checked before the body: an invalid body is 403 too.
	e.do(t, "POST", "/v1/collections/simulate", `{"amount_mwk":1.5}`, hdr(key)).want(t, 403, "sandbox_only")
	if p := listCollections(t, e, key, ""); len(p.Collections) != 0 || p.HasMore || p.NextBeforeID != nil {
		t.Errorf("production list = %+v", p)
	}
	if av, held := balance(t, e, key); av != "0.00" || held != "0.00" {
		t.Errorf("balance %s / %s after a refused simulation", av, held)
	}
}

func TestCollections_SimulateNeedsTheCollectionOperation(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{assets: []tambala.AssetAccess{{Asset: "MWK", Operations: []string{tambala.OpPayout}}}})
	e.do(t, "POST", "/v1/collections/simulate", `{"amount_mwk":1000}`, hdr(key)).want(t, 403, "corridor_not_enabled")
	if av, _ := balance(t, e, key); av != "0.00" {
		t.Errorf("available %s", av)
	}
}

func TestCollections_GetAndListPages(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{name: "A"})
	_, other := e.newOrg(t, orgSpec{name: "B"})

	var created []string // oldest first
	bodies := map[string][]byte{}
	add := func(n int) {
		for range n {
			c, r := simulate(t, e, key, `{"amount_mwk":`+strconv.Itoa(1000+len(created))+`}`)
			created = append(created, c.ID)
			bodies[c.ID] = r.Body
		}
	}
	add(5)
	original := slices.Clone(created)

	var walked []string
	p1 := listCollections(t, e, key, "?limit=2")
	walked = append(walked, p1.ids(t)...)
	if len(walked) != 2 || !p1.HasMore || p1.NextBeforeID == nil || *p1.NextBeforeID != walked[1] {
		t.Fatalf("page 1 = %v has_more=%v next=%v", walked, p1.HasMore, p1.NextBeforeID)
	}
	add(2) // newer than every cursor handed out
	p2 := listCollections(t, e, key, "?limit=2&before_id="+*p1.NextBeforeID)
	walked = append(walked, p2.ids(t)...)
	if len(p2.Collections) != 2 || !p2.HasMore || *p2.NextBeforeID != walked[3] {
		t.Fatalf("page 2 = %v has_more=%v next=%v", p2.ids(t), p2.HasMore, p2.NextBeforeID)
	}
	p3 := listCollections(t, e, key, "?limit=2&before_id="+*p2.NextBeforeID)
	walked = append(walked, p3.ids(t)...)
	if len(p3.Collections) != 1 || p3.HasMore || p3.NextBeforeID != nil {
		t.Fatalf("page 3 = %v has_more=%v next=%v", p3.ids(t), p3.HasMore, p3.NextBeforeID)
	}
	want := slices.Clone(original)
	slices.Reverse(want)
	if !slices.Equal(walked, want) {
		t.Errorf("walked %v\nwant   %v", walked, want)
	}
	// A full page: every item is the bytes of its GET.
	all := listCollections(t, e, key, "")
	want = slices.Clone(created)
	slices.Reverse(want)
	if !slices.Equal(all.ids(t), want) || all.HasMore || all.NextBeforeID != nil {
		t.Errorf("default page: %v has_more=%v, want %v", all.ids(t), all.HasMore, want)
	}
	for i, raw := range all.Collections {
		got := e.do(t, "GET", "/v1/collections/"+want[i], nil, hdr(key)).want(t, 200, "")
		if !bytes.Equal(raw, got.Body) || !bytes.Equal(raw, bodies[want[i]]) {
			t.Errorf("list item %d differs from its GET or its create:\n%s\n%s", i, raw, got.Body)
		}
	}
	if p := listCollections(t, e, key, "?limit=7"); len(p.Collections) != 7 || p.HasMore {
		t.Errorf("limit=7 (exactly all): %d items has_more=%v", len(p.Collections), p.HasMore)
	}
	if p := listCollections(t, e, key, "?before_id="+created[0]); len(p.Collections) != 0 || p.HasMore || p.NextBeforeID != nil {
		t.Errorf("before the oldest: %+v", p)
	}

	// Someone else's collections: not listed, not readable, not a cursor;
	// a foreign id reads exactly like an unknown or malformed one.
	foreign, _ := simulate(t, e, other, `{"amount_mwk":500}`)
	if ids := listCollections(t, e, other, "").ids(t); !slices.Equal(ids, []string{foreign.ID}) {
		t.Errorf("B lists %v, want only its own %s", ids, foreign.ID)
	}
	notFound := e.do(t, "GET", "/v1/collections/"+foreign.ID, nil, hdr(key)).want(t, 404, "not_found")
	for _, id := range []string{
		"0190c4d2-7f3a-7b1e-8a2b-000000000000", "not-a-uuid", "x", "%20", "simulate",
		string(bytes.Repeat([]byte("a"), 100)), foreign.ID[:len(foreign.ID)-1],
	} {
		r := e.do(t, "GET", "/v1/collections/"+id, nil, hdr(key)).want(t, 404, "not_found")
		if !bytes.Equal(r.Body, notFound.Body) {
			t.Errorf("id %q: body %s differs from the foreign id's %s", id, r.Body, notFound.Body)
		}
	}
	for _, q := range []string{"limit=0", "limit=201", "limit=x", "limit=1.5", "before_id=nope",
		"before_id=0190c4d2-7f3a-7b1e-8a2b-000000000000", "before_id=" + foreign.ID} {
		e.do(t, "GET", "/v1/collections?"+q, nil, hdr(key)).want(t, 400, "validation_error")
	}
}

func TestCollections_AdminReverse(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{name: "A"})
	other, _ := e.newOrg(t, orgSpec{name: "B"})

	c, _ := simulate(t, e, key, `{"amount_mwk":10000}`)
	if av, _ := balance(t, e, key); av != "9850.00" {
		t.Fatalf("available %s after the collection", av)
	}
	// Only the owner's path finds it.
	e.admin(t, "POST", "/admin/orgs/"+other.ID+"/collections/"+c.ID+"/reverse", nil).want(t, 404, "not_found")
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/collections/0190c4d2-7f3a-7b1e-8a2b-000000000000/reverse", nil).want(t, 404, "not_found")

	var rev collectionJSON
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/collections/"+c.ID+"/reverse", nil).want(t, 200, "").decode(t, &rev)
	wantRev := c
	wantRev.Status = "reversed"
	if rev != wantRev {
		t.Errorf("reversed = %+v, want %+v", rev, wantRev)
	}
	var got collectionJSON
	e.do(t, "GET", "/v1/collections/"+c.ID, nil, hdr(key)).want(t, 200, "").decode(t, &got)
	if got != wantRev {
		t.Errorf("GET after the reversal = %+v", got)
	}
	if av, held := balance(t, e, key); av != "0.00" || held != "0.00" {
		t.Errorf("balance %s / %s after the reversal, want 0.00 / 0.00", av, held)
	}
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/collections/"+c.ID+"/reverse", nil).want(t, 409, "conflict")
	if av, _ := balance(t, e, key); av != "0.00" {
		t.Errorf("available %s after a second reversal", av)
	}

	// Money already spent: the reversal is refused and changes nothing.
	c2, _ := simulate(t, e, key, `{"amount_mwk":1000}`) // credits 985.00
	// A 500.00 momo payout holds 500.00 + 239.70 fee, leaving 245.30.
	e.do(t, "POST", "/v1/payouts/momo", momoBody("500"), hdr(key, "Idempotency-Key", "spend")).want(t, 202, "")
	if av, held := balance(t, e, key); av != "245.30" || held != "739.70" {
		t.Fatalf("balance %s / %s after the payout", av, held)
	}
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/collections/"+c2.ID+"/reverse", nil).want(t, 402, "insufficient_funds")
	e.do(t, "GET", "/v1/collections/"+c2.ID, nil, hdr(key)).want(t, 200, "").decode(t, &got)
	if got != c2 {
		t.Errorf("collection after a refused reversal = %+v, want %+v", got, c2)
	}
	if av, held := balance(t, e, key); av != "245.30" || held != "739.70" {
		t.Errorf("balance %s / %s after a refused reversal", av, held)
	}
	// Once available covers it again, the reversal goes through.
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/funding", map[string]string{"asset": "MWK", "amount": "1000", "ref": "top-up"}).want(t, 200, "")
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/collections/"+c2.ID+"/reverse", nil).want(t, 200, "")
	if av, held := balance(t, e, key); av != "260.30" || held != "739.70" {
		t.Errorf("balance %s / %s, want 260.30 / 739.70", av, held)
	}
	checkLedger(t, e)
}

func TestTrades_RecordedOnceAndListed(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{name: "A"})
	_, otherKey := e.newOrg(t, orgSpec{name: "B"})
	path := "/admin/orgs/" + o.ID + "/trades"

	var tr tradeJSON
	first := e.admin(t, "POST", path, map[string]string{"ref": "otc-1", "usdt_amount": "100.50", "client_rate": "1750.25"}).want(t, 201, "")
	first.decode(t, &tr)
	want := tradeJSON{ID: tr.ID, USDTAmount: "100.500000", ClientRate: "1750.25", MWKAmount: 175900, Status: "settled",
		CreatedAt: "2026-03-02T09:00:00.000Z", SettledAt: "2026-03-02T09:00:00.000Z"}
	if tr != want {
		t.Errorf("trade = %+v, want %+v (175900.125 rounded down)", tr, want)
	}
	if av, _ := balance(t, e, key); av != "175900.00" {
		t.Errorf("available %s after the trade", av)
	}
	// The same ref, figures spelled differently: the first trade, no second credit.
	e.Clock.Advance(60e9)
	again := e.admin(t, "POST", path, map[string]string{"ref": "otc-1", "usdt_amount": "100.5", "client_rate": "1750.250"}).want(t, 201, "")
	if !bytes.Equal(again.Body, first.Body) {
		t.Errorf("re-recording otc-1 answered %s, want %s", again.Body, first.Body)
	}
	e.admin(t, "POST", path, map[string]string{"ref": "otc-1", "usdt_amount": "200", "client_rate": "1750.25"}).want(t, 409, "conflict")
	for _, body := range []map[string]string{
		{"ref": "otc-x", "usdt_amount": "0.000001", "client_rate": "1"}, // under 1 kwacha
		{"ref": "", "usdt_amount": "1", "client_rate": "1750"},
		{"ref": "otc-x", "usdt_amount": "1", "client_rate": "0"},
		{"ref": "otc-x", "usdt_amount": "1.0000001", "client_rate": "1750"},
		{"ref": "otc-x", "usdt_amount": "-1", "client_rate": "1750"},
		{"ref": "otc-x", "usdt_amount": "1", "client_rate": "abc"},
	} {
		e.admin(t, "POST", path, body).want(t, 400, "validation_error")
	}
	e.admin(t, "POST", "/admin/orgs/no-such-org/trades", map[string]string{"ref": "r", "usdt_amount": "1", "client_rate": "1750"}).want(t, 404, "not_found")
	if av, _ := balance(t, e, key); av != "175900.00" {
		t.Errorf("available %s, want one credit of 175900.00", av)
	}

	// More trades; GET /v1/trades pages through them newest first.
	ids := []string{tr.ID}
	for i, rate := range []string{"1800.000", "1700.5", "1650", "1725.125"} {
		var n tradeJSON
		e.Clock.Advance(60e9)
		e.admin(t, "POST", path, map[string]string{"ref": "otc-" + strconv.Itoa(i+2), "usdt_amount": "10", "client_rate": rate}).want(t, 201, "").decode(t, &n)
		ids = append(ids, n.ID)
		if i == 0 && (n.ClientRate != "1800" || n.MWKAmount != 18000 || n.USDTAmount != "10.000000") {
			t.Errorf("trade at 1800.000 = %+v, want client_rate 1800 (trimmed), mwk_amount 18000", n)
		}
	}
	slices.Reverse(ids)
	var walked []string
	var items []tradeJSON
	q := "?limit=2"
	for pages := 0; ; pages++ {
		p := listTrades(t, e, key, q)
		for _, it := range p.Trades {
			walked = append(walked, it.ID)
			items = append(items, it)
		}
		if !p.HasMore {
			if p.NextBeforeID != nil || pages != 2 {
				t.Errorf("last page: next=%v after %d pages", p.NextBeforeID, pages+1)
			}
			break
		}
		if p.NextBeforeID == nil || *p.NextBeforeID != walked[len(walked)-1] || pages > 5 {
			t.Fatalf("page %d: has_more with next %v", pages, p.NextBeforeID)
		}
		q = "?limit=2&before_id=" + *p.NextBeforeID
	}
	if !slices.Equal(walked, ids) {
		t.Errorf("walked %v\nwant   %v", walked, ids)
	}
	if last := items[len(items)-1]; last != tr {
		t.Errorf("the oldest listed trade = %+v, want %+v", last, tr)
	}
	// 175900 + 18000 + 17005 + 16500 + 17251 (17251.25 rounded down).
	if av, _ := balance(t, e, key); av != "244656.00" {
		t.Errorf("available %s after five trades, want 244656.00", av)
	}
	if p := listTrades(t, e, otherKey, ""); len(p.Trades) != 0 || p.HasMore || p.NextBeforeID != nil {
		t.Errorf("B lists A's trades: %+v", p)
	}
	for _, q := range []string{"limit=0", "limit=201", "limit=x", "before_id=nope", "before_id=" + ids[0] + "x"} {
		e.do(t, "GET", "/v1/trades?"+q, nil, hdr(key)).want(t, 400, "validation_error")
	}
	e.do(t, "GET", "/v1/trades?before_id="+ids[0], nil, hdr(otherKey)).want(t, 400, "validation_error")
	checkLedger(t, e)
}

type bankList struct {
	Banks []struct {
		BankUUID string `json:"bank_uuid"`
		Name     string `json:"name"`
	} `json:"banks"`
}

type operatorList struct {
	Operators []struct {
		RefID string `json:"ref_id"`
		Name  string `json:"name"`
	} `json:"operators"`
	FetchedAt string `json:"fetched_at"`
}

type institutionList struct {
	Institutions []struct {
		ID   int    `json:"institution_id"`
		Name string `json:"name"`
		Rail string `json:"rail"`
	} `json:"institutions"`
	SyncedAt string `json:"synced_at"`
}

func TestBanksAndOperators_Sandbox(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{})
	var inst institutionList
	e.do(t, "GET", "/v1/institutions", nil, hdr(key)).want(t, 200, "").decode(t, &inst)
	var wantBanks, wantOps, gotBanks, gotOps []string
	for _, in := range inst.Institutions {
		if in.Rail == "bank" {
			wantBanks = append(wantBanks, in.Name)
		} else {
			wantOps = append(wantOps, strconv.Itoa(in.ID)+" "+in.Name)
		}
	}
	var banks bankList
	first := e.do(t, "GET", "/v1/banks", nil, hdr(key)).want(t, 200, "")
	first.decode(t, &banks)
	uuids := map[string]bool{}
	for _, b := range banks.Banks {
		gotBanks = append(gotBanks, b.Name)
		uuids[b.BankUUID] = true
	}
	if !slices.Equal(gotBanks, wantBanks) || len(wantBanks) == 0 || len(uuids) != len(gotBanks) {
		t.Errorf("banks = %+v, want the bank institutions %v under distinct uuids", banks, wantBanks)
	}
	if again := e.do(t, "GET", "/v1/banks", nil, hdr(key)).want(t, 200, ""); !bytes.Equal(again.Body, first.Body) {
		t.Error("the bank list is not stable")
	}
	var ops operatorList
	e.do(t, "GET", "/v1/operators", nil, hdr(key)).want(t, 200, "").decode(t, &ops)
	for _, o := range ops.Operators {
		gotOps = append(gotOps, o.RefID+" "+o.Name)
	}
	if !slices.Equal(gotOps, wantOps) || len(wantOps) == 0 || ops.FetchedAt != inst.SyncedAt {
		t.Errorf("operators = %+v, want %v fetched at %s", ops, wantOps, inst.SyncedAt)
	}
}

func TestBanksAndOperators_ProductionNeedsInstitutionSync(t *testing.T) {
	e := newEnv(t, withEnvironment(tambala.Production))
	_, key := e.newOrg(t, orgSpec{})
	for _, p := range []string{"/v1/banks", "/v1/operators", "/v1/institutions"} {
		e.do(t, "GET", p, nil, hdr(key)).want(t, 503, "service_unavailable")
	}
	e.Clock.Advance(90e9)
	sync := func(bankName string) {
		e.admin(t, "PUT", "/admin/institutions", map[string]any{"institutions": []map[string]any{
			{"institution_id": 7, "name": bankName, "rail": "bank"},
			{"institution_id": 9, "name": "Bank Nine", "rail": "bank"},
			{"institution_id": 8, "name": "Airtel", "rail": "momo", "network": "9"},
		}}).want(t, 200, "")
	}
	sync("Bank Seven")
	var banks bankList
	e.do(t, "GET", "/v1/banks", nil, hdr(key)).want(t, 200, "").decode(t, &banks)
	if len(banks.Banks) != 2 || banks.Banks[0].Name != "Bank Seven" || banks.Banks[1].Name != "Bank Nine" || banks.Banks[0].BankUUID == banks.Banks[1].BankUUID {
		t.Errorf("banks = %+v", banks)
	}
	var ops operatorList
	e.do(t, "GET", "/v1/operators", nil, hdr(key)).want(t, 200, "").decode(t, &ops)
	if len(ops.Operators) != 1 || ops.Operators[0].RefID != "8" || ops.Operators[0].Name != "Airtel" || ops.FetchedAt != "2026-03-02T09:01:30.000Z" {
		t.Errorf("operators = %+v", ops)
	}
	e.do(t, "GET", "/v1/institutions", nil, hdr(key)).want(t, 200, "")
	// A later sync renames the bank; its uuid stays.
	e.Clock.Advance(60e9)
	sync("Bank Seven Renamed")
	var after bankList
	e.do(t, "GET", "/v1/banks", nil, hdr(key)).want(t, 200, "").decode(t, &after)
	if len(after.Banks) != 2 || after.Banks[0].Name != "Bank Seven Renamed" || after.Banks[0].BankUUID != banks.Banks[0].BankUUID {
		t.Errorf("after the rename: %+v, want uuid %s kept", after, banks.Banks[0].BankUUID)
	}
	e.do(t, "GET", "/v1/operators", nil, hdr(key)).want(t, 200, "").decode(t, &ops)
	if ops.FetchedAt != "2026-03-02T09:02:30.000Z" {
		t.Errorf("fetched_at %s after the second sync", ops.FetchedAt)
	}
}

// TestOpenAPI_CollectionAndTradeSchemas: the new schemas accept what the
// handler sends and reject drift; the simulate request schema matches the
// bodies the handler accepts and refuses.
func TestOpenAPI_CollectionAndTradeSchemas(t *testing.T) {
	s := loadSpec(t)
	visit := func(schema string, v map[string]any) error {
		b, _ := json.Marshal(v)
		var x any
		_ = json.Unmarshal(b, &x)
		return s.doc.Components.Schemas[schema].Value.VisitJSON(x, uuidFormat)
	}
	collection := func(mut func(m map[string]any)) map[string]any {
		m := map[string]any{
			"id": "0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "status": "settled", "amount_mwk": "10000.00", "fee": "150.00",
			"amount_credited": "9850.00", "rail": "momo", "source_customer_name": "<script>", "source_account_number": "",
			"source_institution": "Sandbox", "rtp_reference_number": "SIM-1", "created_at": "2026-03-02T09:00:00.000Z",
		}
		if mut != nil {
			mut(m)
		}
		return m
	}
	trade := func(mut func(m map[string]any)) map[string]any {
		m := map[string]any{
			"id": "0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "usdt_amount": "100.500000", "client_rate": "1750.25", "mwk_amount": 175900,
			"status": "settled", "created_at": "2026-03-02T09:00:00.000Z", "settled_at": "2026-03-02T09:00:00.000Z",
		}
		if mut != nil {
			mut(m)
		}
		return m
	}
	cases := []struct {
		name, schema string
		v            map[string]any
		ok           bool
	}{
		{"collection", "Collection", collection(nil), true},
		{"reversed bank collection", "Collection", collection(func(m map[string]any) { m["status"], m["rail"] = "reversed", "bank" }), true},
		{"collection extra field", "Collection", collection(func(m map[string]any) { m["org"] = "x" }), false},
		{"collection number amount", "Collection", collection(func(m map[string]any) { m["amount_mwk"] = 10000 }), false},
		{"collection 3 decimals", "Collection", collection(func(m map[string]any) { m["fee"] = "150.000" }), false},
		{"collection status", "Collection", collection(func(m map[string]any) { m["status"] = "pending" }), false},
		{"collection missing credited", "Collection", collection(func(m map[string]any) { delete(m, "amount_credited") }), false},
		{"trade", "Trade", trade(nil), true},
		{"trade whole rate", "Trade", trade(func(m map[string]any) { m["client_rate"] = "1800" }), true},
		{"trade untrimmed rate", "Trade", trade(func(m map[string]any) { m["client_rate"] = "1750.250" }), false},
		{"trade rate with a bare point", "Trade", trade(func(m map[string]any) { m["client_rate"] = "1750." }), false},
		{"trade usdt at 2 decimals", "Trade", trade(func(m map[string]any) { m["usdt_amount"] = "100.50" }), false},
		{"trade mwk as string", "Trade", trade(func(m map[string]any) { m["mwk_amount"] = "175900" }), false},
		{"trade mwk fractional", "Trade", trade(func(m map[string]any) { m["mwk_amount"] = 1.5 }), false},
		{"trade missing settled_at", "Trade", trade(func(m map[string]any) { delete(m, "settled_at") }), false},
		{"bank list", "BankList", map[string]any{"banks": []any{map[string]any{"bank_uuid": "0190c4d2-7f3a-7b1e-8a2b-0123456789ab", "name": "B"}}}, true},
		{"bank list bad uuid", "BankList", map[string]any{"banks": []any{map[string]any{"bank_uuid": "1", "name": "B"}}}, false},
		{"operator list", "OperatorList", map[string]any{"operators": []any{map[string]any{"ref_id": "101", "name": "Airtel"}}, "fetched_at": "2026-03-02T09:00:00.000Z"}, true},
		{"operator list numeric ref", "OperatorList", map[string]any{"operators": []any{map[string]any{"ref_id": 101, "name": "Airtel"}}, "fetched_at": "2026-03-02T09:00:00.000Z"}, false},
		{"operator list without fetched_at", "OperatorList", map[string]any{"operators": []any{}}, false},
		// The server takes a JSON integer too (the description says so); the
		// schema types the string, what generated clients send.
		{"simulate integer", "SimulateCollectionRequest", map[string]any{"amount_mwk": 100}, false},
		{"simulate string", "SimulateCollectionRequest", map[string]any{"amount_mwk": "100"}, true},
		{"simulate string bank", "SimulateCollectionRequest", map[string]any{"amount_mwk": "33.33", "rail": "bank"}, true},
		{"simulate fractional number", "SimulateCollectionRequest", map[string]any{"amount_mwk": 10.5}, false},
		{"simulate 3 decimals", "SimulateCollectionRequest", map[string]any{"amount_mwk": "1.001"}, false},
		{"simulate negative", "SimulateCollectionRequest", map[string]any{"amount_mwk": -5}, false},
		{"simulate zero", "SimulateCollectionRequest", map[string]any{"amount_mwk": 0}, false},
		{"simulate rail", "SimulateCollectionRequest", map[string]any{"amount_mwk": 1, "rail": "wire"}, false},
		{"simulate missing amount", "SimulateCollectionRequest", map[string]any{"rail": "momo"}, false},
	}
	for _, c := range cases {
		if err := visit(c.schema, c.v); (err == nil) != c.ok {
			t.Errorf("%s: VisitJSON err=%v, want ok=%v", c.name, err, c.ok)
		}
	}
}
