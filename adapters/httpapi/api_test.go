package httpapi_test

import (
	"crypto/rand"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/apikeys"
)

// unknownKey returns a well-formed key that was never issued.
func unknownKey(t testing.TB) string {
	b := make([]byte, apikeys.RandomBytes)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	k, err := apikeys.Format(b)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var authedReads = []string{"/v1/ping", "/v1/balance", "/v1/payouts", "/v1/institutions", "/v2/ping", "/v2/assets", "/v2/balances", "/v2/balances/MWK"}

func TestAuth_MissingMalformedUnknownKeys(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: allAssets})
	cases := map[string]string{
		"missing":          "",
		"scheme only":      "Bearer",
		"scheme and space": "Bearer ",
		"basic":            "Basic x",
		"basic with key":   "Basic " + key,
		"short key":        "Bearer tmb_live_short",
		"unknown key":      "Bearer " + unknownKey(t),
		"key plus a char":  "Bearer " + key + "x",
		"key less a char":  "Bearer " + key[:len(key)-1],
		"test prefix":      "Bearer tmb_test_" + key[len("tmb_live_"):],
		"no scheme":        key,
		"token scheme":     "Token " + key,
		"two keys":         "Bearer " + key + " " + key,
		"non-base62 body":  "Bearer " + key[:len(key)-1] + "!",
	}
	for _, name := range sortedKeys(cases) {
		t.Run(name, func(t *testing.T) {
			h := map[string]string{}
			if v := cases[name]; v != "" {
				h["Authorization"] = v
			}
			for _, p := range authedReads {
				e.do(t, "GET", p, nil, h).want(t, 401, "unauthorized")
			}
			e.do(t, "POST", "/v1/payouts/bank", `{}`, h).want(t, 401, "unauthorized")
			e.do(t, "POST", "/v1/fees/quote", `{}`, h).want(t, 401, "unauthorized")
		})
	}
	// The scheme is case-insensitive and surrounding spaces are tolerated.
	e.do(t, "GET", "/v1/ping", nil, map[string]string{"Authorization": "bearer " + key}).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, map[string]string{"Authorization": "BEARER  " + key + " "}).want(t, 200, "")
}

func TestAuth_PingV1ShowsOrgAndPrefix(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{name: "Acme Ltd"})
	m := e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 200, "").obj(t)
	if m["org"] != o.Name || m["mode"] != "live" || m["key_prefix"] != key[:16] {
		t.Errorf("ping = %v", m)
	}
}

func TestAuth_RevokedKeyRefusedOnNextRequest(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{})
	other := e.admin(t, "POST", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 201, "").obj(t)["key"].(string)
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 200, "")
	// Revoke by prefix.
	e.admin(t, "DELETE", "/admin/orgs/"+o.ID+"/keys/"+key[:16], nil).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 401, "unauthorized")
	e.do(t, "GET", "/v2/ping", nil, hdr(key)).want(t, 401, "unauthorized")
	// The other key is unaffected; revoke it by id.
	e.do(t, "GET", "/v1/ping", nil, hdr(other)).want(t, 200, "")
	keys := e.admin(t, "GET", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 200, "").obj(t)["keys"].([]any)
	var id string
	for _, k := range keys {
		if km := k.(map[string]any); km["prefix"] == other[:16] {
			id = km["id"].(string)
		}
	}
	e.admin(t, "DELETE", "/admin/orgs/"+o.ID+"/keys/"+id, nil).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(other)).want(t, 401, "unauthorized")
	// Revoking again is not an error; an unknown key is 404.
	e.admin(t, "DELETE", "/admin/orgs/"+o.ID+"/keys/"+id, nil).want(t, 200, "")
	e.admin(t, "DELETE", "/admin/orgs/"+o.ID+"/keys/tmb_live_nope", nil).want(t, 404, "not_found")
}

