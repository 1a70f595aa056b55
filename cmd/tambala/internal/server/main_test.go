package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/ledger"
)

// TestFirstSession walks what the README shows a newcomer: start on an
// empty folder, read the printed key, call the API.
func TestFirstSession(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	a, err := setup(context.Background(), config{data: dir, env: "sandbox", payoutDelay: 50 * time.Millisecond}, slog.New(slog.DiscardHandler), &out)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, ledger.CheckStore(context.Background(), a.store))
		a.store.Close()
	})
	key := regexp.MustCompile(`API key[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())
	require.Len(t, key, 2, out.String())
	token := regexp.MustCompile(`Admin token[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())
	require.Len(t, token, 2, out.String())

	pub := httptest.NewServer(a.public)
	defer pub.Close()
	adm := httptest.NewServer(a.admin)
	defer adm.Close()

	call := func(srv *httptest.Server, method, path, auth, idem, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		if idem != "" {
			req.Header.Set("Idempotency-Key", idem)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		assert.Equal(t, "application/json", res.Header.Get("Content-Type"))
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m), string(b))
		return res.StatusCode, m
	}

	status, ping := call(pub, "GET", "/v1/ping", key[1], "", "")
	require.Equal(t, 200, status)
	assert.Equal(t, "Demo Organization", ping["org"])
	assert.Equal(t, key[1][:16], ping["key_prefix"])

	status, bal := call(pub, "GET", "/v1/balance", key[1], "", "")
	require.Equal(t, 200, status)
	assert.Equal(t, "1000000.00", bal["available"])

	status, v2 := call(pub, "GET", "/v2/balances/USDT", key[1], "", "")
	require.Equal(t, 200, status)
	assert.Equal(t, "10000.000000", v2["available"])

	body := `{"amount_mwk":"5000.00","institution_id":101,"mobile_number":"265991234567","beneficiary_name":"Chikondi Banda"}`
	status, po := call(pub, "POST", "/v1/payouts/momo", key[1], "first-payout", body)
	require.Equal(t, 202, status, po)
	assert.Equal(t, "held", po["status"])

	status, bal = call(pub, "GET", "/v1/balance", key[1], "", "")
	require.Equal(t, 200, status)
	assert.Equal(t, "5282.00", bal["held"]) // 5000 plus the default momo fee of 282.00

	// The sandbox worker pays a test wallet on its own.
	body = `{"amount_mwk":"1000.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"Test Wallet"}`
	status, paid := call(pub, "POST", "/v1/payouts/momo", key[1], "second-payout", body)
	require.Equal(t, 202, status, paid)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.engine.Work().RunPayoutWorker(ctx, 20*time.Millisecond) //nolint:errcheck
	require.Eventually(t, func() bool {
		_, got := call(pub, "GET", "/v1/payouts/"+paid["id"].(string), key[1], "", "")
		return got["status"] == "succeeded"
	}, 10*time.Second, 20*time.Millisecond)
	// The first, to a number that is not a test wallet, fails; the worker
	// takes the two in parallel, so it may finish a moment after the second.
	var first map[string]any
	assert.Eventually(t, func() bool {
		_, first = call(pub, "GET", "/v1/payouts/"+po["id"].(string), key[1], "", "")
		return first["status"] == "failed"
	}, 10*time.Second, 20*time.Millisecond, "265991234567 is not a sandbox test wallet: %v", first)
	cancel()

	status, _ = call(pub, "GET", "/v1/ping", "", "", "")
	assert.Equal(t, 401, status)

	status, orgs := call(adm, "GET", "/admin/orgs", token[1], "", "")
	require.Equal(t, 200, status)
	assert.Len(t, orgs["organizations"], 1)
	status, _ = call(adm, "GET", "/admin/orgs", key[1], "", "")
	assert.Equal(t, 401, status, "an API key is not the admin token")

	// A second start on the same folder neither re-creates nor re-prints.
	require.NoError(t, a.store.Close())
	out.Reset()
	a2, err := setup(context.Background(), config{data: dir, env: "sandbox"}, slog.New(slog.DiscardHandler), &out)
	require.NoError(t, err)
	a.store = a2.store
	assert.NotContains(t, out.String(), "API key")
	assert.NotContains(t, out.String(), "Admin token")
	orgList, err := a2.engine.Operator().Organizations(context.Background())
	require.NoError(t, err)
	assert.Len(t, orgList, 1)
}

