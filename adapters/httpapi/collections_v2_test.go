package httpapi_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/networks"
)

// The HTTP tests of GET /v2/deposit-addresses, the /v2 collections
// (reads and simulate) and POST /admin/orgs/{org}/deposits: every error
// code of these routes, each response checked against the OpenAPI
// documents.

type collectionV2JSON struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	Asset          string  `json:"asset"`
	Amount         string  `json:"amount"`
	Fee            string  `json:"fee"`
	AmountCredited string  `json:"amount_credited"`
	Network        *string `json:"network"`
	Source         string  `json:"source"`
	OrderID        *string `json:"order_id"`
	CreatedAt      string  `json:"created_at"`
}

func withIssuer(iss tambala.DepositAddressIssuer) func(*tambala.Options) {
	return func(o *tambala.Options) { o.DepositIssuer = iss }
}

func TestDepositAddresses_HTTP(t *testing.T) {
	iss := sandbox.NewIssuer(nil)
	e := newDeskEnv(t, withIssuer(iss))
	org, key := e.deskOrg(t, "deposits")

	var got struct {
		DepositAddresses []struct {
			Network string   `json:"network"`
			Address string   `json:"address"`
			Assets  []string `json:"assets"`
		} `json:"deposit_addresses"`
	}
	e.do(t, "GET", "/v2/deposit-addresses", nil, hdr(key)).want(t, 200, "").decode(t, &got)
	if len(got.DepositAddresses) != 2 {
		t.Fatalf("want 2 entries, got %+v", got)
	}
	table := networks.Default()
	for _, a := range got.DepositAddresses {
		if err := table[a.Network].CheckAddress("USDT", a.Address); err != nil {
			t.Errorf("%s: %v", a.Network, err)
		}
	}
	// Stable even when the issuer is down.
	iss.Fail("tron", errors.New("down"))
	again := e.do(t, "GET", "/v2/deposit-addresses", nil, hdr(key)).want(t, 200, "")
	first, _ := json.Marshal(got)
	g2 := got
	again.decode(t, &g2)
	second, _ := json.Marshal(g2)
	if string(first) != string(second) {
		t.Errorf("addresses changed: %s then %s", first, second)
	}
	// A new organization while the issuer is down: 503, no partial list.
	_, key2 := e.deskOrg(t, "deposits 2")
	e.do(t, "GET", "/v2/deposit-addresses", nil, hdr(key2)).want(t, 503, "service_unavailable")
	iss.Fail("tron", nil)
	e.do(t, "GET", "/v2/deposit-addresses", nil, hdr(key2)).want(t, 200, "")

	// The operator rotates an address.
	var rot struct {
		Network, Address string
		Assets           []string
	}
	e.admin(t, "POST", "/admin/orgs/"+org.ID+"/deposit-addresses/tron/rotate", nil).want(t, 200, "").decode(t, &rot)
	if rot.Network != "tron" || rot.Address == got.DepositAddresses[1].Address || len(rot.Assets) != 1 {
		t.Errorf("rotated: %+v", rot)
	}
	var after struct {
		DepositAddresses []struct{ Network, Address string } `json:"deposit_addresses"`
	}
	e.do(t, "GET", "/v2/deposit-addresses", nil, hdr(key)).want(t, 200, "").decode(t, &after)
	if len(after.DepositAddresses) != 2 || after.DepositAddresses[1].Address != rot.Address || after.DepositAddresses[0].Address != got.DepositAddresses[0].Address {
		t.Errorf("after rotation: %+v", after)
	}
	e.admin(t, "POST", "/admin/orgs/"+org.ID+"/deposit-addresses/solana/rotate", nil).want(t, 422, "unsupported_network")
	e.admin(t, "POST", "/admin/orgs/0190c4d2-7f3a-7b1e-8a2b-000000000000/deposit-addresses/tron/rotate", nil).want(t, 404, "not_found")
	iss.Fail("ethereum", errors.New("down"))
	e.admin(t, "POST", "/admin/orgs/"+org.ID+"/deposit-addresses/ethereum/rotate", nil).want(t, 503, "service_unavailable")
	iss.Fail("ethereum", nil)

	// No issuer configured: 503 service_unavailable.
	bare := newDeskEnv(t)
	_, k := bare.deskOrg(t, "no issuer")
	bare.do(t, "GET", "/v2/deposit-addresses", nil, hdr(k)).want(t, 503, "service_unavailable")
	bare.do(t, "GET", "/v2/deposit-addresses", nil, nil).want(t, 401, "unauthorized")
}

