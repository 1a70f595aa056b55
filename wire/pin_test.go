package wire_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/wire"
)

// The response types are pinned to the binding's real output: each answer
// below is made by the real handlers on an engine, decoded into its wire
// type with unknown fields disallowed (a field the binding writes and the
// type lacks fails), encoded again and compared with the answer as JSON
// values (a field the type has and the binding does not write, or a value
// read differently, fails). The request types are pinned by the same
// calls: the binding decodes every body strictly, so a field it does not
// know is refused.

const token = "adm_test_0123456789abcdefghijklmnopqrstuvwxyz"

type env struct {
	t      *testing.T
	engine *tambala.Engine
	admin  http.Handler
	public http.Handler
	pinned map[string]bool
}

func newEnv(t *testing.T) *env {
	t.Helper()
	eng, err := tambala.New(memstore.New(), &tambala.Options{
		Environment:   tambala.Sandbox,
		People:        tambala.PeopleOptions{PasswordParams: accounts.TestParams},
		DepositIssuer: sandbox.NewIssuer(nil),
		Payouts:       sandbox.New(&sandbox.Options{Delay: time.Hour}), // a payout stays in flight
	})
	if err != nil {
		t.Fatal(err)
	}
	adm, err := httpapi.NewAdmin(eng, token, &httpapi.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, engine: eng, admin: adm, public: httpapi.New(eng, &httpapi.Options{}), pinned: map[string]bool{}}
}