func TestAuth_KeyOfOtherEnvironmentRefused(t *testing.T) {
	st := memstore.New()
	prod := newEnv(t, withStore(st), withEnvironment(tambala.Production))
	_, key := prod.newOrg(t, orgSpec{})
	prod.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 200, "")
	sandbox := newEnv(t, withStore(st), withEnvironment(tambala.Sandbox))
	sandbox.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 401, "unauthorized")
	sandbox.do(t, "GET", "/v2/ping", nil, hdr(key)).want(t, 401, "unauthorized")
	// And the other way round.
	_, sk := sandbox.newOrg(t, orgSpec{name: "sandbox org"})
	sandbox.do(t, "GET", "/v1/ping", nil, hdr(sk)).want(t, 200, "")
	prod.do(t, "GET", "/v1/ping", nil, hdr(sk)).want(t, 401, "unauthorized")
}

func TestAuth_SuspendedOrganizationForbidden(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled})
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/status", map[string]string{"status": "suspended"}).want(t, 200, "")
	for _, p := range authedReads {
		e.do(t, "GET", p, nil, hdr(key)).want(t, 403, "forbidden")
	}
	e.do(t, "POST", "/v1/payouts/bank", `{}`, hdr(key, "Idempotency-Key", "k")).want(t, 403, "forbidden")
	// Suspension comes before the pause: a suspended organization still
	// reads 403 while /v1 is paused.
	e.admin(t, "PUT", "/admin/pause", map[string]string{"api": "v1", "mode": "maintenance"}).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 403, "forbidden")
	e.admin(t, "PUT", "/admin/pause", map[string]string{"api": "v1", "mode": "live"}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/status", map[string]string{"status": "active"}).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 200, "")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/status", map[string]string{"status": "gone"}).want(t, 400, "validation_error")
}

func TestAllowlist(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled})
	setList := func(addrs ...string) *resp {
		return e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/allowlist", map[string]any{"addresses": addrs})
	}
	type probe struct {
		from   string
		status int
	}
	check := func(probes ...probe) {
		t.Helper()
		for _, p := range probes {
			e.setAddr(t, p.from)
			code := ""
			if p.status == 403 {
				code = "forbidden"
			}
			e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, p.status, code)
			e.do(t, "GET", "/v2/ping", nil, hdr(key)).want(t, p.status, code)
		}
	}
	// Empty list: everyone.
	check(probe{"203.0.113.7", 200}, probe{"2001:db8::1", 200})

	setList("203.0.113.7", "2001:db8::1").want(t, 200, "")
	check(
		probe{"203.0.113.7", 200},
		probe{"203.0.113.8", 403},
		probe{"2001:db8::1", 200},
		probe{"2001:db8:0:0:0:0:0:1", 200}, // same address, long form
		probe{"2001:db8::2", 403},
		probe{"::ffff:203.0.113.7", 200}, // IPv4-mapped compares as IPv4
		probe{"::ffff:203.0.113.8", 403},
		probe{"127.0.0.1", 403},
		probe{"::1", 403},
	)
	// A mapped entry is stored as IPv4 and matches both forms.
	m := setList("::ffff:198.51.100.4").want(t, 200, "").obj(t)
	if got := m["ip_allowlist"].([]any); len(got) != 1 || got[0] != "198.51.100.4" {
		t.Errorf("ip_allowlist = %v, want [198.51.100.4]", got)
	}
	check(probe{"198.51.100.4", 200}, probe{"::ffff:198.51.100.4", 200}, probe{"203.0.113.7", 403})

	// An unusable client address never passes a non-empty list.
	e.addr.Store(&netip.Addr{})
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 403, "forbidden")

	// Back to empty: everyone again.
	setList().want(t, 200, "")
	check(probe{"203.0.113.8", 200})
}

func TestAllowlist_DefaultClientAddrIsTheConnection(t *testing.T) {
	e := newEnv(t, withDefaultClientAddr())
	o, key := e.newOrg(t, orgSpec{})
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/allowlist", map[string]any{"addresses": []string{"192.0.2.1"}}).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 403, "forbidden")
	// A spoofed forwarding header is not trusted by default.
	e.do(t, "GET", "/v1/ping", nil, hdr(key, "X-Forwarded-For", "192.0.2.1")).want(t, 403, "forbidden")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/allowlist", map[string]any{"addresses": []string{"127.0.0.1", "::1"}}).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 200, "")
}

