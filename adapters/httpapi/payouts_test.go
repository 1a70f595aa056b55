package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/tambalapay/tambala"
)

func bankBody(amount string) string {
	return `{"amount_mwk":"` + amount + `","institution_id":1,"account_number":"3333888800","beneficiary_name":"Chisomo Banda"}`
}

func momoBody(amount string) string {
	return `{"amount_mwk":"` + amount + `","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Chisomo Banda"}`
}

func feeBody(dir, rail, amount string) string {
	return `{"direction":"` + dir + `","rail":"` + rail + `","amount_mwk":"` + amount + `"}`
}

type payoutJSON struct {
	ID          string           `json:"id"`
	AmountMWK   string           `json:"amount_mwk"`
	Fee         *string          `json:"fee"`
	Rail        string           `json:"rail"`
	Status      string           `json:"status"`
	Destination map[string]any   `json:"destination"`
	Failure     *json.RawMessage `json:"failure"`
	CreatedAt   string           `json:"created_at"`
	TerminalAt  *string          `json:"terminal_at"`
}

type payoutPage struct {
	Payouts      []json.RawMessage `json:"payouts"`
	HasMore      bool              `json:"has_more"`
	NextBeforeID *string           `json:"next_before_id"`
}

func (p payoutPage) ids(t testing.TB) []string {
	var out []string
	for _, raw := range p.Payouts {
		var po payoutJSON
		if err := json.Unmarshal(raw, &po); err != nil {
			t.Fatal(err)
		}
		out = append(out, po.ID)
	}
	return out
}

func listPayouts(t testing.TB, e *testEnv, key, query string) payoutPage {
	t.Helper()
	var p payoutPage
	e.do(t, "GET", "/v1/payouts"+query, nil, hdr(key)).want(t, 200, "").decode(t, &p)
	return p
}

func assertPayoutCount(t testing.TB, e *testEnv, key string, n int) {
	t.Helper()
	if got := len(listPayouts(t, e, key, "?limit=200").Payouts); got != n {
		t.Errorf("%d payouts listed, want %d", got, n)
	}
}

func balance(t testing.TB, e *testEnv, key string) (available, held string) {
	t.Helper()
	m := e.do(t, "GET", "/v1/balance", nil, hdr(key)).want(t, 200, "").obj(t)
	return m["available"].(string), m["held"].(string)
}

func createBank(t testing.TB, e *testEnv, key, idem, amount string) payoutJSON {
	t.Helper()
	var p payoutJSON
	e.do(t, "POST", "/v1/payouts/bank", bankBody(amount), hdr(key, "Idempotency-Key", idem)).want(t, 202, "").decode(t, &p)
	return p
}

func TestPayouts_CreateReadAndHold(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})

	r := e.do(t, "POST", "/v1/payouts/bank", bankBody("10000"), hdr(key, "Idempotency-Key", "b1")).want(t, 202, "")
	var p payoutJSON
	r.decode(t, &p)
	if p.AmountMWK != "10000.00" || p.Fee != nil || p.Rail != "bank" || p.Status != "held" || p.Failure != nil || p.TerminalAt != nil {
		t.Errorf("created payout = %+v", p)
	}
	if p.Destination["institution_id"] != 1.0 || p.Destination["account_number"] != "3333888800" || p.Destination["beneficiary_name"] != "Chisomo Banda" || len(p.Destination) != 3 {
		t.Errorf("destination = %v", p.Destination)
	}
	// The read and the list item are the create's bytes.
	got := e.do(t, "GET", "/v1/payouts/"+p.ID, nil, hdr(key)).want(t, 200, "")
	if !bytes.Equal(got.Body, r.Body) {
		t.Errorf("GET body differs from the create body:\n%s\n%s", got.Body, r.Body)
	}
	page := listPayouts(t, e, key, "")
	if len(page.Payouts) != 1 || !bytes.Equal(page.Payouts[0], r.Body) || page.HasMore || page.NextBeforeID != nil {
		t.Errorf("list = %+v", page)
	}
	// Held: amount plus the quoted fee (500 + 80 + 17.5% VAT of 580 = 681.50).
	if av, held := balance(t, e, key); held != "10681.50" || av != "89318.50" {
		t.Errorf("balance available %s held %s, want 89318.50 / 10681.50", av, held)
	}
	var q map[string]any
	e.do(t, "POST", "/v1/fees/quote", feeBody("payout", "bank", "10000"), hdr(key)).want(t, 200, "").decode(t, &q)
	if q["total_debit"] != "10681.50" {
		t.Errorf("fee quote total_debit = %v, want the amount held", q["total_debit"])
	}

	var m payoutJSON
	e.do(t, "POST", "/v1/payouts/momo", momoBody("1000.5"), hdr(key, "Idempotency-Key", "m1")).want(t, 202, "").decode(t, &m)
	if m.Rail != "momo" || m.AmountMWK != "1000.50" || m.Destination["mobile_number"] != "265991234567" || m.Destination["institution_id"] != 101.0 || len(m.Destination) != 3 {
		t.Errorf("momo payout = %+v", m)
	}
	// A JSON integer amount is whole kwacha; sandbox test wallets skip the pattern.
	e.do(t, "POST", "/v1/payouts/momo", `{"amount_mwk":50,"institution_id":102,"mobile_number":"111100000112","beneficiary_name":"T"}`,
		hdr(key, "Idempotency-Key", "m2")).want(t, 202, "")
	assertPayoutCount(t, e, key, 3)
	e.do(t, "GET", "/v1/institutions", nil, hdr(key)).want(t, 200, "")
}

