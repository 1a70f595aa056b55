package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

// convDelay is how long the test server's sandbox converter takes to
// decide a conversion.
const convDelay = 50 * time.Millisecond

// waitFor polls path with r's credentials, up to 20 s, until its body
// contains want.
func waitFor(h http.Handler, r *http.Request, path, want string) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		req := httptest.NewRequestWithContext(r.Context(), http.MethodGet, path, nil)
		req.Header.Set("Authorization", r.Header.Get("Authorization"))
		req.RemoteAddr = r.RemoteAddr
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), want) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Every /v2 mode runs briefly against the in-process server: each
// operation succeeds, none fails, and the MWK and USDT balances add up.
func TestV2Modes(t *testing.T) {
	for _, tc := range []struct {
		name, mode  string
		conversions bool     // run the conversion worker
		posts       []string // the routes each operation sends
	}{
		{"order", modeOrder, false, []string{"POST /v2/orders/quotes", "POST /v2/orders"}},
		{"conversion", modeConversion, false, []string{"POST /v2/conversions/quotes", "POST /v2/conversions"}},
		// The conversion worker completes them while the check runs: it
		// reads each and accounts for the MWK credited.
		{"conversion settling", modeConversion, true, []string{"POST /v2/conversions/quotes", "POST /v2/conversions"}},
		{"payout-v2", modePayoutV2, false, []string{"POST /v2/payouts"}},
		{"payout-fx", modePayoutFX, false, []string{"POST /v2/payouts"}},
		{"desk-move", modeDeskMove, false, []string{"POST /v2/orders/quotes", "POST /v2/orders"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			posts := map[string]int{}
			keys := map[string]bool{}
			var reads atomic.Int32
			s := newServer(t, serverOptions{limits: unlimited(), conversions: tc.conversions, wrap: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					// With the conversion worker, the check's first read of
					// the end balances waits until one conversion completed
					// (up to 20 s): the check then has one to account for.
					if tc.conversions && r.Method == http.MethodGet && r.URL.Path == "/v2/balances" && reads.Add(1) == 2 {
						waitFor(h, r, "/v2/conversions?limit=200", `"status":"completed"`)
					}
					if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v2/") {
						mu.Lock()
						posts[r.Method+" "+r.URL.Path]++
						k := r.Header.Get("Idempotency-Key")
						require.NotEmpty(t, k, r.URL.Path)
						require.False(t, keys[k], "key %s twice", k)
						keys[k] = true
						mu.Unlock()
					}
					h.ServeHTTP(w, r)
				})
			}})
			c := s.config()
			c.Mode, c.N = tc.mode, 120
			var out bytes.Buffer
			require.NoError(t, run(context.Background(), c, &out), out.String())
			report := out.String()
			t.Log("\n" + report)
			require.Positive(t, fieldInt(t, report, "accepted"))
			require.Equal(t, 120, fieldInt(t, report, "accepted"))
			require.Equal(t, 120, fieldInt(t, report, "requests"))
			require.Equal(t, "none", field(t, report, "errors"))
			require.Equal(t, "PASS", field(t, report, "balance check"))
			require.Regexp(t, `^\d+\.\d{3} ms$`, field(t, report, "latency p99"))
			mu.Lock()
			defer mu.Unlock()
			for _, p := range tc.posts {
				require.Equal(t, 120, posts[p], "%s: %v", p, posts)
			}
			if tc.conversions {
				require.Contains(t, report, "reading each")
				require.Regexp(t, `conversion completed \d+`, field(t, report, "states"))
			}
			if tc.mode == modeDeskMove {
				require.Regexp(t, `^120 in \S+ \([0-9.]+/s\), 0 errors$`, field(t, report, "orders made first"))
				moved, err := s.eng.Operator().Desk().Orders(context.Background(), tambala.DeskQueue{Status: orders.Processing}, tambala.PageRequest{Limit: 200})
				require.NoError(t, err)
				require.Len(t, moved.Items, 120, "every order was moved")
			}
		})
	}
}

// Bounded by -duration, every mode still accounts for every create; the
// desk moves stop at the duration or when every order made first (for
// as long) was moved.
func TestV2ModesDuration(t *testing.T) {
	for _, mode := range []string{modeOrder, modePayoutV2, modeDeskMove} {
		t.Run(mode, func(t *testing.T) {
			s := newServer(t, serverOptions{limits: unlimited()})
			c := s.config()
			c.Mode, c.N, c.Duration = mode, 0, 200*time.Millisecond
			var out bytes.Buffer
			require.NoError(t, run(context.Background(), c, &out), out.String())
			report := out.String()
			t.Log("\n" + report)
			require.Positive(t, fieldInt(t, report, "accepted"))
			require.Equal(t, "none", field(t, report, "errors"))
			require.Equal(t, "PASS", field(t, report, "balance check"))
		})
	}
}

func TestModeRefusals(t *testing.T) {
	base := config{URL: "http://127.0.0.1:1", AdminURL: "http://127.0.0.1:1", AdminToken: testAdminToken,
		Clients: 4, N: 10, Amount: "1500.00", Rail: "momo", Timeout: time.Second}
	for _, tc := range []struct {
		edit func(*config)
		err  string
	}{
		{func(c *config) { c.Mode = "swap" }, `-mode must be one of payout, order, conversion, payout-v2, payout-fx, desk-move, not "swap"`},
		{func(c *config) { c.Mode, c.Key = modeOrder, "k" }, "drop -key"},
		{func(c *config) { c.Mode, c.Orgs = modeConversion, 2 }, "drop -orgs and -hot"},
		{func(c *config) { c.Mode, c.Hot, c.Duration = modeDeskMove, true, time.Second }, "drop -orgs and -hot"},
		{func(c *config) { c.Mode, c.IDsFile = modePayoutFX, "ids.txt" }, "-ids lists /v1 payouts"},
	} {
		c := base
		tc.edit(&c)
		var out bytes.Buffer
		require.ErrorContains(t, run(context.Background(), c, &out), tc.err)
		require.Empty(t, out.String())
	}
}

// USDT that appears between the balance reads is not explained by any
// create: FAIL, and a non-nil error.
func TestV2BalanceMismatchFails(t *testing.T) {
	var reads atomic.Int32
	var s *server
	s = newServer(t, serverOptions{limits: unlimited(), wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/v2/balances" && reads.Add(1) == 2 {
				list, err := s.eng.Operator().Organizations(r.Context())
				for _, o := range list {
					if err == nil && strings.HasPrefix(o.Name, "loadgen ") {
						err = s.eng.Operator().Fund(r.Context(), o.ID, money.FromInt(money.USDT, 7), "stray-credit")
					}
				}
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}})
	c := s.config()
	c.Mode, c.N = modePayoutV2, 30
	var out bytes.Buffer
	err := run(context.Background(), c, &out)
	t.Log("\n" + out.String())
	require.ErrorContains(t, err, "balance check failed")
	require.Equal(t, "FAIL: the balances are not what the creates explain", field(t, out.String(), "balance check"))
	require.Contains(t, out.String(), "available 287.000000 (expected 280.000000)")
}