// call sends method path with body (JSON-encoded unless nil or []byte) to
// h and wants status; it returns the answer's body.
func (e *env) call(h http.Handler, auth, method, path string, body any, status int) []byte {
	e.t.Helper()
	var rd *bytes.Reader
	switch b := body.(type) {
	case nil:
		rd = bytes.NewReader(nil)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Authorization", "Bearer "+auth)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method == "POST" && strings.HasPrefix(path, "/v") {
		req.Header.Set("Idempotency-Key", path+string(must(json.Marshal(body))))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != status {
		e.t.Fatalf("%s %s: %d, want %d: %s", method, path, w.Code, status, w.Body.String())
	}
	return w.Body.Bytes()
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// adm calls the admin API.
func (e *env) adm(method, path string, body any, status int) []byte {
	e.t.Helper()
	return e.call(e.admin, token, method, path, body, status)
}

// pin decodes b into a new T strictly, checks that T encodes back to the
// same JSON value, and returns the T.
func pin[T any](e *env, name string, b []byte) T {
	e.t.Helper()
	var v T
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		e.t.Fatalf("%s: %T does not read the binding's answer: %v\n%s", name, v, err, b)
	}
	again, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(b, &want); err != nil {
		e.t.Fatal(err)
	}
	if err := json.Unmarshal(again, &got); err != nil {
		e.t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		e.t.Errorf("%s: %T drifted from the binding's answer:\nbinding: %s\nwire:    %s", name, v, b, again)
	}
	e.pinned[reflect.TypeOf(v).Name()] = true
	return v
}

func TestPinned(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()

	// An organization and its settings.
	all := []string{"payout", "collection", "convert"}
	org := pin[wire.Organization](e, "create org", e.adm("POST", "/admin/orgs", wire.NewOrganization{Name: "Acme",
		Assets: []wire.AssetAccess{{Asset: "MWK", Operations: all}, {Asset: "USDT", Operations: all}}, V2Access: "enabled", BalanceFloorMWK: "100"}, 201))
	base := "/admin/orgs/" + org.ID
	pin[wire.Organization](e, "status", e.adm("PUT", base+"/status", wire.OrgStatus{Status: "active"}, 200))
	pin[wire.Organization](e, "v2 access", e.adm("PUT", base+"/v2-access", wire.OrgV2Access{V2Access: "enabled"}, 200))
	pin[wire.Organization](e, "assets", e.adm("PUT", base+"/assets", wire.OrgAssets{Assets: []wire.AssetAccess{{Asset: "MWK", Operations: all}, {Asset: "USDT", Operations: all}}}, 200))
	pin[wire.Organization](e, "floor", e.adm("PUT", base+"/balance-floor", wire.BalanceFloor{FloorMWK: "50"}, 200))
	pin[wire.Organization](e, "allowlist", e.adm("PUT", base+"/allowlist", wire.Allowlist{Addresses: []string{"203.0.113.7"}}, 200))
	pin[wire.Organization](e, "allowlist none", e.adm("PUT", base+"/allowlist", wire.Allowlist{}, 200))
	pin[wire.Organization](e, "payout limits", e.adm("PUT", base+"/payout-limits", wire.SetPayoutLimits{MaxPerPayoutMWK: "500000", DailyVolumeMWK: "9000000", HourlyCount: 50}, 200))
	pin[wire.Organization](e, "org", e.adm("GET", base, nil, 200))
	pin[wire.Organizations](e, "orgs", e.adm("GET", "/admin/orgs", nil, 200))
	pin[wire.TOTPRequired](e, "totp required", e.adm("PUT", base+"/totp-required", wire.SetTOTPRequired{Required: false}, 200))

	// Keys.
	key := pin[wire.Key](e, "new key", e.adm("POST", base+"/keys", nil, 201))
	pin[wire.Keys](e, "keys", e.adm("GET", base+"/keys", nil, 200))

	// Money in: a funding, a deposit, a trade; balances and a statement.
	pin[wire.Funding](e, "funding", e.adm("POST", base+"/funding", wire.Fund{Asset: "MWK", Amount: "1000000", Ref: "seed"}, 200))
	pin[wire.Funding](e, "funding usdt", e.adm("POST", base+"/funding", wire.Fund{Asset: "USDT", Amount: "1000", Ref: "seed-usdt"}, 200))
	pin[wire.Networks](e, "networks", e.adm("GET", "/admin/networks", nil, 200))
	pin[wire.DepositAddress](e, "rotate", e.adm("POST", base+"/deposit-addresses/tron/rotate", nil, 200))
	pin[wire.Deposit](e, "deposit", e.adm("POST", base+"/deposits", wire.RecordDeposit{Network: "tron", Asset: "USDT", Amount: "25", TxRef: "0xabc"}, 201))
	pin[wire.Trade](e, "trade", e.adm("POST", base+"/trades", wire.RecordTrade{Ref: "t-1", USDTAmount: "10", ClientRate: "1750"}, 201))
	pin[wire.Balances](e, "balances", e.adm("GET", base+"/balances", nil, 200))
	pin[wire.Statement](e, "statement", e.adm("GET", base+"/statement?asset=MWK", nil, 200))

	// Thresholds and approvals.
	pin[wire.Threshold](e, "threshold", e.adm("PUT", "/admin/approval-thresholds/MWK", wire.SetThreshold{Threshold: ptr("1000")}, 200))
	pin[wire.Thresholds](e, "thresholds", e.adm("GET", "/admin/approval-thresholds", nil, 200))
	pending := pin[wire.Funding](e, "funding pending", e.adm("POST", base+"/funding", wire.Fund{Asset: "MWK", Amount: "5000", Ref: "big"}, 202))
	pin[wire.Pending](e, "pending", e.adm("POST", base+"/funding", wire.Fund{Asset: "MWK", Amount: "5000", Ref: "big-2"}, 202))
	pin[wire.Approvals](e, "approvals", e.adm("GET", "/admin/approvals", nil, 200))
	pin[wire.Approval](e, "approval", e.adm("GET", "/admin/approvals/"+pending.Approval.ID, nil, 200))
	pin[wire.Approval](e, "rejected", e.adm("POST", "/admin/approvals/"+pending.Approval.ID+"/reject", wire.Reject{Reason: "not now"}, 200))
	pin[wire.Threshold](e, "threshold none", e.adm("PUT", "/admin/approval-thresholds/MWK", wire.SetThreshold{}, 200))

	// Corridors, limits, the webhook, the switches.
	pin[wire.Corridors](e, "corridor", e.adm("PUT", "/admin/corridors/MWK", wire.CorridorUpdate{RateOffRamp: wire.Text(ptr("1750")),
		RateOnRamp: wire.Text(nil), Min: wire.Text(ptr("1000")), Max: wire.Text(ptr("50000")), Open: ptr(true)}, 200))
	pin[wire.Corridors](e, "corridors", e.adm("GET", "/admin/corridors", nil, 200))
	pin[wire.AssetLimits](e, "limits", e.adm("PUT", "/admin/assets/MWK/limits/payout", wire.SetAssetLimits{Min: ptr("100"), Max: nil}, 200))
	pin[wire.AssetLimits](e, "limits read", e.adm("GET", "/admin/assets/MWK/limits/payout", nil, 200))
	pin[wire.Endpoint](e, "webhook", e.adm("PUT", base+"/webhook", wire.SetWebhook{URL: "https://hooks.example.com/tambala"}, 200))
	pin[wire.Pause](e, "pause", e.adm("PUT", "/admin/pause", wire.SetPause{API: "v1", Mode: "live"}, 200))
	pin[wire.Pause](e, "pause read", e.adm("GET", "/admin/pause", nil, 200))
	pin[wire.Rails](e, "rails", e.adm("PUT", "/admin/rails/bank", wire.SetRail{Disabled: false}, 200))

	// A /v1 payout in flight, resolved by hand; a /v1 collection reversed;
	// the webhook deliveries they made.
	p := e.call(e.public, key.Key, "POST", "/v1/payouts/momo", []byte(`{"amount_mwk":"1000","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Chisomo Banda"}`), 202)
	var payout struct{ ID string }
	_ = json.Unmarshal(p, &payout)
	if _, err := e.engine.Work().ProcessPayouts(ctx); err != nil {
		t.Fatal(err)
	}
	pin[wire.InFlights](e, "in flight", e.adm("GET", "/admin/payouts/in-flight", nil, 200))
	pin[wire.Resolved](e, "resolved", e.adm("POST", "/admin/payouts/"+payout.ID+"/resolve", wire.Resolve{Outcome: "failed", Reason: "the bank said so", FailureCode: ptr("declined")}, 200))
	p = e.call(e.public, key.Key, "POST", "/v1/payouts/momo", []byte(`{"amount_mwk":"2000","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Chisomo Banda"}`), 202)
	var paid struct{ ID string }
	_ = json.Unmarshal(p, &paid)
	if _, err := e.engine.Work().ProcessPayouts(ctx); err != nil {
		t.Fatal(err)
	}
	pin[wire.Resolved](e, "resolved paid", e.adm("POST", "/admin/payouts/"+paid.ID+"/resolve", wire.Resolve{Outcome: "succeeded", Reason: "on the statement",
		Fee: ptr("10.00"), Reference: ptr("BANK-1")}, 200))
	pin[wire.Clawback](e, "clawback", e.adm("POST", "/admin/payouts/"+paid.ID+"/clawback", nil, 200))
	c := e.call(e.public, key.Key, "POST", "/v1/collections/simulate", []byte(`{"amount_mwk":"2500.00"}`), 201)
	var col struct{ ID string }
	_ = json.Unmarshal(c, &col)
	pin[wire.CollectionV1](e, "reversed", e.adm("POST", base+"/collections/"+col.ID+"/reverse", nil, 200))
	pin[wire.Deliveries](e, "deliveries", e.adm("GET", base+"/deliveries", nil, 200))

	// People: an invitation accepted, the users, the staff.
	inv := pin[wire.NewInvitation](e, "invite", e.adm("POST", base+"/invitations", wire.Invite{Email: "ada@example.com", Role: "org_admin"}, 201))
	pin[wire.Invitations](e, "invitations", e.adm("GET", base+"/invitations", nil, 200))
	u, err := e.engine.Sessions().AcceptInvitation(ctx, inv.Token, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	pin[wire.Users](e, "users", e.adm("GET", base+"/users", nil, 200))
	pin[wire.User](e, "user", e.adm("GET", "/admin/users/"+u.ID, nil, 200))
	pin[wire.SessionsEnded](e, "sessions", e.adm("POST", "/admin/users/"+u.ID+"/sessions/end", nil, 200))
	staff := pin[wire.NewInvitation](e, "invite staff", e.adm("POST", "/admin/staff/invitations", wire.InviteStaff{Email: "desk@example.com", Roles: []string{"desk"}}, 201))
	pin[wire.Invitations](e, "staff invitations", e.adm("GET", "/admin/staff/invitations", nil, 200))
	s, err := e.engine.StaffSessions().AcceptInvitation(ctx, staff.Token, "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	pin[wire.User](e, "staff roles", e.adm("PUT", "/admin/users/"+s.ID+"/staff-roles", wire.StaffRoles{Roles: []string{"desk", "support"}}, 200))
	pin[wire.Users](e, "staff", e.adm("GET", "/admin/staff/users", nil, 200))
	pin[wire.AuditPage](e, "audit", e.adm("GET", "/admin/audit", nil, 200))

	// Settlements.
	pin[wire.SettlementColumns](e, "mapping", e.adm("GET", "/admin/settlements/mappings/bank", nil, 200))
	pin[wire.SettlementColumns](e, "mapping set", e.adm("PUT", "/admin/settlements/mappings/bank", wire.SettlementColumns{Columns: map[string]string{
		"reference": "Ref", "amount": "Net", "currency": "Ccy", "status": "Type", "time": "Booked", "file_number": "Batch"}}, 200))
	file := "reference,amount,currency,status,time,file_number\n" + payout.ID + ",1000,MWK,settled,2026-03-02T12:00:00Z,4\n"
	imp := pin[wire.SettlementImport](e, "import", e.adm("POST", "/admin/settlements", wire.ImportSettlement{Rail: "momo", Name: "airtel-4.csv",
		ContentBase64: b64(file)}, 201))
	pin[wire.SettlementReport](e, "report", e.adm("GET", "/admin/settlements/"+imp.ID, nil, 200))

	// The desk's queue: a to-bank /v2 order.
	pin[wire.DeskOrders](e, "desk orders none", e.adm("GET", "/admin/orders", nil, 200))
	q := e.call(e.public, key.Key, "POST", "/v2/orders/quotes", []byte(`{"from_asset":"USDT","to_asset":"MWK","from_amount":"10"}`), 201)
	var quote struct {
		QuoteID string `json:"quote_id"`
	}
	_ = json.Unmarshal(q, &quote)
	e.call(e.public, key.Key, "POST", "/v2/orders", []byte(`{"quote_id":"`+quote.QuoteID+`","client_ref":"c-1",`+
		`"beneficiary":{"name":"Chisomo Banda","bank_name":"National Bank of Malawi","account_number":"100200300"}}`), 201)
	list := pin[wire.DeskOrders](e, "desk orders", e.adm("GET", "/admin/orders", nil, 200))
	if len(list.Orders) != 1 {
		t.Fatalf("the queue: %+v", list)
	}
	pin[wire.DeskOrder](e, "desk order", e.adm("GET", "/admin/orders/"+list.Orders[0].Order.ID, nil, 200))
	pin[wire.DeskMove](e, "desk move", e.adm("POST", "/admin/orders/"+list.Orders[0].Order.ID+"/processing", nil, 200))

	for _, name := range []string{"Organization", "Organizations", "TOTPRequired", "Key", "Keys", "Funding", "Pending", "Networks",
		"DepositAddress", "Deposit", "Trade", "Balances", "Statement", "Threshold", "Thresholds", "Approvals", "Approval",
		"Corridors", "AssetLimits", "Endpoint", "Pause", "Rails", "InFlights", "Resolved", "Clawback", "CollectionV1", "Deliveries",
		"NewInvitation", "Invitations", "Users", "User", "SessionsEnded", "SettlementColumns", "SettlementImport",
		"SettlementReport", "DeskOrders", "DeskOrder", "DeskMove"} {
		if !e.pinned[name] {
			t.Errorf("wire.%s is not pinned", name)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