func TestPayouts_Rejections(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{fundMWK: 10_000})
	cases := []struct {
		path, body string
		status     int
		code       string
	}{
		{"bank", `{}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":10.5,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":1e3,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"10.123","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"-1","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"0","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":null,"institution_id":1,"account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"100","institution_id":"1","account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"100","institution_id":1.5,"account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"100","institution_id":1,"beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"100","institution_id":1,"account_number":"1"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"1000000000000.01","institution_id":1,"account_number":"1","beneficiary_name":"A"}`, 400, "validation_error"},
		{"bank", `{"amount_mwk":"100","institution_id":101,"account_number":"1","beneficiary_name":"A"}`, 422, "unknown_institution"},
		{"bank", `{"amount_mwk":"100","institution_id":999,"account_number":"1","beneficiary_name":"A"}`, 422, "unknown_institution"},
		{"bank", bankBody("5000000.01"), 422, "amount_limit_exceeded"},
		{"bank", bankBody("20000"), 402, "insufficient_funds"},
		{"momo", `{"amount_mwk":"100","institution_id":101,"mobile_number":"0991234567","beneficiary_name":"A"}`, 422, "invalid_mobile_number"},
		{"momo", `{"amount_mwk":"100","institution_id":101,"mobile_number":"265881234567","beneficiary_name":"A"}`, 422, "mobile_number_institution_mismatch"},
		{"momo", `{"amount_mwk":"100","institution_id":1,"mobile_number":"265991234567","beneficiary_name":"A"}`, 422, "unknown_institution"},
		{"momo", `{"amount_mwk":"100","institution_id":101,"beneficiary_name":"A"}`, 400, "validation_error"},
	}
	for i, c := range cases {
		r := e.do(t, "POST", "/v1/payouts/"+c.path, c.body, hdr(key, "Idempotency-Key", "rej-"+strconv.Itoa(i)))
		if r.Status != c.status || r.code() != c.code {
			t.Errorf("%s %s: got %d %s, want %d %s", c.path, c.body, r.Status, r.Body, c.status, c.code)
		}
	}
	// A rejection creates and holds nothing.
	assertPayoutCount(t, e, key, 0)
	if av, held := balance(t, e, key); av != "10000.00" || held != "0.00" {
		t.Errorf("balance %s / %s after rejections", av, held)
	}
	// Operator switches: rail paused, payouts not enabled, org limits.
	e.admin(t, "PUT", "/admin/rails/bank", map[string]bool{"disabled": true}).want(t, 200, "")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "rail")).want(t, 503, "rail_disabled")
	e.do(t, "POST", "/v1/payouts/momo", momoBody("100"), hdr(key, "Idempotency-Key", "rail")).want(t, 202, "")
	e.admin(t, "PUT", "/admin/rails/bank", map[string]bool{"disabled": false}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/rails/wire", map[string]bool{"disabled": true}).want(t, 400, "validation_error")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/payout-limits", map[string]any{"hourly_count": 2}).want(t, 200, "")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "limits")).want(t, 202, "")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "third")).want(t, 429, "org_limit_exceeded")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/assets", map[string]any{"assets": assetsJSON([]tambala.AssetAccess{{Asset: "MWK", Operations: []string{"collection"}}})}).want(t, 200, "")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "ops")).want(t, 403, "corridor_not_enabled")
}