// syncBuffer is an io.Writer safe to read while run writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRunRateAndWorkerFlags runs the server with a tiny rate limit and the
// payout worker off: the bucket answers 429 once spent, and an accepted
// payout to a test wallet stays held.
func TestRunRateAndWorkerFlags(t *testing.T) {
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	c := config{data: t.TempDir(), addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "sandbox", quiet: true,
		payoutDelay: 10 * time.Millisecond, rate: 1, burst: 2, noWorker: true}
	go func() { done <- run(ctx, c, &out) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	var base string
	require.Eventually(t, func() bool {
		m := regexp.MustCompile(`Public API on (http://\S+)`).FindStringSubmatch(out.String())
		if m == nil {
			return false
		}
		base = m[1]
		return true
	}, 5*time.Second, 10*time.Millisecond)
	key := regexp.MustCompile(`API key[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())
	require.Len(t, key, 2, out.String())

	call := func(method, path, idem, body string) (*http.Response, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		require.NoError(t, err)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer "+key[1])
		if idem != "" {
			req.Header.Set("Idempotency-Key", idem)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var m map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&m))
		return res, m
	}
	res, po := call("POST", "/v1/payouts/momo", "flags-1",
		`{"amount_mwk":"1000.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"Test Wallet"}`)
	require.Equal(t, 202, res.StatusCode, po)
	res, _ = call("GET", "/v1/ping", "", "")
	require.Equal(t, 200, res.StatusCode)
	res, e := call("GET", "/v1/ping", "", "")
	require.Equal(t, 429, res.StatusCode, "-burst 2 allows two requests at once")
	assert.Equal(t, "rate_limited", e["error"].(map[string]any)["code"])
	assert.Equal(t, "1", res.Header.Get("Retry-After"))

	// With the worker on, a test wallet is paid within a worker period
	// (250 ms) plus the 10 ms delay; off, the payout stays held.
	time.Sleep(1100 * time.Millisecond) // also refills one token at -rate 1
	res, got := call("GET", "/v1/payouts/"+po["id"].(string), "", "")
	require.Equal(t, 200, res.StatusCode, got)
	assert.Equal(t, "held", got["status"], "-worker=false must not start the payout worker")
}

// TestPortalMounted checks the public listener serves the portal under
// /portal/ beside the API, with plain-HTTP cookies only for a sandbox on
// loopback.
func TestPortalMounted(t *testing.T) {
	a, err := setup(context.Background(), config{data: t.TempDir(), env: "sandbox", addr: "127.0.0.1:0", payoutDelay: 50 * time.Millisecond}, slog.New(slog.DiscardHandler), io.Discard)
	require.NoError(t, err)
	t.Cleanup(func() { a.store.Close() })
	pub := httptest.NewServer(a.public)
	defer pub.Close()
	res, err := http.Get(pub.URL + "/portal/sign-in")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode)
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	res, err = http.PostForm(pub.URL+"/portal/sign-in", map[string][]string{"email": {"nobody@example.com"}, "password": {"not a password"}})
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 401, res.StatusCode)
	res, err = http.Get(pub.URL + "/v1/ping")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 401, res.StatusCode, "the API is still served beside the portal")
	assert.True(t, loopback("127.0.0.1:8080"))
	assert.True(t, loopback("[::1]:8080"))
	assert.True(t, loopback("localhost:8080"))
	assert.False(t, loopback(":8080"))
	assert.False(t, loopback("0.0.0.0:8080"))
}

// TestDemoAdminInvitation: a first start in the sandbox prints, once, the
// link where the demo organization's admin sets a password; the link
// works, and the admin then signs in to the portal.
func TestDemoAdminInvitation(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	c := config{data: dir, env: "sandbox", addr: "127.0.0.1:8080", payoutDelay: 50 * time.Millisecond}
	a, err := setup(context.Background(), c, slog.New(slog.DiscardHandler), &out)
	require.NoError(t, err)
	t.Cleanup(func() { a.store.Close() })
	m := regexp.MustCompile(`(http://127\.0\.0\.1:8080/portal/invitations/accept\?token=)(inv_\S+)`).FindStringSubmatch(out.String())
	require.Len(t, m, 3, out.String())
	assert.Contains(t, out.String(), demoAdminEmail)

	pub := httptest.NewServer(a.public)
	defer pub.Close()
	const password = "a long demo password"
	res, err := http.PostForm(pub.URL+"/portal/invitations/accept?token="+m[2],
		map[string][]string{"token": {m[2]}, "password": {password}, "confirm": {password}})
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode, "the accept form redirects to sign-in (followed)")
	assert.Equal(t, "/portal/sign-in", res.Request.URL.Path)
	signed, err := a.engine.Sessions().SignIn(context.Background(), demoAdminEmail, password)
	require.NoError(t, err)
	assert.NotEmpty(t, signed.Token)

	// A later start prints no new invitation.
	a.store.Close()
	var again bytes.Buffer
	b, err := setup(context.Background(), c, slog.New(slog.DiscardHandler), &again)
	require.NoError(t, err)
	t.Cleanup(func() { b.store.Close() })
	assert.NotContains(t, again.String(), "invitations/accept")
}

// TestConsoleOnAdminListener: the operator's console is served on the
// admin listener only, with plain-HTTP cookies for a loopback sandbox.
func TestConsoleOnAdminListener(t *testing.T) {
	c := config{data: t.TempDir(), env: "sandbox", addr: "127.0.0.1:8080", adminAddr: "127.0.0.1:8081", payoutDelay: 50 * time.Millisecond}
	a, err := setup(context.Background(), c, slog.New(slog.DiscardHandler), io.Discard)
	require.NoError(t, err)
	t.Cleanup(func() { a.store.Close() })
	adm := httptest.NewServer(a.admin)
	defer adm.Close()
	pub := httptest.NewServer(a.public)
	defer pub.Close()

	res, err := http.Get(adm.URL + "/console/")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "/console/sign-in", res.Request.URL.Path)
	assert.Contains(t, string(body), "tambala console")
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")

	res, err = http.Get(pub.URL + "/console/")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, 404, res.StatusCode, "no console on the public listener")
}