func TestAdmin_AllowlistRefusesRangesAndNonAddresses(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/allowlist", map[string]any{"addresses": []string{"203.0.113.7"}}).want(t, 200, "")
	for _, bad := range []string{"10.0.0.0/8", "203.0.113.7/32", "2001:db8::/32", "::1/128", "not-an-ip", "", "fe80::1%eth0", "203.0.113.*", "203.0.113.7:80", "1.2.3", "example.com"} {
		r := e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/allowlist", map[string]any{"addresses": []string{"192.0.2.1", bad}})
		r.want(t, 400, "validation_error")
	}
	got := e.admin(t, "GET", "/admin/orgs/"+o.ID, nil).want(t, 200, "").obj(t)["ip_allowlist"].([]any)
	if len(got) != 1 || got[0] != "203.0.113.7" {
		t.Errorf("a refused update changed the allowlist: %v", got)
	}
}

func TestKeys_FourthActiveKeyRefusedUntilOneRevoked(t *testing.T) {
	e := newEnv(t)
	o, first := e.newOrg(t, orgSpec{})
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 201, "")
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 201, "")
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 409, "conflict")
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 409, "conflict")
	e.admin(t, "DELETE", "/admin/orgs/"+o.ID+"/keys/"+first[:16], nil).want(t, 200, "")
	fourth := e.admin(t, "POST", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 201, "").obj(t)["key"].(string)
	e.do(t, "GET", "/v1/ping", nil, hdr(fourth)).want(t, 200, "")
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 409, "conflict")
	keys := e.admin(t, "GET", "/admin/orgs/"+o.ID+"/keys", nil).want(t, 200, "").obj(t)["keys"].([]any)
	if len(keys) != 4 {
		t.Errorf("%d keys listed, want 4 (3 active, 1 revoked)", len(keys))
	}
	e.admin(t, "POST", "/admin/orgs/no-such-org/keys", nil).want(t, 404, "not_found")
}

func TestRateLimit_BurstThen429WithRetryAfter(t *testing.T) {
	e := newEnv(t, withLimits(tambala.Limits{RatePerSecond: 1, RateBurst: 3}))
	_, a := e.newOrg(t, orgSpec{name: "A", v2: tambala.V2Enabled})
	_, b := e.newOrg(t, orgSpec{name: "B"})
	for i := 0; i < 3; i++ {
		e.do(t, "GET", "/v1/ping", nil, hdr(a)).want(t, 200, "")
	}
	r := e.do(t, "GET", "/v1/balance", nil, hdr(a)).want(t, 429, "rate_limited")
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || ra < 1 {
		t.Errorf("Retry-After = %q, want an integer >= 1", r.Header.Get("Retry-After"))
	}
	// Every route of the organization shares the bucket, /v2/ping included.
	e.do(t, "GET", "/v2/ping", nil, hdr(a)).want(t, 429, "rate_limited")
	e.do(t, "POST", "/v1/fees/quote", `{}`, hdr(a)).want(t, 429, "rate_limited")
	// Another organization has its own bucket.
	for i := 0; i < 3; i++ {
		e.do(t, "GET", "/v1/ping", nil, hdr(b)).want(t, 200, "")
	}
	e.do(t, "GET", "/v1/ping", nil, hdr(b)).want(t, 429, "rate_limited")
	// A refused request takes no token: after Retry-After seconds one
	// request passes again, the next does not.
	e.Clock.Advance(time.Duration(ra) * time.Second)
	e.do(t, "GET", "/v1/ping", nil, hdr(a)).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(a)).want(t, 429, "rate_limited")
	// A full refill restores the burst.
	e.Clock.Advance(10 * time.Second)
	for i := 0; i < 3; i++ {
		e.do(t, "GET", "/v1/ping", nil, hdr(a)).want(t, 200, "")
	}
	e.do(t, "GET", "/v1/ping", nil, hdr(a)).want(t, 429, "rate_limited")
	// Requests without a valid key are answered 401, not 429.
	e.do(t, "GET", "/v1/ping", nil, hdr(unknownKey(t))).want(t, 401, "unauthorized")
}