func TestPayouts_ProductionNeedsInstitutionSync(t *testing.T) {
	e := newEnv(t, withEnvironment(tambala.Production))
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	e.do(t, "GET", "/v1/institutions", nil, hdr(key)).want(t, 503, "service_unavailable")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "k")).want(t, 503, "service_unavailable")
	// Sandbox test wallets are not exempt in production.
	e.do(t, "POST", "/v1/payouts/momo", `{"amount_mwk":"100","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"A"}`,
		hdr(key, "Idempotency-Key", "w")).want(t, 422, "invalid_mobile_number")
	e.admin(t, "PUT", "/admin/institutions", map[string]any{"institutions": []map[string]any{
		{"institution_id": 7, "name": "Bank Seven", "rail": "bank"},
		{"institution_id": 8, "name": "Airtel", "rail": "momo", "network": "9"},
	}}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/institutions", map[string]any{"institutions": []map[string]any{{"institution_id": 9, "name": "X", "rail": "momo"}}}).want(t, 400, "validation_error")
	var list struct {
		Institutions []map[string]any `json:"institutions"`
		SyncedAt     string           `json:"synced_at"`
	}
	e.do(t, "GET", "/v1/institutions", nil, hdr(key)).want(t, 200, "").decode(t, &list)
	if len(list.Institutions) != 2 || list.Institutions[1]["rail"] != "momo" || list.SyncedAt != "2026-03-02T09:00:00.000Z" {
		t.Errorf("institutions = %+v", list)
	}
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "k")).want(t, 422, "unknown_institution")
	e.do(t, "POST", "/v1/payouts/bank", `{"amount_mwk":"100","institution_id":7,"account_number":"1000123456","beneficiary_name":"A"}`,
		hdr(key, "Idempotency-Key", "k")).want(t, 202, "")
}

func TestFeeQuote(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{})
	cases := []struct {
		body string
		want map[string]any
	}{
		{feeBody("payout", "bank", "10000"), map[string]any{"total_fee": "681.50", "total_debit": "10681.50", "amount_received": nil,
			"fees": map[string]any{"convenience_fee": "500.00", "transaction_fee": "80.00", "levy": "0.00", "vat": "101.50"}}},
		{feeBody("payout", "momo", "10000"), map[string]any{"total_fee": "329.00", "total_debit": "10329.00",
			"fees": map[string]any{"convenience_fee": "200.00", "transaction_fee": "80.00", "levy": "0.00", "vat": "49.00"}}},
		{feeBody("payout", "bank", "200000"), map[string]any{"total_fee": "2517.50", "total_debit": "202517.50",
			"fees": map[string]any{"convenience_fee": "500.00", "transaction_fee": "1600.00", "levy": "50.00", "vat": "367.50"}}},
		{feeBody("payout", "bank", "123.45"), map[string]any{"total_fee": "588.66",
			"fees": map[string]any{"convenience_fee": "500.00", "transaction_fee": "0.99", "levy": "0.00", "vat": "87.67"}}},
		{feeBody("collection", "momo", "10000"), map[string]any{"total_fee": "150.00", "total_debit": nil, "amount_received": "9850.00", "currency": "MWK", "direction": "collection", "rail": "momo", "amount_mwk": "10000.00"}},
		{`{"direction":"payout","rail":"bank","amount_mwk":1000000000000}`, map[string]any{"amount_mwk": "1000000000000.00"}},
	}
	for _, c := range cases {
		m := e.do(t, "POST", "/v1/fees/quote", c.body, hdr(key)).want(t, 200, "").obj(t)
		for k, v := range c.want {
			if fmt.Sprint(m[k]) != fmt.Sprint(v) {
				t.Errorf("%s: %s = %v, want %v", c.body, k, m[k], v)
			}
		}
	}
	for _, b := range []string{
		`{}`, feeBody("refund", "bank", "100"), feeBody("payout", "wire", "100"), feeBody("payout", "bank", "0"),
		feeBody("payout", "bank", "1.001"), `{"direction":"payout","rail":"bank","amount_mwk":1.5}`,
		`{"direction":"payout","rail":"bank","amount_mwk":1000000000001}`, `{"direction":"payout","rail":"bank"}`,
	} {
		e.do(t, "POST", "/v1/fees/quote", b, hdr(key)).want(t, 400, "validation_error")
	}
}

