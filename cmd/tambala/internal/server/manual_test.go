package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startServer runs the server with c until the test ends and returns the
// public and admin base URLs.
func startServer(t *testing.T, c config) (pub, adm string, out *syncBuffer) {
	t.Helper()
	out = &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, c, out) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Admin API on") }, 10*time.Second, 10*time.Millisecond, "%s", out)
	pub = regexp.MustCompile(`Public API on (http://\S+)`).FindStringSubmatch(out.String())[1]
	adm = regexp.MustCompile(`Admin API on (http://\S+)`).FindStringSubmatch(out.String())[1]
	return pub, adm, out
}

func productionConfig(t *testing.T, provider string) config {
	return config{data: filepath.Join(t.TempDir(), "prod"), addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "production",
		provider: provider, rate: 50, burst: 100, quiet: true, logOut: io.Discard}
}

func TestConfig_Provider(t *testing.T) {
	c, err := parseConfig("tambala serve", []string{"-env", "production", "-provider", "manual"}, nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "manual", c.provider)
	c, err = parseConfig("tambala serve", nil, []string{"TAMBALA_PROVIDER=sandbox"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "sandbox", c.provider)
	_, err = parseConfig("tambala serve", []string{"-provider", "bank"}, nil, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `-provider must be sandbox or manual, not "bank"`)
}

// TestProduction_ManualRailStarts: -env production -provider manual
// starts on an empty folder, without a demo organization, and answers its
// health probe.
func TestProduction_ManualRailStarts(t *testing.T) {
	pub, adm, out := startServer(t, productionConfig(t, "manual"))
	for _, base := range []string{pub, adm} {
		res, err := http.Get(base + "/healthz")
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, 200, res.StatusCode, base)
	}
	assert.Contains(t, out.String(), "No organization yet")
	assert.Contains(t, out.String(), "manual rail")
	assert.NotContains(t, out.String(), "API key")
	assert.NotContains(t, out.String(), "Demo organization")
}

// TestProduction_RefusesSandboxProvider: production refuses the sandbox
// provider and touches nothing; without a provider it names -provider
// manual.
func TestProduction_RefusesSandboxProvider(t *testing.T) {
	for provider, want := range map[string]string{
		"sandbox": "production refuses -provider sandbox",
		"":        "run with -provider manual",
	} {
		c := productionConfig(t, provider)
		var out bytes.Buffer
		err := run(context.Background(), c, &out)
		require.Error(t, err, provider)
		assert.Contains(t, err.Error(), want)
		assert.Empty(t, out.String())
		_, statErr := os.Stat(c.data)
		assert.ErrorIs(t, statErr, os.ErrNotExist, "the data folder is not even created")
	}
}

// hookReceiver is an https webhook endpoint that records the events it
// receives (production accepts https endpoints only).
type hookReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []map[string]any
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev map[string]any
		if err := json.NewDecoder(r.Body).Decode(&ev); err == nil {
			h.mu.Lock()
			h.got = append(h.got, ev)
			h.mu.Unlock()
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// received returns the type of every event received about the payout.
func (h *hookReceiver) received(payout string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.got {
		if data, ok := ev["data"].(map[string]any); ok && data["id"] == payout {
			out = append(out, ev["event_type"].(string))
		}
	}
	return out
}

// TestProduction_ManualRailEndToEnd: in production with the manual rail,
// the operator sets up an organization through the admin API; a payout it
// makes with its API key stays pending, through worker passes, until the
// staff record it as paid through the admin API, with the provider's
// reference; it then reads succeeded and the organization's webhook
// endpoint receives payout.succeeded.
func TestProduction_ManualRailEndToEnd(t *testing.T) {
	hooks := newHookReceiver(t)
	c := productionConfig(t, "manual")
	c.webhookTransport = hooks.srv.Client().Transport // trusts the receiver's test certificate
	// The receiver is on loopback, which production refuses: let this
	// one range in, explicitly.
	c.webhookAllow = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	pub, adm, _ := startServer(t, c)
	token, err := os.ReadFile(filepath.Join(c.data, "admin-token"))
	require.NoError(t, err)

	call := func(base, method, path, auth, idem, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+auth)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if idem != "" {
			req.Header.Set("Idempotency-Key", idem)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m), string(b))
		return res.StatusCode, m
	}
	admin := func(method, path, body string) map[string]any {
		t.Helper()
		status, m := call(adm, method, path, strings.TrimSpace(string(token)), "", body)
		require.True(t, status < 300, "%s %s: %d %v", method, path, status, m)
		return m
	}

	// Production has no demo: the operator sets everything up.
	admin("PUT", "/admin/institutions", `{"institutions":[{"institution_id":101,"name":"Airtel Money","rail":"momo","network":"9"}]}`)
	org := admin("POST", "/admin/orgs", `{"name":"Acme Ltd"}`)["id"].(string)
	key := admin("POST", "/admin/orgs/"+org+"/keys", "")["key"].(string)
	assert.True(t, strings.HasPrefix(key, "tmb_live_"), key)
	admin("POST", "/admin/orgs/"+org+"/funding", `{"asset":"MWK","amount":"100000.00","ref":"opening"}`)
	admin("PUT", "/admin/orgs/"+org+"/webhook", `{"url":"`+hooks.srv.URL+`/hooks"}`)

	status, po := call(pub, "POST", "/v1/payouts/momo", key, "order-1",
		`{"amount_mwk":"5000.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Chikondi Banda"}`)
	require.Equal(t, 202, status, po)
	id := po["id"].(string)
	read := func() map[string]any {
		t.Helper()
		status, got := call(pub, "GET", "/v1/payouts/"+id, key, "", "")
		require.Equal(t, 200, status, got)
		return got
	}
	// The worker submits it to the manual rail, then polls it: pending,
	// pass after pass (one every 250 ms), until the staff record it.
	require.Eventually(t, func() bool { return read()["status"] == "pending" }, 10*time.Second, 20*time.Millisecond)
	time.Sleep(time.Second)
	assert.Equal(t, "pending", read()["status"], "the manual rail never invents an outcome")
	inFlight := admin("GET", "/admin/payouts/in-flight", "")["payouts"].([]any)
	require.Len(t, inFlight, 1)
	assert.Equal(t, id, inFlight[0].(map[string]any)["payout"].(map[string]any)["id"])

	// The staff paid it through the operator's portal.
	done := admin("POST", "/admin/payouts/"+id+"/resolve",
		`{"outcome":"succeeded","fee":"250.00","reason":"Paid through the Airtel Money portal.","reference":"MP240311.1523.A12345"}`)
	assert.Equal(t, "succeeded", done["status"])
	got := read()
	assert.Equal(t, "succeeded", got["status"])
	assert.Equal(t, "250.00", got["fee"])
	require.Eventually(t, func() bool { return slices.Contains(hooks.received(id), "payout.succeeded") }, 10*time.Second, 20*time.Millisecond,
		"the webhook endpoint receives payout.succeeded")
	assert.Empty(t, admin("GET", "/admin/payouts/in-flight", "")["payouts"])
	status, bal := call(pub, "GET", "/v1/balance", key, "", "")
	require.Equal(t, 200, status)
	assert.Equal(t, "94750.00", bal["available"], "5000.00 paid and the 250.00 fee charged")
	assert.Equal(t, "0.00", bal["held"])
}