func TestRateLimit_RetryAfterRoundsUp(t *testing.T) {
	e := newEnv(t, withLimits(tambala.Limits{RatePerSecond: 0.1, RateBurst: 1}))
	_, k := e.newOrg(t, orgSpec{})
	e.do(t, "GET", "/v1/ping", nil, hdr(k)).want(t, 200, "")
	r := e.do(t, "GET", "/v1/ping", nil, hdr(k)).want(t, 429, "rate_limited")
	if got := r.Header.Get("Retry-After"); got != "10" {
		t.Errorf("Retry-After = %q, want 10", got)
	}
	e.Clock.Advance(9500 * time.Millisecond)
	r = e.do(t, "GET", "/v1/ping", nil, hdr(k)).want(t, 429, "rate_limited")
	if got := r.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1 (0.5 s rounded up)", got)
	}
	e.Clock.Advance(500 * time.Millisecond)
	e.do(t, "GET", "/v1/ping", nil, hdr(k)).want(t, 200, "")
}

func setPause(t *testing.T, e *testEnv, api, mode string) {
	t.Helper()
	m := e.admin(t, "PUT", "/admin/pause", map[string]string{"api": api, "mode": mode}).want(t, 200, "").obj(t)
	if m[api] != mode {
		t.Errorf("pause %s = %v, want %s", api, m[api], mode)
	}
}

func TestPause_V1AndV2AreIndependent(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: allAssets, fundMWK: 1_000_000})
	_, onboarding := e.newOrg(t, orgSpec{name: "new"})
	v1 := []string{"/v1/ping", "/v1/balance", "/v1/payouts", "/v1/institutions", "/v1/payouts/0190c4d2-7f3a-7b1e-8a2b-000000000000"}
	v2 := []string{"/v2/assets", "/v2/balances", "/v2/balances/MWK"}
	ping := func(k, want string) {
		t.Helper()
		if got := e.do(t, "GET", "/v2/ping", nil, hdr(k)).want(t, 200, "").obj(t)["status"]; got != want {
			t.Errorf("/v2/ping status = %v, want %s", got, want)
		}
	}
	ping(key, "live")
	ping(onboarding, "live")

	setPause(t, e, "v1", "maintenance")
	for _, p := range v1 {
		e.do(t, "GET", p, nil, hdr(key)).want(t, 503, "service_maintenance")
	}
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "p1")).want(t, 503, "service_maintenance")
	e.do(t, "POST", "/v1/payouts/momo", momoBody("100"), hdr(key, "Idempotency-Key", "p1")).want(t, 503, "service_maintenance")
	e.do(t, "POST", "/v1/fees/quote", feeBody("payout", "bank", "100"), hdr(key)).want(t, 503, "service_maintenance")
	for _, p := range v2 {
		e.do(t, "GET", p, nil, hdr(key)).want(t, 200, "")
	}
	ping(key, "live")
	// A bad key is still 401 while paused.
	e.do(t, "GET", "/v1/ping", nil, hdr(unknownKey(t))).want(t, 401, "unauthorized")

	setPause(t, e, "v1", "incident")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 503, "service_incident")
	setPause(t, e, "v1", "live")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 200, "")

	setPause(t, e, "v2", "incident")
	for _, p := range v2 {
		e.do(t, "GET", p, nil, hdr(key)).want(t, 503, "service_incident")
	}
	// The pause comes before the access check.
	e.do(t, "GET", "/v2/assets", nil, hdr(onboarding)).want(t, 503, "service_incident")
	ping(key, "outage")
	ping(onboarding, "outage")
	for _, p := range v1 {
		if !strings.HasPrefix(p, "/v1/payouts/") {
			e.do(t, "GET", p, nil, hdr(key)).want(t, 200, "")
		}
	}

	setPause(t, e, "v2", "maintenance")
	e.do(t, "GET", "/v2/balances", nil, hdr(key)).want(t, 503, "service_maintenance")
	ping(key, "maintenance")

	setPause(t, e, "v2", "live")
	e.do(t, "GET", "/v2/balances", nil, hdr(key)).want(t, 200, "")
	ping(key, "live")

	got := e.admin(t, "GET", "/admin/pause", nil).want(t, 200, "").obj(t)
	if got["v1"] != "live" || got["v2"] != "live" {
		t.Errorf("GET /admin/pause = %v", got)
	}
	for _, bad := range []map[string]string{{"api": "v3", "mode": "live"}, {"api": "v1", "mode": "closed"}, {"api": "v1"}, {}} {
		e.admin(t, "PUT", "/admin/pause", bad).want(t, 400, "validation_error")
	}
}

