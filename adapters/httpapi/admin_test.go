package httpapi_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
)

// adminRoutes lists every admin route with a body that the route accepts.
func adminRoutes(org string) []struct {
	method, path string
	body         any
	status       int
} {
	return []struct {
		method, path string
		body         any
		status       int
	}{
		{"GET", "/admin/orgs", nil, 200},
		{"POST", "/admin/orgs", map[string]any{"name": "Made by admin"}, 201},
		{"GET", "/admin/orgs/" + org, nil, 200},
		{"PUT", "/admin/orgs/" + org + "/status", map[string]any{"status": "active"}, 200},
		{"PUT", "/admin/orgs/" + org + "/v2-access", map[string]any{"v2_access": "enabled"}, 200},
		{"PUT", "/admin/orgs/" + org + "/assets", map[string]any{"assets": assetsJSON(allAssets)}, 200},
		{"PUT", "/admin/orgs/" + org + "/balance-floor", map[string]any{"floor_mwk": "5000.00"}, 200},
		{"PUT", "/admin/orgs/" + org + "/allowlist", map[string]any{"addresses": []string{}}, 200},
		{"GET", "/admin/orgs/" + org + "/keys", nil, 200},
		{"POST", "/admin/orgs/" + org + "/keys", nil, 201},
		{"DELETE", "/admin/orgs/" + org + "/keys/tmb_live_unknown", nil, 404},
		{"POST", "/admin/orgs/" + org + "/funding", map[string]any{"asset": "MWK", "amount": "10.00", "ref": "r"}, 200},
		{"PUT", "/admin/orgs/" + org + "/payout-limits", map[string]any{"hourly_count": 10}, 200},
		{"PUT", "/admin/rails/momo", map[string]any{"disabled": false}, 200},
		{"PUT", "/admin/institutions", map[string]any{"institutions": []map[string]any{{"institution_id": 1, "name": "B", "rail": "bank"}}}, 200},
		{"POST", "/admin/orgs/" + org + "/invitations", map[string]any{"email": "admin@example.com"}, 201},
		{"GET", "/admin/orgs/" + org + "/invitations", nil, 200},
		{"DELETE", "/admin/orgs/" + org + "/invitations/0190c4d2-7f3a-7b1e-8a2b-000000000000", nil, 404},
		{"GET", "/admin/orgs/" + org + "/users", nil, 200},
		{"PUT", "/admin/orgs/" + org + "/totp-required", map[string]any{"required": false}, 200},
		{"GET", "/admin/orgs/" + org + "/audit", nil, 200},
		{"GET", "/admin/audit", nil, 200},
		{"GET", "/admin/users/0190c4d2-7f3a-7b1e-8a2b-000000000000", nil, 404},
		{"POST", "/admin/users/0190c4d2-7f3a-7b1e-8a2b-000000000000/disable", nil, 404},
		{"GET", "/admin/pause", nil, 200},
		{"PUT", "/admin/pause", map[string]any{"api": "v1", "mode": "live"}, 200},
	}
}

func TestAdmin_EveryRouteNeedsTheToken(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	bad := map[string]map[string]string{
		"none":        nil,
		"empty":       {"Authorization": "Bearer "},
		"wrong":       {"Authorization": "Bearer adm_wrong_0123456789abcdefghijklmnopqrstuvwxyz"},
		"prefix":      {"Authorization": "Bearer " + adminToken[:len(adminToken)-1]},
		"extended":    {"Authorization": "Bearer " + adminToken + "x"},
		"basic":       {"Authorization": "Basic " + adminToken},
		"no scheme":   {"Authorization": adminToken},
		"api key":     nil, // filled below
		"other token": {"X-Admin-Token": adminToken},
	}
	_, key := e.newOrg(t, orgSpec{name: "key holder"})
	bad["api key"] = map[string]string{"Authorization": "Bearer " + key}
	for _, r := range adminRoutes(o.ID) {
		for _, name := range sortedKeys(bad) {
			got := e.adminWith(t, r.method, r.path, r.body, bad[name])
			if got.Status != 401 || got.code() != "unauthorized" {
				t.Errorf("%s %s with %s auth: %d %s, want 401 unauthorized", r.method, r.path, name, got.Status, got.Body)
			}
		}
	}
	// Nothing changed through the refused calls.
	orgs := e.admin(t, "GET", "/admin/orgs", nil).want(t, 200, "").obj(t)["organizations"].([]any)
	if len(orgs) != 2 {
		t.Errorf("%d organizations after refused calls, want 2", len(orgs))
	}
	// With the token every route answers as designed; each route that
	// reads a body refuses malformed JSON.
	for _, r := range adminRoutes(o.ID) {
		if r.body != nil {
			e.admin(t, r.method, r.path, `{"x":`).want(t, 400, "validation_error")
			e.admin(t, r.method, r.path, `[1]`).want(t, 400, "validation_error")
		}
		e.admin(t, r.method, r.path, r.body).want(t, r.status, "")
	}
}

