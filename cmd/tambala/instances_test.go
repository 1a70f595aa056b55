package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/internal/teststores"
)

// TestTwoInstancesOnOnePostgres: two tambala serve processes over one
// PostgreSQL database, each with a data folder of its own, as behind a
// load balancer. The second takes the store's admin token and demo
// organization (it prints neither, and says the demo organization exists), and a client that sends each request
// to the other server than the one before sees one service: idempotent
// replays, payouts, quotes and orders, desk moves, keys, allowlists,
// funding and proof links made on one are answered by the other. (The
// handlers' every route is tried alternating by the golden scenario in
// adapters/httpapi, TestGolden_TwoInstances.)
func TestTwoInstancesOnOnePostgres(t *testing.T) {
	dsn := teststores.NewPGSchemaURL(t)
	a := startServer(t, "", dsn)
	b := startServer(t, filepath.Join(t.TempDir(), "b"), dsn)
	require.NotEmpty(t, a.Token)
	require.NotEmpty(t, a.DemoKey)
	assert.Empty(t, b.Token, "the second prints no admin token:\n%s", b.Out)
	assert.Empty(t, b.DemoKey, "the second creates no demo organization:\n%s", b.Out)
	assert.Contains(t, b.Out.String(), "Demo organization \"Demo Organization\" (", "the second says it exists")
	assert.Contains(t, b.Out.String(), "already exists")
	token, key := a.Token, a.DemoKey

	servers := []*testServer{a, b}
	n := 0
	// next is the server of the next request: each in turn.
	next := func() *testServer { n++; return servers[n%2] }
	call := func(admin bool, auth, method, path, body string, hdrs ...string) (int, map[string]any) {
		t.Helper()
		s := next()
		base := s.PublicURL
		if admin {
			base = s.AdminURL
		}
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+auth)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(hdrs); i += 2 {
			req.Header.Set(hdrs[i], hdrs[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		var m map[string]any
		if len(raw) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			require.NoError(t, json.Unmarshal(raw, &m), string(raw))
		}
		require.Less(t, res.StatusCode, 500, "%s %s on %s: %s", method, path, base, raw)
		return res.StatusCode, m
	}
	pub := func(auth, method, path, body string, hdrs ...string) (int, map[string]any) {
		t.Helper()
		return call(false, auth, method, path, body, hdrs...)
	}
	adm := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		return call(true, token, method, path, body)
	}

	// The admin token: answered by both, another refused by both.
	for range 2 {
		code, _ := adm("GET", "/admin/orgs", "")
		assert.Equal(t, 200, code)
		code, _ = call(true, "adm_"+strings.Repeat("z", 43), "GET", "/admin/orgs", "")
		assert.Equal(t, 401, code)
	}
	_, orgs := adm("GET", "/admin/orgs", "")
	org := orgs["organizations"].([]any)[0].(map[string]any)["id"].(string)

	// A payout, replayed on the other server: one payout.
	body := `{"amount_mwk":"1000","institution_id":1,"account_number":"3333888800","beneficiary_name":"Chisomo Banda"}`
	code, p1 := pub(key, "POST", "/v1/payouts/bank", body, "Idempotency-Key", "two-1")
	require.Equal(t, 202, code, p1)
	code, p2 := pub(key, "POST", "/v1/payouts/bank", body, "Idempotency-Key", "two-1")
	require.Equal(t, 202, code)
	assert.Equal(t, p1["id"], p2["id"])
	code, got := pub(key, "GET", "/v1/payouts/"+p1["id"].(string), "")
	assert.Equal(t, 200, code)
	assert.Equal(t, p1["id"], got["id"])
	code, _ = pub(key, "POST", "/v1/payouts/bank", strings.Replace(body, "1000", "2000", 1), "Idempotency-Key", "two-1")
	assert.Equal(t, 409, code, "the key's other body is refused by either server")

	// Funding through one, the balance read on the other.
	_, before := pub(key, "GET", "/v1/balance", "")
	code, _ = adm("POST", "/admin/orgs/"+org+"/funding", `{"asset":"MWK","amount":"500","ref":"two-instances"}`)
	require.Equal(t, 200, code)
	_, after := pub(key, "GET", "/v1/balance", "")
	assert.NotEqual(t, before["available"], after["available"])

	// A key made through one is usable on the other, and revoked through
	// the other is refused by both.
	code, k := adm("POST", "/admin/orgs/"+org+"/keys", "")
	require.Equal(t, 201, code)
	key2 := k["key"].(string)
	for range 2 {
		code, _ = pub(key2, "GET", "/v1/ping", "")
		assert.Equal(t, 200, code)
	}
	code, _ = adm("DELETE", "/admin/orgs/"+org+"/keys/"+k["id"].(string), "")
	require.Equal(t, 200, code)
	for range 2 {
		code, _ = pub(key2, "GET", "/v1/ping", "")
		assert.Equal(t, 401, code, "a revoked key is refused by every server")
	}

	// An allowlist set through one applies on both.
	code, _ = adm("PUT", "/admin/orgs/"+org+"/allowlist", `{"addresses":["192.0.2.1"]}`)
	require.Equal(t, 200, code)
	for range 2 {
		code, _ = pub(key, "GET", "/v1/ping", "")
		assert.Equal(t, 403, code)
	}
	code, _ = adm("PUT", "/admin/orgs/"+org+"/allowlist", `{"addresses":[]}`)
	require.Equal(t, 200, code)

	// A quote from one, the order on the other, the desk's moves on each,
	// the order read on each.
	code, q := pub(key, "POST", "/v2/orders/quotes", `{"from_asset":"USDT","to_asset":"MWK","from_amount":"10"}`)
	require.Equal(t, 201, code, q)
	code, o := pub(key, "POST", "/v2/orders", fmt.Sprintf(`{"quote_id":%q,"client_ref":"two-1","beneficiary":{"name":"Chisomo Banda","bank_name":"National Bank of Malawi","account_number":"100200300"}}`, q["quote_id"]), "Idempotency-Key", "two-order-1")
	require.Equal(t, 201, code, o)
	id := o["id"].(string)
	for _, move := range []struct{ path, status string }{{"processing", "processing"}, {"complete", "completed"}} {
		code, m := adm("POST", "/admin/orders/"+id+"/"+move.path, "{}")
		require.Equal(t, 200, code, m)
		code, got := pub(key, "GET", "/v2/orders/"+id, "")
		require.Equal(t, 200, code)
		assert.Equal(t, move.status, got["status"])
	}
	code, _ = adm("POST", "/admin/orders/"+id+"/processing", "{}")
	assert.Equal(t, 409, code, "a move already past is refused by either server")
	assert.GreaterOrEqual(t, n, 25)

	// The operator's command, each call through the other server.
	cmd := func(args ...string) string {
		t.Helper()
		s := next()
		words := commandWords(args)
		full := append(append(append([]string{}, args[:words]...), "-admin-url", s.AdminURL, "-admin-token", token), args[words:]...)
		code, out, errOut := tambala(t, nil, full...)
		require.Equal(t, 0, code, "%v on %s: %s", args, s.AdminURL, errOut)
		return out
	}
	created := cmd("org", "create", "-json", "Second Org")
	var o2 map[string]any
	require.NoError(t, json.Unmarshal([]byte(created), &o2))
	org2 := o2["id"].(string)
	assert.Contains(t, cmd("org", "list"), "Second Org")
	cmd("fund", "-ref", "cli-two", org2, "250.00", "MWK")
	assert.Contains(t, cmd("org", "show", org2), "Second Org")
}