func TestV2_AccessStates(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{assets: allAssets}) // onboarding_incomplete by default
	v2 := []string{"/v2/assets", "/v2/balances", "/v2/balances/MWK", "/v2/balances/EUR"}
	for _, p := range v2 {
		e.do(t, "GET", p, nil, hdr(key)).want(t, 403, "onboarding_incomplete")
	}
	e.do(t, "GET", "/v2/ping", nil, hdr(key)).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 200, "")

	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/v2-access", map[string]string{"v2_access": "access_suspended"}).want(t, 200, "")
	for _, p := range v2 {
		e.do(t, "GET", p, nil, hdr(key)).want(t, 403, "access_suspended")
	}
	e.do(t, "GET", "/v2/ping", nil, hdr(key)).want(t, 200, "")
	e.do(t, "GET", "/v1/balance", nil, hdr(key)).want(t, 200, "")

	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/v2-access", map[string]string{"v2_access": "enabled"}).want(t, 200, "")
	e.do(t, "GET", "/v2/assets", nil, hdr(key)).want(t, 200, "")
	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/v2-access", map[string]string{"v2_access": "on"}).want(t, 400, "validation_error")
}

func TestV2_AssetsAndBalances(t *testing.T) {
	e := newEnv(t)
	o, key := e.newOrg(t, orgSpec{v2: tambala.V2Enabled, assets: []tambala.AssetAccess{{Asset: "MWK", Operations: []string{"payout"}}}, fundMWK: 1234})
	// Only MWK enabled: USDT and unknown well-formed codes do not exist for
	// the org (403); a malformed code (lowercase, compound, too long) is no
	// asset code at all (422).
	for _, a := range []string{"USDT", "EUR", "ZZZ1"} {
		e.do(t, "GET", "/v2/balances/"+a, nil, hdr(key)).want(t, 403, "corridor_not_enabled")
	}
	for _, a := range []string{"mwk", "usdt", "USDT-TRC20", "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"} {
		e.do(t, "GET", "/v2/balances/"+a, nil, hdr(key)).want(t, 422, "unsupported_asset")
	}
	var assets struct {
		Assets []struct {
			Asset      string   `json:"asset"`
			Decimals   int32    `json:"decimals"`
			Operations []string `json:"operations"`
		} `json:"assets"`
	}
	e.do(t, "GET", "/v2/assets", nil, hdr(key)).want(t, 200, "").decode(t, &assets)
	if len(assets.Assets) != 1 || assets.Assets[0].Asset != "MWK" || assets.Assets[0].Decimals != 2 {
		t.Errorf("assets = %+v", assets)
	}
	b := e.do(t, "GET", "/v2/balances/MWK", nil, hdr(key)).want(t, 200, "").obj(t)
	if b["asset"] != "MWK" || b["available"] != "1234.00" || b["held"] != "0.00" {
		t.Errorf("MWK balance = %v", b)
	}

	e.admin(t, "PUT", "/admin/orgs/"+o.ID+"/assets", map[string]any{"assets": assetsJSON(allAssets)}).want(t, 200, "")
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/funding", map[string]string{"asset": "USDT", "amount": "5.5", "ref": "r1"}).want(t, 200, "")
	b = e.do(t, "GET", "/v2/balances/USDT", nil, hdr(key)).want(t, 200, "").obj(t)
	if b["available"] != "5.500000" || b["held"] != "0.000000" {
		t.Errorf("USDT balance = %v", b)
	}
	var list struct {
		Balances []map[string]string `json:"balances"`
	}
	e.do(t, "GET", "/v2/balances", nil, hdr(key)).want(t, 200, "").decode(t, &list)
	if len(list.Balances) != 2 || list.Balances[0]["asset"] != "MWK" || list.Balances[1]["asset"] != "USDT" {
		t.Errorf("balances = %v", list)
	}
	e.do(t, "GET", "/v2/assets", nil, hdr(key)).want(t, 200, "").decode(t, &assets)
	if len(assets.Assets) != 2 || assets.Assets[1].Decimals != 6 || len(assets.Assets[1].Operations) != 3 {
		t.Errorf("assets = %+v", assets)
	}
}