func TestAdmin_OrganizationLifecycle(t *testing.T) {
	e := newEnv(t)
	created := e.admin(t, "POST", "/admin/orgs", map[string]any{
		"name": "  Kwacha Traders  ", "v2_access": "enabled", "balance_floor_mwk": "1000",
		"assets": []map[string]any{{"asset": "USDT", "operations": []string{"convert", "payout", "convert"}}, {"asset": "MWK", "operations": []string{"payout"}}},
	}).want(t, 201, "").obj(t)
	id := created["id"].(string)
	if created["name"] != "Kwacha Traders" || created["status"] != "active" || created["v2_access"] != "enabled" || created["balance_floor_mwk"] != "1000.00" {
		t.Errorf("created = %v", created)
	}
	assets := created["assets"].([]any)
	if fmt.Sprint(assets) != "[map[asset:MWK operations:[payout]] map[asset:USDT operations:[convert payout]]]" {
		t.Errorf("assets not sorted and deduplicated: %v", assets)
	}
	// Defaults.
	d := e.admin(t, "POST", "/admin/orgs", map[string]any{"name": "Defaults"}).want(t, 201, "").obj(t)
	if d["v2_access"] != "onboarding_incomplete" || fmt.Sprint(d["assets"]) != "[map[asset:MWK operations:[collection payout]]]" || fmt.Sprint(d["ip_allowlist"]) != "[]" {
		t.Errorf("defaults = %v", d)
	}
	// Validation.
	for _, b := range []map[string]any{
		{"name": ""}, {"name": "   "}, {"name": strings.Repeat("n", 201)},
		{"name": "x", "v2_access": "yes"},
		{"name": "x", "assets": []map[string]any{{"asset": "MWK", "operations": []string{"mint"}}}},
		{"name": "x", "assets": []map[string]any{{"asset": "MWK"}, {"asset": "MWK"}}},
		{"name": "x", "balance_floor_mwk": "-1"},
		{"name": "x", "balance_floor_mwk": "1.001"},
		{"name": 5},
	} {
		e.admin(t, "POST", "/admin/orgs", b).want(t, 400, "validation_error")
	}
	e.admin(t, "POST", "/admin/orgs", map[string]any{"name": "x", "assets": []map[string]any{{"asset": "EUR"}}}).want(t, 422, "unsupported_asset")

	// Reads.
	got := e.admin(t, "GET", "/admin/orgs/"+id, nil).want(t, 200, "").obj(t)
	if got["name"] != "Kwacha Traders" {
		t.Errorf("GET org = %v", got)
	}
	e.admin(t, "GET", "/admin/orgs/nope", nil).want(t, 404, "not_found")
	list := e.admin(t, "GET", "/admin/orgs", nil).want(t, 200, "").obj(t)["organizations"].([]any)
	if len(list) != 2 {
		t.Errorf("%d organizations, want 2", len(list))
	}

	// Floor.
	f := e.admin(t, "PUT", "/admin/orgs/"+id+"/balance-floor", map[string]any{"floor_mwk": "2500.5"}).want(t, 200, "").obj(t)
	if f["balance_floor_mwk"] != "2500.50" {
		t.Errorf("floor = %v", f["balance_floor_mwk"])
	}
	f = e.admin(t, "PUT", "/admin/orgs/"+id+"/balance-floor", map[string]any{"floor_mwk": ""}).want(t, 200, "").obj(t)
	if _, ok := f["balance_floor_mwk"]; ok {
		t.Errorf("floor not removed: %v", f["balance_floor_mwk"])
	}
	e.admin(t, "PUT", "/admin/orgs/"+id+"/balance-floor", map[string]any{"floor_mwk": "abc"}).want(t, 400, "validation_error")

	// Mutations of an unknown organization.
	for _, r := range adminRoutes("no-such-org") {
		if strings.Contains(r.path, "no-such-org") {
			e.admin(t, r.method, r.path, r.body).want(t, 404, "not_found")
		}
	}

	// Keys, funding and the public API together.
	k := e.admin(t, "POST", "/admin/orgs/"+id+"/keys", nil).want(t, 201, "").obj(t)["key"].(string)
	e.admin(t, "POST", "/admin/orgs/"+id+"/funding", map[string]any{"asset": "MWK", "amount": "1500.25", "ref": "wire-1"}).want(t, 200, "")
	// The same ref and amount credits once; another amount under it is conflict.
	e.admin(t, "POST", "/admin/orgs/"+id+"/funding", map[string]any{"asset": "MWK", "amount": "1500.25", "ref": "wire-1"}).want(t, 200, "")
	e.admin(t, "POST", "/admin/orgs/"+id+"/funding", map[string]any{"asset": "MWK", "amount": "99", "ref": "wire-1"}).want(t, 409, "conflict")
	if av, _ := balance(t, e, k); av != "1500.25" {
		t.Errorf("available %s after funding, want 1500.25", av)
	}
	for _, b := range []map[string]any{
		{"asset": "MWK", "amount": "0", "ref": "z"}, {"asset": "MWK", "amount": "-1", "ref": "z"},
		{"asset": "MWK", "amount": "1.001", "ref": "z"}, {"asset": "MWK", "amount": "1e3", "ref": "z"},
		{"asset": "MWK", "amount": "10", "ref": ""}, {"asset": "MWK", "amount": 10, "ref": "z"},
	} {
		e.admin(t, "POST", "/admin/orgs/"+id+"/funding", b).want(t, 400, "validation_error")
	}
	e.admin(t, "POST", "/admin/orgs/"+id+"/funding", map[string]any{"asset": "EUR", "amount": "1", "ref": "z"}).want(t, 422, "unsupported_asset")
	// Disable USDT, then funding it is refused.
	e.admin(t, "PUT", "/admin/orgs/"+id+"/assets", map[string]any{"assets": []map[string]any{{"asset": "MWK", "operations": []string{"payout"}}}}).want(t, 200, "")
	e.admin(t, "POST", "/admin/orgs/"+id+"/funding", map[string]any{"asset": "USDT", "amount": "1", "ref": "z"}).want(t, 403, "corridor_not_enabled")
	e.admin(t, "PUT", "/admin/orgs/"+id+"/payout-limits", map[string]any{"max_per_payout_mwk": "abc"}).want(t, 400, "validation_error")
}