func TestIdempotency_MissingKey(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key)).want(t, 400, "validation_error")
	e.do(t, "POST", "/v1/payouts/momo", momoBody("100"), hdr(key)).want(t, 400, "validation_error")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", string(make([]byte, 0)))).want(t, 400, "validation_error")
	long := bytes.Repeat([]byte("k"), 256)
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", string(long))).want(t, 400, "validation_error")
	assertPayoutCount(t, e, key, 0)
	if _, held := balance(t, e, key); held != "0.00" {
		t.Errorf("held %s after refused creates", held)
	}
	// 255 characters is fine.
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", string(long[:255]))).want(t, 202, "")
}

func TestIdempotency_ReplayAndConflict(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	first := e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "K")).want(t, 202, "")
	e.Clock.Advance(3600e9)
	for i := 0; i < 3; i++ {
		again := e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "K"))
		if again.Status != first.Status || !bytes.Equal(again.Body, first.Body) {
			t.Errorf("replay %d: %d %s, want %d %s", i, again.Status, again.Body, first.Status, first.Body)
		}
	}
	// A replay says so in a header; the first answer does not.
	if got := first.Header.Get("Idempotent-Replayed"); got != "" {
		t.Errorf("first answer Idempotent-Replayed = %q", got)
	}
	if got := e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "K")).Header.Get("Idempotent-Replayed"); got != "true" {
		t.Errorf("replay Idempotent-Replayed = %q, want true", got)
	}
	// A different body (even only in spacing) under the same key is conflict.
	e.do(t, "POST", "/v1/payouts/bank", bankBody("101"), hdr(key, "Idempotency-Key", "K")).want(t, 409, "conflict")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100")+" ", hdr(key, "Idempotency-Key", "K")).want(t, 409, "conflict")
	// Even when the different body does not decode at all.
	e.do(t, "POST", "/v1/payouts/bank", `{"amount_mwk":`, hdr(key, "Idempotency-Key", "K")).want(t, 409, "conflict")
	e.do(t, "POST", "/v1/payouts/bank", `{"amount_mwk":`, hdr(key, "Idempotency-Key", "fresh")).want(t, 400, "validation_error")
	assertPayoutCount(t, e, key, 1)
	debit := e.do(t, "POST", "/v1/fees/quote", feeBody("payout", "bank", "100"), hdr(key)).want(t, 200, "").obj(t)["total_debit"]
	if _, held := balance(t, e, key); held != debit {
		t.Errorf("held %s, want one hold of %v", held, debit)
	}
	// Keys are case-sensitive and are not trimmed into each other.
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "k")).want(t, 202, "")
	assertPayoutCount(t, e, key, 2)
}

func TestIdempotency_ScopedByOrganizationAcrossPaths(t *testing.T) {
	e := newEnv(t)
	_, a := e.newOrg(t, orgSpec{name: "A", fundMWK: 100_000})
	_, b := e.newOrg(t, orgSpec{name: "B", fundMWK: 100_000})
	pa := createBank(t, e, a, "shared", "100")
	// The other rail of the same organization: the same namespace.
	e.do(t, "POST", "/v1/payouts/momo", momoBody("100"), hdr(a, "Idempotency-Key", "shared")).want(t, 409, "conflict")
	pb := createBank(t, e, b, "shared", "100")
	if pa.ID == pb.ID {
		t.Errorf("one key made a single payout across organizations: %s %s", pa.ID, pb.ID)
	}
	assertPayoutCount(t, e, a, 1)
	assertPayoutCount(t, e, b, 1)
	// B's replay returns B's payout, never A's.
	var again payoutJSON
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(b, "Idempotency-Key", "shared")).want(t, 202, "").decode(t, &again)
	if again.ID != pb.ID {
		t.Errorf("B's replay returned %s, want %s", again.ID, pb.ID)
	}
}