func TestCollectionsV2_HTTP(t *testing.T) {
	e := newDeskEnv(t)
	org, key := e.deskOrg(t, "collections")

	// Simulate.
	var c collectionV2JSON
	e.do(t, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"12.5","network":"tron"}`, hdr(key)).want(t, 201, "").decode(t, &c)
	if c.Source != "simulated" || c.Amount != "12.500000" || c.Fee != "0.000000" || c.AmountCredited != "12.500000" || c.Network == nil || *c.Network != "tron" || c.OrderID != nil {
		t.Errorf("simulated collection: %+v", c)
	}
	var m collectionV2JSON
	e.do(t, "POST", "/v2/collections/simulate", `{"asset":"MWK","amount":"10000"}`, hdr(key)).want(t, 201, "").decode(t, &m)
	if m.Amount != "10000.00" || m.Fee == "0.00" || m.Network != nil {
		t.Errorf("MWK collection: %+v", m)
	}
	for _, tc := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"asset":"USDT","amount":12.5}`, 400, "validation_error"},
		{`{"asset":"USDT"}`, 400, "validation_error"},
		{`{"amount":"1"}`, 400, "validation_error"},
		{`{"asset":"USDT","amount":"1.0000001"}`, 400, "validation_error"},
		{`{"asset":"USDT","amount":"0"}`, 400, "validation_error"},
		{`{"asset":"USDT","amount":"-1"}`, 400, "validation_error"},
		{`{"asset":"MWK","amount":"100","network":"tron"}`, 400, "validation_error"},
		{`{"asset":1,"amount":"1"}`, 400, "validation_error"},
		{`not json`, 400, "validation_error"},
		{`{"asset":"EUR","amount":"1"}`, 403, "corridor_not_enabled"},
		{`{"asset":"usdt","amount":"1"}`, 422, "unsupported_asset"},
		{`{"asset":"USDT","amount":"1","network":"solana"}`, 422, "unsupported_network"},
		{`{"asset":"USDT","amount":"1","network":"TRON"}`, 422, "unsupported_network"},
	} {
		r := e.do(t, "POST", "/v2/collections/simulate", tc.body, hdr(key))
		if r.Status != tc.status || r.code() != tc.code {
			t.Errorf("%s: got %d %s, want %d %s", tc.body, r.Status, r.Body, tc.status, tc.code)
		}
	}
	_, noColl := e.newOrg(t, orgSpec{name: "no collection", v2: tambala.V2Enabled, assets: []tambala.AssetAccess{{Asset: "USDT", Operations: []string{tambala.OpPayout}}}})
	e.do(t, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"1"}`, hdr(noColl)).want(t, 403, "corridor_not_enabled")
	big := `{"asset":"USDT","amount":"1","pad":"` + strings.Repeat("x", 2<<20) + `"}`
	e.do(t, "POST", "/v2/collections/simulate", big, hdr(key)).want(t, 413, "payload_too_large")

	// A deposit through the admin API.
	dep := map[string]string{"network": "ethereum", "asset": "USDT", "amount": "7", "tx_ref": "0xfeed"}
	var d collectionV2JSON
	e.admin(t, "POST", "/admin/orgs/"+org.ID+"/deposits", dep).want(t, 201, "").decode(t, &d)
	if d.Source != "deposit" || d.Amount != "7.000000" || d.Network == nil || *d.Network != "ethereum" {
		t.Errorf("deposit: %+v", d)
	}
	var d2 collectionV2JSON
	e.admin(t, "POST", "/admin/orgs/"+org.ID+"/deposits", dep).want(t, 201, "").decode(t, &d2)
	if !reflect.DeepEqual(d2, d) {
		t.Errorf("a replayed deposit is the same collection: %+v then %+v", d, d2)
	}
	dep["amount"] = "8"
	e.admin(t, "POST", "/admin/orgs/"+org.ID+"/deposits", dep).want(t, 409, "conflict")
	for _, tc := range []struct {
		org    string
		body   string
		status int
		code   string
	}{
		{org.ID, `{"network":"solana","asset":"USDT","amount":"1","tx_ref":"a"}`, 422, "unsupported_network"},
		{org.ID, `{"network":"tron","asset":"MWK","amount":"1","tx_ref":"a"}`, 422, "unsupported_network"},
		{org.ID, `{"network":"tron","asset":"EUR","amount":"1","tx_ref":"a"}`, 422, "unsupported_asset"},
		{org.ID, `{"network":"tron","asset":"USDT","amount":1,"tx_ref":"a"}`, 400, "validation_error"},
		{org.ID, `{"network":"tron","asset":"USDT","amount":"1.0000001","tx_ref":"a"}`, 400, "validation_error"},
		{org.ID, `{"network":"tron","asset":"USDT","amount":"1"}`, 400, "validation_error"},
		{"0190c4d2-7f3a-7b1e-8a2b-000000000000", `{"network":"tron","asset":"USDT","amount":"1","tx_ref":"a"}`, 404, "not_found"},
	} {
		r := e.admin(t, "POST", "/admin/orgs/"+tc.org+"/deposits", tc.body)
		if r.Status != tc.status || r.code() != tc.code {
			t.Errorf("%s: got %d %s, want %d %s", tc.body, r.Status, r.Body, tc.status, tc.code)
		}
	}
	noCollOrg, _ := e.newOrg(t, orgSpec{name: "no collection 2", v2: tambala.V2Enabled, assets: []tambala.AssetAccess{{Asset: "USDT", Operations: []string{tambala.OpPayout}}}})
	e.admin(t, "POST", "/admin/orgs/"+noCollOrg.ID+"/deposits", `{"network":"tron","asset":"USDT","amount":"1","tx_ref":"b"}`).want(t, 403, "corridor_not_enabled")
	e.adminWith(t, "POST", "/admin/orgs/"+org.ID+"/deposits", `{}`, nil).want(t, 401, "unauthorized")

	// Reads.
	var list struct {
		Collections  []collectionV2JSON `json:"collections"`
		HasMore      bool               `json:"has_more"`
		NextBeforeID *string            `json:"next_before_id"`
	}
	e.do(t, "GET", "/v2/collections", nil, hdr(key)).want(t, 200, "").decode(t, &list)
	if len(list.Collections) != 3 || !reflect.DeepEqual(list.Collections, []collectionV2JSON{d, m, c}) || list.HasMore {
		t.Errorf("list: %+v", list)
	}
	e.do(t, "GET", "/v2/collections?limit=1&asset=USDT", nil, hdr(key)).want(t, 200, "").decode(t, &list)
	if len(list.Collections) != 1 || !reflect.DeepEqual(list.Collections[0], d) || !list.HasMore || list.NextBeforeID == nil {
		t.Fatalf("page 1: %+v", list)
	}
	e.do(t, "GET", "/v2/collections?limit=1&asset=USDT&before_id="+*list.NextBeforeID, nil, hdr(key)).want(t, 200, "").decode(t, &list)
	if len(list.Collections) != 1 || !reflect.DeepEqual(list.Collections[0], c) {
		t.Errorf("page 2: %+v", list)
	}
	e.do(t, "GET", "/v2/collections?asset=", nil, hdr(key)).want(t, 400, "validation_error")
	e.do(t, "GET", "/v2/collections?limit=0", nil, hdr(key)).want(t, 400, "validation_error")
	e.do(t, "GET", "/v2/collections?before_id=nope", nil, hdr(key)).want(t, 400, "validation_error")
	e.do(t, "GET", "/v2/collections?asset=EUR", nil, hdr(key)).want(t, 403, "corridor_not_enabled")
	e.do(t, "GET", "/v2/collections?asset=usdt", nil, hdr(key)).want(t, 422, "unsupported_asset")

	var one collectionV2JSON
	r := e.do(t, "GET", "/v2/collections/"+d.ID, nil, hdr(key)).want(t, 200, "")
	r.decode(t, &one)
	if !reflect.DeepEqual(one, d) {
		t.Errorf("read: %+v, want %+v", one, d)
	}
	_, other := e.deskOrg(t, "other")
	e.do(t, "GET", "/v2/collections/"+d.ID, nil, hdr(other)).want(t, 404, "not_found")
	e.do(t, "GET", "/v2/collections/0190c4d2-7f3a-7b1e-8a2b-000000000000", nil, hdr(key)).want(t, 404, "not_found")
	e.do(t, "GET", "/v2/collections/nope", nil, hdr(key)).want(t, 404, "not_found")
}

func TestCollectionsV2_SandboxOnly(t *testing.T) {
	e := newDeskEnv(t, func(o *tambala.Options) { o.Environment = tambala.Production })
	_, key := e.deskOrg(t, "prod")
	e.do(t, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"1"}`, hdr(key)).want(t, 403, "sandbox_only")
	e.do(t, "POST", "/v2/collections/simulate", `not json`, hdr(key)).want(t, 403, "sandbox_only")
}