// TestAdmin_KeyShownOnce: the create response is the only place the full
// key appears; listings carry the 16-character prefix and never the key or
// its hash.
func TestAdmin_KeyShownOnce(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	cr := e.admin(t, "POST", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 201, "")
	m := cr.obj(t)
	full := m["key"].(string)
	if !strings.HasPrefix(full, "tmb_live_") || len(full) != 52 || m["prefix"] != full[:16] || m["environment"] != "sandbox" || m["revoked_at"] != nil {
		t.Errorf("create key = %v", m)
	}
	sum := sha256.Sum256([]byte(full))
	secrets := []string{full, full[16:], hex.EncodeToString(sum[:]), strings.ToUpper(hex.EncodeToString(sum[:]))}
	for _, read := range []*resp{
		e.admin(t, "GET", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 200, ""),
		e.admin(t, "GET", "/admin/orgs/"+o.ID, nil).want(t, 200, ""),
		e.admin(t, "GET", "/admin/orgs", nil).want(t, 200, ""),
		e.admin(t, "DELETE", "/admin/orgs/"+o.ID+"/keys/"+full[:16], nil).want(t, 200, ""),
		e.admin(t, "GET", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 200, ""),
	} {
		for _, s := range secrets {
			if strings.Contains(string(read.Body), s) {
				t.Errorf("a read after creation shows the key or its hash: %s", read.Body)
			}
		}
	}
	keys := e.admin(t, "GET", "/admin/orgs/"+o.ID+"/keys", nil).obj(t)["keys"].([]any)
	for _, k := range keys {
		km := k.(map[string]any)
		if len(km["prefix"].(string)) != 16 {
			t.Errorf("prefix %q is not 16 characters", km["prefix"])
		}
		for f := range km {
			switch f {
			case "id", "org_id", "prefix", "environment", "created_at", "revoked_at":
			default:
				t.Errorf("key listing has field %q", f)
			}
		}
	}
	// The revoked key is marked so.
	last := keys[len(keys)-1].(map[string]any)
	if last["prefix"] != full[:16] || last["revoked_at"] == nil {
		t.Errorf("revoked key listed as %v", last)
	}
}