func TestIdempotency_RejectionStoresNothing(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{fundMWK: 100})
	e.do(t, "POST", "/v1/payouts/bank", bankBody("1000"), hdr(key, "Idempotency-Key", "retry")).want(t, 402, "insufficient_funds")
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/funding", map[string]string{"asset": "MWK", "amount": "10000", "ref": "top-up"}).want(t, 200, "")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("1000"), hdr(key, "Idempotency-Key", "retry")).want(t, 202, "")
	assertPayoutCount(t, e, key, 1)
}

func TestIdempotency_ConcurrentRequestsCreateOnePayout(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 1_000_000})
	const n = 50
	results := make([]*resp, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = e.do(t, "POST", "/v1/payouts/bank", bankBody("1000"), hdr(key, "Idempotency-Key", "burst"))
		}()
	}
	close(start)
	wg.Wait()
	var created []byte
	accepted, conflicts := 0, 0
	for _, r := range results {
		switch {
		case r.Status == 202:
			accepted++
			if created == nil {
				created = r.Body
			} else if !bytes.Equal(created, r.Body) {
				t.Errorf("two different 202 bodies:\n%s\n%s", created, r.Body)
			}
		case r.Status == 409 && r.code() == "conflict":
			conflicts++
		default:
			t.Errorf("unexpected %d %s", r.Status, r.Body)
		}
	}
	t.Logf("%d accepted (one create, the rest replays), %d in-progress conflicts", accepted, conflicts)
	if accepted == 0 {
		t.Fatal("no request was accepted")
	}
	page := listPayouts(t, e, key, "")
	if len(page.Payouts) != 1 || !bytes.Equal(page.Payouts[0], created) {
		t.Fatalf("%d payouts listed, want exactly the one created", len(page.Payouts))
	}
	debit := e.do(t, "POST", "/v1/fees/quote", feeBody("payout", "bank", "1000"), hdr(key)).want(t, 200, "").obj(t)["total_debit"]
	if _, held := balance(t, e, key); held != debit {
		t.Errorf("held %s, want a single hold of %v", held, debit)
	}
	// After the dust settles the key replays.
	again := e.do(t, "POST", "/v1/payouts/bank", bankBody("1000"), hdr(key, "Idempotency-Key", "burst")).want(t, 202, "")
	if !bytes.Equal(again.Body, created) {
		t.Error("the replay after the burst differs")
	}
}

func TestPayouts_ForeignUnknownAndMalformedIDsLookAlike(t *testing.T) {
	e := newEnv(t)
	_, a := e.newOrg(t, orgSpec{name: "A", fundMWK: 100_000})
	_, b := e.newOrg(t, orgSpec{name: "B"})
	pa := createBank(t, e, a, "x", "100")
	e.do(t, "GET", "/v1/payouts/"+pa.ID, nil, hdr(a)).want(t, 200, "")
	foreign := e.do(t, "GET", "/v1/payouts/"+pa.ID, nil, hdr(b)).want(t, 404, "not_found")
	for _, id := range []string{
		"0190c4d2-7f3a-7b1e-8a2b-000000000000", // unknown uuid
		"not-a-uuid", "x", "%20", "..%2F..%2Fkeys",
		string(bytes.Repeat([]byte("a"), 100)),
		pa.ID[:len(pa.ID)-1],
	} {
		r := e.do(t, "GET", "/v1/payouts/"+id, nil, hdr(b)).want(t, 404, "not_found")
		if !bytes.Equal(r.Body, foreign.Body) {
			t.Errorf("id %q: body %s differs from the foreign id's %s", id, r.Body, foreign.Body)
		}
	}
	// Someone else's payout never shows in B's list.
	assertPayoutCount(t, e, b, 0)
}