func TestCollectionsV2_PauseAndAccess(t *testing.T) {
	e := newDeskEnv(t, withIssuer(sandbox.NewIssuer(nil)))
	org, key := e.deskOrg(t, "")
	routes := []struct{ method, path, body string }{
		{"GET", "/v2/deposit-addresses", ""},
		{"GET", "/v2/collections", ""},
		{"GET", "/v2/collections/0190c4d2-7f3a-7b1e-8a2b-000000000000", ""},
		{"POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"1"}`},
	}
	send := func(k string, method, path, body string) *resp {
		var b any
		if body != "" {
			b = body
		}
		return e.do(t, method, path, b, hdr(k))
	}
	for _, mode := range []string{"maintenance", "incident"} {
		setPause(t, e, "v2", mode)
		for _, r := range routes {
			send(key, r.method, r.path, r.body).want(t, 503, "service_"+mode)
			send("", r.method, r.path, r.body).want(t, 401, "unauthorized")
		}
	}
	setPause(t, e, "v2", "live")
	for _, access := range []string{"onboarding_incomplete", "access_suspended"} {
		e.admin(t, "PUT", "/admin/orgs/"+org.ID+"/v2-access", map[string]string{"v2_access": access}).want(t, 200, "")
		for _, r := range routes {
			send(key, r.method, r.path, r.body).want(t, 403, access)
		}
	}
}