// TestLogs_NeverContainKeysOrAdminToken runs a whole session with a logger
// that records everything, then searches every entry.
func TestLogs_NeverContainKeysOrAdminToken(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	log := zap.New(core)
	e := newEnv(t, withLogger(log), withLimits(tambala.Limits{RatePerSecond: 1, RateBurst: 20}))

	org := e.admin(t, "POST", "/admin/orgs", map[string]any{"name": "Logged", "v2_access": "enabled", "assets": assetsJSON(allAssets)}).want(t, 201, "").obj(t)["id"].(string)
	key := e.admin(t, "POST", "/admin/orgs/"+org+"/keys", nil).want(t, 201, "").obj(t)["key"].(string)
	e.admin(t, "POST", "/admin/orgs/"+org+"/funding", map[string]any{"asset": "MWK", "amount": "100000", "ref": "f"}).want(t, 200, "")
	e.adminWith(t, "GET", "/admin/orgs", nil, map[string]string{"Authorization": "Bearer " + adminToken + "x"}).want(t, 401, "")
	e.do(t, "GET", "/v1/ping?key="+key, nil, hdr(key)).want(t, 200, "")
	e.do(t, "GET", "/v2/balances", nil, hdr(key)).want(t, 200, "")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", key)).want(t, 202, "")
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", key)).want(t, 202, "")
	e.do(t, "POST", "/v1/payouts/bank", `{"amount_mwk":"`+key+`"}`, hdr(key, "Idempotency-Key", "k2")).want(t, 400, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key+"x")).want(t, 401, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(adminToken)).want(t, 401, "")
	e.do(t, "GET", "/v1/nope", nil, hdr(key)).want(t, 404, "")
	for i := 0; i < 30 && e.do(t, "GET", "/v1/ping", nil, hdr(key)).Status != 429; i++ {
	}
	e.admin(t, "DELETE", "/admin/orgs/"+org+"/keys/"+key[:16], nil).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 401, "")

	entries := logs.All()
	if len(entries) < 10 {
		t.Fatalf("only %d log entries: is the logger wired?", len(entries))
	}
	sawPrefix := false
	for _, en := range entries {
		text := en.Message + " " + fmt.Sprint(en.ContextMap())
		for _, secret := range []string{key, key[16:], adminToken} {
			if strings.Contains(text, secret) {
				t.Errorf("log entry contains a secret: %s", text)
			}
		}
		if strings.Contains(text, key[:16]) {
			sawPrefix = true
		}
	}
	if !sawPrefix {
		t.Error("no log entry names the key prefix; request logs should")
	}
}

func TestAdmin_NewAdminRefusesShortToken(t *testing.T) {
	e := newEnv(t)
	if _, err := httpapi.NewAdmin(e.Engine, strings.Repeat("x", 31), nil); err == nil {
		t.Error("a 31-character admin token was accepted")
	}
	if _, err := httpapi.NewAdmin(e.Engine, strings.Repeat("x", 32), nil); err != nil {
		t.Errorf("a 32-character admin token was refused: %v", err)
	}
}