func TestPayouts_PaginationAcrossInserts(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 10_000_000})
	var created []string // oldest first
	add := func(n int) {
		for range n {
			created = append(created, createBank(t, e, key, "p-"+strconv.Itoa(len(created)), "100").ID)
		}
	}
	add(7)
	original := slices.Clone(created)

	var walked []string
	p1 := listPayouts(t, e, key, "?limit=3")
	walked = append(walked, p1.ids(t)...)
	if len(p1.Payouts) != 3 || !p1.HasMore || p1.NextBeforeID == nil || *p1.NextBeforeID != walked[2] {
		t.Fatalf("page 1 = %v has_more=%v next=%v", walked, p1.HasMore, p1.NextBeforeID)
	}
	add(2) // newer than every cursor handed out
	p2 := listPayouts(t, e, key, "?limit=3&before_id="+*p1.NextBeforeID)
	walked = append(walked, p2.ids(t)...)
	if len(p2.Payouts) != 3 || !p2.HasMore || *p2.NextBeforeID != walked[5] {
		t.Fatalf("page 2 = %v has_more=%v next=%v", p2.ids(t), p2.HasMore, p2.NextBeforeID)
	}
	add(1)
	p3 := listPayouts(t, e, key, "?limit=3&before_id="+*p2.NextBeforeID)
	walked = append(walked, p3.ids(t)...)
	if len(p3.Payouts) != 1 || p3.HasMore || p3.NextBeforeID != nil {
		t.Fatalf("page 3 = %v has_more=%v next=%v", p3.ids(t), p3.HasMore, p3.NextBeforeID)
	}
	// The walk is exactly the original 7, newest first: no gap, no duplicate.
	want := slices.Clone(original)
	slices.Reverse(want)
	if !slices.Equal(walked, want) {
		t.Errorf("walked %v\nwant   %v", walked, want)
	}
	// A fresh walk sees all 10, newest first; a page that ends exactly at
	// the last item says has_more false.
	all := listPayouts(t, e, key, "?limit=10")
	want = slices.Clone(created)
	slices.Reverse(want)
	if !slices.Equal(all.ids(t), want) || all.HasMore || all.NextBeforeID != nil {
		t.Errorf("limit=10: %v has_more=%v, want %v", all.ids(t), all.HasMore, want)
	}
	if d := listPayouts(t, e, key, ""); len(d.Payouts) != 10 || d.HasMore {
		t.Errorf("default page: %d items has_more=%v", len(d.Payouts), d.HasMore)
	}
	if d := listPayouts(t, e, key, "?limit=200"); len(d.Payouts) != 10 {
		t.Errorf("limit=200: %d items", len(d.Payouts))
	}
	// The oldest id as cursor: an empty last page.
	if d := listPayouts(t, e, key, "?before_id="+created[0]); len(d.Payouts) != 0 || d.HasMore || d.NextBeforeID != nil {
		t.Errorf("before the oldest: %+v", d)
	}
	// Status filter.
	if d := listPayouts(t, e, key, "?status=held&limit=4"); len(d.Payouts) != 4 || !d.HasMore {
		t.Errorf("status=held: %d items has_more=%v", len(d.Payouts), d.HasMore)
	}
	if d := listPayouts(t, e, key, "?status=succeeded"); len(d.Payouts) != 0 || d.HasMore {
		t.Errorf("status=succeeded: %d items", len(d.Payouts))
	}
	// Bad parameters.
	_, other := e.newOrg(t, orgSpec{name: "other", fundMWK: 100_000})
	foreign := createBank(t, e, other, "f", "100").ID
	for _, q := range []string{"limit=0", "limit=201", "limit=x", "limit=-1", "limit=1.5", "limit=", "before_id=0190c4d2-7f3a-7b1e-8a2b-000000000000",
		"before_id=nope", "before_id=" + foreign, "status=done", "status=HELD"} {
		r := e.do(t, "GET", "/v1/payouts?"+q, nil, hdr(key))
		if q == "limit=" { // an empty limit is the default
			r.want(t, 200, "")
			continue
		}
		r.want(t, 400, "validation_error")
	}
}

// TestIdempotency_ReplaySurvivesOperatorChanges: a replay returns the
// original outcome even after the operator changed what a new request would
// be checked against. Otherwise a client retrying after a lost response
// reads a rejection ("nothing was created") for a payout that exists.
//
// BUG (reported): CreatePayout checks the MWK payout operation and the
// per-payout maximum before it looks for a stored outcome. Flip this
// constant once they move inside the create transaction.
const replayCheckedBeforeLimitsFixed = true