func TestV1_Balance(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 250_000})
	m := e.do(t, "GET", "/v1/balance", nil, hdr(key)).want(t, 200, "").obj(t)
	want := map[string]any{"available": "250000.00", "held": "0.00", "shortfall": "0.00", "currency": "MWK"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("balance %s = %v, want %v", k, m[k], v)
		}
	}
}

func TestRouting_UnknownRouteAndWrongMethod(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{})
	for _, p := range []string{"/", "/nope", "/v1", "/v1/", "/v1/nope", "/v1/ping/", "/v3/ping", "/v2/balances/MWK/x", "/V1/ping", "/admin/orgs"} {
		for _, h := range []map[string]string{nil, hdr(key)} {
			r := e.do(t, "GET", p, nil, h).want(t, 404, "not_found")
			if r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("404 Content-Type = %q", r.Header.Get("Content-Type"))
			}
		}
	}
	wrong := map[string]string{
		"POST /v1/ping":          "GET",
		"DELETE /v1/balance":     "GET",
		"PUT /openapi.json":      "GET",
		"GET /v1/payouts/bank":   "POST", // {id} would match a GET, so check below
		"DELETE /v1/payouts/x":   "GET",
		"GET /v1/fees/quote":     "POST",
		"PATCH /v2/balances/MWK": "GET",
		"POST /v2/ping":          "GET",
	}
	for _, k := range sortedKeys(wrong) {
		method, path, _ := strings.Cut(k, " ")
		if k == "GET /v1/payouts/bank" {
			// GET /v1/payouts/{id} serves it: "bank" is not a payout id.
			e.do(t, method, path, nil, hdr(key)).want(t, 404, "not_found")
			continue
		}
		r := e.do(t, method, path, nil, hdr(key)).want(t, 405, "method_not_allowed")
		if !strings.Contains(r.Header.Get("Allow"), wrong[k]) {
			t.Errorf("%s: Allow = %q, want it to contain %s", k, r.Header.Get("Allow"), wrong[k])
		}
		if r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("405 Content-Type = %q", r.Header.Get("Content-Type"))
		}
	}
	// The admin handler answers the same way.
	e.adminWith(t, "GET", "/nope", nil, nil).want(t, 404, "not_found")
	r := e.adminWith(t, "DELETE", "/admin/orgs", nil, nil).want(t, 405, "method_not_allowed")
	if a := r.Header.Get("Allow"); !strings.Contains(a, "GET") || !strings.Contains(a, "POST") {
		t.Errorf("Allow = %q", a)
	}
}

// chunked hides a reader's length so the client sends no Content-Length.
type chunked struct{ r *strings.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p) }