func TestIdempotency_ReplaySurvivesOperatorChanges(t *testing.T) {
	if !replayCheckedBeforeLimitsFixed {
		t.Skip("known bug: a replay after the operator lowers max_per_payout_mwk or disables MWK payouts answers 422/403 instead of the original 202 (payouts.go CreatePayout)")
	}
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	first := e.do(t, "POST", "/v1/payouts/bank", bankBody("1000"), hdr(key, "Idempotency-Key", "K")).want(t, 202, "")
	replay := func(step string) {
		t.Helper()
		r := e.do(t, "POST", "/v1/payouts/bank", bankBody("1000"), hdr(key, "Idempotency-Key", "K"))
		if r.Status != 202 || !bytes.Equal(r.Body, first.Body) {
			t.Errorf("after %s the replay answered %d %s, want the original 202", step, r.Status, r.Body)
		}
	}
	e.admin(t, "PUT", "/admin/rails/bank", map[string]bool{"disabled": true}).want(t, 200, "")
	replay("pausing the bank rail")
	e.admin(t, "PUT", "/admin/rails/bank", map[string]bool{"disabled": false}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/payout-limits", map[string]any{"hourly_count": 1}).want(t, 200, "")
	replay("lowering the hourly count")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/payout-limits", map[string]any{"max_per_payout_mwk": "500.00"}).want(t, 200, "")
	replay("lowering the per-payout maximum")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/assets", map[string]any{"assets": assetsJSON([]tambala.AssetAccess{{Asset: "MWK", Operations: []string{"collection"}}})}).want(t, 200, "")
	replay("disabling MWK payouts")
	assertPayoutCount(t, e, key, 1)
}

// Bodies that a gateway, a log or a client library could read as another
// payment than the engine would make are refused with 400 and create
// nothing: names differing in case, duplicated names, invalid UTF-8,
// unpaired surrogates, control characters (NUL included), trailing data.
func TestPayouts_AmbiguousBodiesRefused(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	const rest = `"institution_id":101,"mobile_number":"111100000112"`
	for name, body := range map[string]string{
		"case variant":           `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A","AMOUNT_MWK":"3.00"}`,
		"case variant only":      `{"AMOUNT_MWK":"3.00",` + rest + `,"beneficiary_name":"A"}`,
		"duplicate amount":       `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A","amount_mwk":"2.00"}`,
		"duplicate name":         `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A","beneficiary_name":"B"}`,
		"invalid UTF-8":          "{\"amount_mwk\":\"1.00\"," + rest + ",\"beneficiary_name\":\"A\xff\xfe\"}",
		"unpaired surrogate":     `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A\ud800"}`,
		"NUL escape":             `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A\u0000B"}`,
		"newline escape in name": `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A\nB"}`,
		"DEL":                    `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A` + "\x7f" + `"}`,
		"trailing data":          `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A"} {}`,
		"duplicate nested":       `{"amount_mwk":"1.00",` + rest + `,"beneficiary_name":"A","x":{"y":1,"y":2}}`,
	} {
		t.Run(name, func(t *testing.T) {
			e.do(t, "POST", "/v1/payouts/momo", body, hdr(key, "Idempotency-Key", name)).want(t, 400, "validation_error")
		})
	}
	assertPayoutCount(t, e, key, 0)
	if _, held := balance(t, e, key); held != "0.00" {
		t.Errorf("held %s after refused bodies", held)
	}
	// The clean body is accepted, and unknown fields are still ignored.
	e.do(t, "POST", "/v1/payouts/momo", `{"amount_mwk":"1.00",`+rest+`,"beneficiary_name":"A","note":"x"}`,
		hdr(key, "Idempotency-Key", "clean")).want(t, 202, "")
	// Other bodies go through the same decoding.
	e.do(t, "POST", "/v1/fees/quote", `{"direction":"payout","rail":"bank","amount_mwk":"1","amount_mwk":"2"}`, hdr(key)).want(t, 400, "validation_error")
	e.admin(t, "POST", "/admin/orgs", `{"name":"A","Name":"B"}`).want(t, 400, "validation_error")
}