func TestBody_TooLarge(t *testing.T) {
	e := newEnv(t, withLimits(tambala.Limits{RatePerSecond: 1e6, RateBurst: 1e6, MaxBodyBytes: 512}))
	_, key := e.newOrg(t, orgSpec{fundMWK: 1_000_000})
	pad := strings.Repeat("x", 600)
	big := `{"amount_mwk":"100","institution_id":1,"account_number":"3333888800","beneficiary_name":"` + pad + `"}`
	e.do(t, "POST", "/v1/payouts/bank", big, hdr(key, "Idempotency-Key", "big")).want(t, 413, "payload_too_large")
	e.do(t, "POST", "/v1/payouts/bank", chunked{strings.NewReader(big)}, hdr(key, "Idempotency-Key", "big")).want(t, 413, "payload_too_large")
	e.do(t, "POST", "/v1/fees/quote", chunked{strings.NewReader(`{"x":"` + pad + `"}`)}, hdr(key)).want(t, 413, "payload_too_large")
	e.adminWith(t, "POST", "/admin/orgs", `{"name":"`+pad+`"}`, map[string]string{"Authorization": "Bearer " + adminToken}).want(t, 413, "payload_too_large")
	e.adminWith(t, "POST", "/admin/orgs", chunked{strings.NewReader(`{"name":"` + pad + `"}`)}, map[string]string{"Authorization": "Bearer " + adminToken}).want(t, 413, "payload_too_large")
	// The cap holds before routing, on every route.
	e.do(t, "GET", "/v1/ping", big, hdr(key)).want(t, 413, "payload_too_large")
	e.do(t, "GET", "/openapi.json", big, nil).want(t, 413, "payload_too_large")
	// Nothing was created by the refused bodies; a body under the cap works.
	assertPayoutCount(t, e, key, 0)
	e.do(t, "POST", "/v1/payouts/bank", bankBody("100"), hdr(key, "Idempotency-Key", "big")).want(t, 202, "")
}

func TestBody_MalformedJSONAndUnknownFields(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 1_000_000})
	bad := []string{``, `{`, `{"amount_mwk":`, `[]`, `"x"`, `null`, `{"amount_mwk":"100"} {}`, `{"amount_mwk":"100",}`, "\xff\xfe"}
	for i, b := range bad {
		k := "bad-" + strconv.Itoa(i)
		e.do(t, "POST", "/v1/payouts/bank", b, hdr(key, "Idempotency-Key", k)).want(t, 400, "validation_error")
		e.do(t, "POST", "/v1/payouts/momo", b, hdr(key, "Idempotency-Key", k)).want(t, 400, "validation_error")
		e.do(t, "POST", "/v1/fees/quote", b, hdr(key)).want(t, 400, "validation_error")
		e.admin(t, "POST", "/admin/orgs", b).want(t, 400, "validation_error")
	}
	assertPayoutCount(t, e, key, 0)
	// Unknown fields are ignored.
	e.do(t, "POST", "/v1/payouts/bank",
		`{"amount_mwk":"100","institution_id":1,"account_number":"3333888800","beneficiary_name":"A","rail":"momo","extra":{"x":[1,2]}}`,
		hdr(key, "Idempotency-Key", "unknown-fields")).want(t, 202, "")
	e.do(t, "POST", "/v1/fees/quote", `{"direction":"payout","rail":"bank","amount_mwk":"100","currency":"EUR"}`, hdr(key)).want(t, 200, "")
	e.admin(t, "POST", "/admin/orgs", `{"name":"x","id":"chosen","status":"suspended"}`).want(t, 201, "")
}

// TestRouting_UncleanPathsAreNotRedirected: ServeMux would answer a path
// with "//", "." or ".." segments with a redirect and an HTML body; the API
// answers JSON 404 instead.
func TestRouting_UncleanPathsAreNotRedirected(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	for _, p := range []string{"/v1//ping", "//v1/ping", "/v1/./ping", "/v2/../v1/ping", "/v1/payouts/x/../y", "/v1/ping/.", "/v2/balances/./MWK"} {
		e.do(t, "GET", p, nil, hdr(key)).want(t, 404, "not_found")
	}
	r := e.do(t, "POST", "/v1/payouts//bank", bankBody("1"), hdr(key, "Idempotency-Key", "u"))
	if r.Status != 404 && r.Status != 405 {
		t.Errorf("POST /v1/payouts//bank: %d", r.Status)
	}
	e.admin(t, "GET", "/admin//orgs", nil).want(t, 404, "not_found")
	e.admin(t, "POST", "/admin/orgs/../orgs", map[string]string{"name": "x"}).want(t, 404, "not_found")
	assertPayoutCount(t, e, key, 0)
}
