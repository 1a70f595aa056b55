package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/store"
)

const testAdminToken = "adm_loadgen_test_0123456789abcdefghijklmnopqrstuvwxyz"

// server is the real engine and handlers, in process, on loopback.
type server struct {
	eng      *tambala.Engine
	provider *sandbox.Provider
	pub, adm *httptest.Server
}

type serverOptions struct {
	limits tambala.Limits
	worker bool                            // run the payout worker
	wrap   func(http.Handler) http.Handler // around the public handler
	// conversions runs the conversion worker, with the sandbox converter
	// deciding each after convDelay (else conversions stay processing).
	conversions bool
	// store is the engine's store; nil: a memstore.
	store store.Store
}

func newServer(t *testing.T, o serverOptions) *server {
	t.Helper()
	var st store.Store = memstore.New()
	if o.store != nil {
		st = o.store
	}
	prov := sandbox.New(&sandbox.Options{Delay: time.Millisecond})
	eng, err := tambala.New(st, &tambala.Options{
		Limits: o.limits, Payouts: prov,
		Converter:        sandbox.NewConverter(&sandbox.ConverterOptions{Delay: convDelay}),
		ConversionWorker: tambala.ConversionWorkerOptions{Interval: 10 * time.Millisecond, Poll: 10 * time.Millisecond, Batch: 1000, Concurrency: 16},
		Worker:           tambala.WorkerOptions{Poll: 5 * time.Millisecond, Batch: 1000},
	})
	require.NoError(t, err)
	adm, err := httpapi.NewAdmin(eng, testAdminToken, nil)
	require.NoError(t, err)
	var pub http.Handler = httpapi.New(eng, nil)
	if o.wrap != nil {
		pub = o.wrap(pub)
	}
	s := &server{eng: eng, provider: prov, pub: httptest.NewServer(pub), adm: httptest.NewServer(adm)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		if o.conversions {
			wg.Go(func() { eng.Run(ctx, tambala.LoopConversions) }) //nolint:errcheck
		}
		if o.worker {
			eng.Work().RunPayoutWorker(ctx, 5*time.Millisecond) //nolint:errcheck
		}
		wg.Wait()
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		s.pub.Close()
		s.adm.Close()
		require.NoError(t, ledger.CheckStore(context.Background(), st), "the ledger must balance")
	})
	return s
}

func unlimited() tambala.Limits {
	return tambala.Limits{RatePerSecond: 1_000_000, RateBurst: 1_000_000}
}

func (s *server) config() config {
	return config{
		URL: s.pub.URL, AdminURL: s.adm.URL, AdminToken: testAdminToken,
		Clients: 8, N: 200, Amount: "1500.00", Rail: "momo", Timeout: 10 * time.Second,
	}
}

// field reads "name   value" from the report.
func field(t *testing.T, out, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `  +(.*)$`).FindStringSubmatch(out)
	require.NotNil(t, m, "no %q in:\n%s", name, out)
	return strings.TrimSpace(m[1])
}

func fieldInt(t *testing.T, out, name string) int {
	t.Helper()
	n, err := strconv.Atoi(field(t, out, name))
	require.NoError(t, err)
	return n
}

func TestLoadRunVerifyAndIDs(t *testing.T) {
	s := newServer(t, serverOptions{limits: unlimited()})
	c := s.config()
	c.IDsFile = filepath.Join(t.TempDir(), "ids.txt")
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), c, &out), out.String())
	report := out.String()
	t.Log("\n" + report)

	require.Equal(t, 200, fieldInt(t, report, "requests"))
	require.Equal(t, 200, fieldInt(t, report, "accepted"))
	require.Equal(t, "none", field(t, report, "errors"))
	require.Equal(t, "PASS", field(t, report, "balance check"))
	require.Equal(t, "200 × 1749.10 = 349820.00", field(t, report, "accepted holds")) // 1500 + 249.10 fee
	for _, p := range []string{"p50", "p90", "p99", "p99.9", "max"} {
		require.Regexp(t, `^\d+\.\d{3} ms$`, field(t, report, "latency "+p))
	}

	b, err := os.ReadFile(c.IDsFile)
	require.NoError(t, err)
	ids := strings.Fields(string(b))
	require.Len(t, ids, 200)
	seen := map[string]bool{}
	for _, id := range ids {
		require.False(t, seen[id], "id %s twice", id)
		seen[id] = true
	}

	// Every held payout is there, and the organization's balance says so.
	key := field(t, report, "api key")
	bal := s.balance(t, key)
	require.Equal(t, "349820.00", bal.Held.String())

	var vout bytes.Buffer
	require.NoError(t, run(context.Background(), config{URL: s.pub.URL, Key: key, VerifyFile: c.IDsFile, Clients: 4, Timeout: 5 * time.Second}, &vout))
	t.Log("\n" + vout.String())
	require.Equal(t, 200, fieldInt(t, vout.String(), "found"))
	require.Equal(t, 0, fieldInt(t, vout.String(), "missing"))
	// No worker runs here: with -settle the held payouts are reported as
	// not terminal, and that fails.
	vout.Reset()
	err = run(context.Background(), config{URL: s.pub.URL, Key: key, VerifyFile: c.IDsFile, Clients: 4, Timeout: 5 * time.Second, Settle: 300 * time.Millisecond}, &vout)
	require.ErrorContains(t, err, "200 of 200 payouts not terminal")
	require.Contains(t, vout.String(), "held 200")

	// An id the server never made is reported missing, and fails.
	require.NoError(t, os.WriteFile(c.IDsFile, []byte(ids[0]+"\n"+uuid.NewString()+"\n"), 0o600))
	vout.Reset()
	err = run(context.Background(), config{URL: s.pub.URL, Key: key, VerifyFile: c.IDsFile, Clients: 4, Timeout: 5 * time.Second}, &vout)
	require.ErrorContains(t, err, "1 of 2 payouts not found")
	require.Equal(t, 1, fieldInt(t, vout.String(), "found"))
	require.Equal(t, 1, fieldInt(t, vout.String(), "missing"))
}

func (s *server) balance(t *testing.T, key string) balance {
	t.Helper()
	b, err := readBalance(context.Background(), &endpoint{hc: http.DefaultClient, base: s.pub.URL, token: key})
	require.NoError(t, err)
	return b
}

// With the engine's default rate limit (50/s, burst 100) most of a fast
// run is refused: each refusal is counted by status and code, never
// retried, and the balance still adds up.
func TestRateLimitedCountedByCode(t *testing.T) {
	s := newServer(t, serverOptions{})
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), s.config(), &out), out.String())
	report := out.String()
	t.Log("\n" + report)
	accepted := fieldInt(t, report, "accepted")
	limited := fieldInt(t, report, "error 429 rate_limited")
	require.Positive(t, limited)
	require.Positive(t, accepted)
	require.Equal(t, 200, accepted+limited)
	require.Equal(t, "PASS", field(t, report, "balance check"))
}

// With the worker paying while the run goes on, and one test wallet scripted
// to fail, the check reads every payout and accounts for the released holds.
//
// How far the worker gets during the run depends on the machine, so the
// final balance read waits (up to 20 s) until the worker has failed at least
// one payout: the check then always has a released hold to account for.
func TestBalanceCheckWithSettlingPayouts(t *testing.T) {
	var reads atomic.Int32
	waitForFailed := func(h http.Handler, r *http.Request) {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			req := httptest.NewRequestWithContext(r.Context(), http.MethodGet, "/v1/payouts?status=failed&limit=1", nil)
			req.Header.Set("Authorization", r.Header.Get("Authorization"))
			req.RemoteAddr = r.RemoteAddr
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), `"status":"failed"`) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	s := newServer(t, serverOptions{limits: unlimited(), worker: true, wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/v1/balance" && reads.Add(1) == 2 {
				waitForFailed(h, r)
			}
			h.ServeHTTP(w, r)
		})
	}})
	s.provider.ScriptDestination(tambala.SandboxWallets[1], sandbox.Outcome{Fail: "recipient_account_invalid"})
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), s.config(), &out), out.String())
	report := out.String()
	t.Log("\n" + report)
	require.Equal(t, 200, fieldInt(t, report, "accepted"))
	require.Contains(t, report, "payouts settled, reading each")
	require.Equal(t, "PASS", field(t, report, "balance check"))
	require.Regexp(t, `(^|, )failed \d+`, field(t, report, "payouts"))
}

// Money that appears between the two balance reads (here an operator
// funding) is not explained by any payout: FAIL, and a non-nil error.
func TestBalanceMismatchFails(t *testing.T) {
	var reads atomic.Int32
	var s *server
	s = newServer(t, serverOptions{limits: unlimited(), wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/v1/balance" && reads.Add(1) == 2 {
				orgs, err := s.eng.Operator().Organizations(r.Context())
				if err == nil && len(orgs) == 1 {
					err = s.eng.Operator().Fund(r.Context(), orgs[0].ID, money.FromInt(money.MWK, 7), "stray-credit")
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
	c.N = 50
	var out bytes.Buffer
	err := run(context.Background(), c, &out)
	t.Log("\n" + out.String())
	require.ErrorContains(t, err, "balance check failed")
	require.Equal(t, "FAIL: available is off by 7.00", field(t, out.String(), "balance check"))
}

func TestDurationRun(t *testing.T) {
	s := newServer(t, serverOptions{limits: unlimited()})
	c := s.config()
	c.N, c.Duration, c.Rail = 0, 300*time.Millisecond, "bank"
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), c, &out), out.String())
	t.Log("\n" + out.String())
	require.Positive(t, fieldInt(t, out.String(), "accepted"))
	require.Equal(t, "PASS", field(t, out.String(), "balance check"))
}

func TestRefusesNonLoopbackTargets(t *testing.T) {
	ctx := context.Background()
	// Nothing is sent: IP literals need no resolution, and the check comes
	// before any request.
	for _, c := range []config{
		{URL: "http://10.1.2.3:8080", Key: "k"},
		{URL: "http://[2001:db8::1]:8080", Key: "k"},
		{URL: "http://127.0.0.1:1", AdminURL: "http://10.1.2.3:8081", AdminToken: testAdminToken},
		{URL: "http://10.1.2.3:8080", Key: "k", VerifyFile: "ids.txt"},
	} {
		c.Clients, c.N, c.Amount, c.Rail, c.Timeout = 1, 1, "1500.00", "momo", time.Second
		var out bytes.Buffer
		err := run(ctx, c, &out)
		require.ErrorContains(t, err, "is not a loopback address (pass -allow-remote", "%+v", c)
		require.Empty(t, out.String())
	}

	noLookup := func(context.Context, string) ([]netip.Addr, error) {
		t.Fatal("an IP literal must not be resolved")
		return nil, nil
	}
	for _, u := range []string{"http://127.0.0.1:8080", "http://127.1.2.3", "https://[::1]:8443/", "http://[::ffff:127.0.0.1]:80"} {
		require.NoError(t, checkTarget(ctx, u, false, noLookup), u)
	}
	for _, u := range []string{"ftp://127.0.0.1/", "127.0.0.1:8080", "http://"} {
		require.ErrorContains(t, checkTarget(ctx, u, false, noLookup), "not an http:// or https:// base address", u)
	}
	require.NoError(t, checkTarget(ctx, "http://10.1.2.3:8080", true, noLookup), "-allow-remote")

	// A name must resolve to loopback addresses only.
	lookup := func(addrs ...string) func(context.Context, string) ([]netip.Addr, error) {
		return func(context.Context, string) ([]netip.Addr, error) {
			var out []netip.Addr
			for _, a := range addrs {
				out = append(out, netip.MustParseAddr(a))
			}
			return out, nil
		}
	}
	require.NoError(t, checkTarget(ctx, "http://localhost:8080", false, lookup("127.0.0.1", "::1")))
	require.ErrorContains(t, checkTarget(ctx, "http://mixed.test:8080", false, lookup("127.0.0.1", "192.0.2.7")), "192.0.2.7 is not a loopback address")
	require.ErrorContains(t, checkTarget(ctx, "http://empty.test", false, lookup()), "resolves to no address")

	// The dialer refuses too, before connecting: a name that resolves
	// elsewhere later cannot slip through.
	hc := newHTTPClient(1, time.Second, false)
	_, err := hc.Get("http://192.0.2.7:9/")
	require.ErrorContains(t, err, "not a loopback address")
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 1000; i++ {
		d = append(d, time.Duration(i))
	}
	require.Equal(t, time.Duration(500), percentile(d, 50))
	require.Equal(t, time.Duration(990), percentile(d, 99))
	require.Equal(t, time.Duration(999), percentile(d, 99.9))
	require.Equal(t, time.Duration(1000), percentile(d, 100))
	require.Equal(t, time.Duration(0), percentile(nil, 50))
}

func TestKeygen(t *testing.T) {
	var g keygen
	seen := map[string]bool{}
	for range 1000 { // crosses a buffer refill
		k := g.next()
		u, err := uuid.Parse(k)
		require.NoError(t, err)
		require.Equal(t, uuid.Version(4), u.Version())
		require.Equal(t, uuid.RFC4122, u.Variant())
		require.False(t, seen[k])
		seen[k] = true
	}
}

func TestPayoutID(t *testing.T) {
	id := "01a1ff69-a364-7058-ac0e-3516559b50f5"
	require.Equal(t, id, payoutID([]byte(`{"id":"`+id+`","amount_mwk":"1500.00","status":"held"}`)))
	require.Equal(t, id, payoutID([]byte(`{"status":"held","id":"`+id+`"}`)), "any order decodes")
	require.Equal(t, "", payoutID([]byte(`not json`)))
}

// An interrupt stops the sending; what was sent is still checked.
func TestInterruptedRunIsStillChecked(t *testing.T) {
	s := newServer(t, serverOptions{limits: unlimited()})
	c := s.config()
	c.N = 1_000_000
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, c, &out), out.String())
	t.Log("\n" + out.String())
	require.Equal(t, "yes", field(t, out.String(), "interrupted"))
	require.Less(t, fieldInt(t, out.String(), "requests"), c.N)
	require.Equal(t, "PASS", field(t, out.String(), "balance check"))
}

// Several -url bases share the clients round-robin: two servers over one
// engine both take payouts, and the check (through the first) adds up.
func TestSeveralServers(t *testing.T) {
	var mu sync.Mutex
	posts := map[string]int{} // by host
	s := newServer(t, serverOptions{limits: unlimited(), wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				mu.Lock()
				posts[r.Host]++
				mu.Unlock()
			}
			h.ServeHTTP(w, r)
		})
	}})
	second := httptest.NewServer(s.pub.Config.Handler)
	t.Cleanup(second.Close)
	c := s.config()
	c.URL = s.pub.URL + "," + second.URL + "/"
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), c, &out), out.String())
	report := out.String()
	require.Equal(t, 200, fieldInt(t, report, "accepted"))
	require.Equal(t, "PASS", field(t, report, "balance check"))
	mu.Lock()
	defer mu.Unlock()
	first, other := strings.TrimPrefix(s.pub.URL, "http://"), strings.TrimPrefix(second.URL, "http://")
	require.Positive(t, posts[other], "%v", posts)
	require.Positive(t, posts[first], "%v", posts)
	require.GreaterOrEqual(t, posts[first]+posts[other], 200, "%v", posts) // and the fee quotes
}

// -orgs creates that many organizations and spreads the clients over them:
// each is paid from, and each one's money is checked.
func TestManyOrganizations(t *testing.T) {
	for _, tc := range []struct {
		name          string
		orgs, clients int
	}{
		{"fewer organizations than clients", 3, 8},
		{"more organizations than clients", 5, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			posts := map[string]int{} // by API key
			s := newServer(t, serverOptions{limits: unlimited(), wrap: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost && r.URL.Path == "/v1/payouts/momo" {
						mu.Lock()
						posts[r.Header.Get("Authorization")]++
						mu.Unlock()
					}
					h.ServeHTTP(w, r)
				})
			}})
			c := s.config()
			c.Orgs, c.Clients, c.N = tc.orgs, tc.clients, 60
			var out bytes.Buffer
			require.NoError(t, run(context.Background(), c, &out), out.String())
			report := out.String()
			t.Log("\n" + report)
			require.Contains(t, field(t, report, "target"), "over "+strconv.Itoa(tc.orgs)+" organizations")
			require.Regexp(t, `^`+strconv.Itoa(tc.orgs)+` \("loadgen .* #1" to "loadgen .* #`+strconv.Itoa(tc.orgs)+`"\), each funded with [0-9.]+ MWK$`, field(t, report, "organizations"))
			require.NotContains(t, report, "api key")
			require.Equal(t, 60, fieldInt(t, report, "accepted"))
			require.Equal(t, "none", field(t, report, "errors"))
			for i := 1; i <= tc.orgs; i++ {
				require.Regexp(t, `^\d+ requests, \d+ accepted, [0-9.]+ accepted/s, p50 \d+\.\d{3} ms, p90 \d+\.\d{3} ms, p99 \d+\.\d{3} ms, max \d+\.\d{3} ms$`,
					field(t, report, "org "+strconv.Itoa(i)))
			}
			require.Equal(t, "60 payouts over "+strconv.Itoa(tc.orgs)+" organizations", field(t, report, "accepted holds"))
			require.Equal(t, "PASS ("+strconv.Itoa(tc.orgs)+" organizations)", field(t, report, "balance check"))

			orgs, err := s.eng.Operator().Organizations(context.Background())
			require.NoError(t, err)
			require.Len(t, orgs, tc.orgs)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, posts, tc.orgs, "every organization is paid from")
			for k, n := range posts {
				require.Positive(t, n, k)
			}
		})
	}
}

// Many organizations are reported in at most maxGroups groups.
func TestOrgGroups(t *testing.T) {
	g := orgGroups(config{Orgs: 1000})
	require.Len(t, g, maxGroups)
	require.Equal(t, "orgs 1-125", g[0].name)
	require.Equal(t, "orgs 876-1000", g[7].name)
	require.Len(t, g[7].orgs, 125)
	g = orgGroups(config{Orgs: 10})
	require.Equal(t, []string{"orgs 1-2", "orgs 3-4", "orgs 5-6", "orgs 7-8", "orgs 9-10"}, []string{g[0].name, g[1].name, g[2].name, g[3].name, g[4].name})
	require.Equal(t, []group{{"hot", []int{0}}, {"quiet", []int{1}}}, orgGroups(config{Hot: true}))

	plan := planClients(config{Orgs: 5, Clients: 2}, []string{"a"})
	require.Equal(t, [][]int{{0, 2, 4}, {1, 3}}, [][]int{plan[0].orgs, plan[1].orgs})
	plan = planClients(config{Hot: true, Clients: 3}, []string{"a", "b"})
	require.Equal(t, []client{{"a", []int{0}, 0}, {"b", []int{0}, 0}, {"a", []int{1}, defaultQuietEvery}}, plan)
}

// One organization of several gaining money no payout explains fails the
// check, and the report names it.
func TestManyOrganizationsMismatchFails(t *testing.T) {
	var checking atomic.Bool
	var once sync.Once
	var s *server
	s = newServer(t, serverOptions{limits: unlimited(), wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/v1/balance" && checking.Load() {
				var err error
				once.Do(func() {
					var list []orgs.Organization
					if list, err = s.eng.Operator().Organizations(r.Context()); err != nil {
						return
					}
					for _, o := range list {
						if strings.HasSuffix(o.Name, " #2") {
							err = s.eng.Operator().Fund(r.Context(), o.ID, money.FromInt(money.MWK, 7), "stray-credit")
						}
					}
				})
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
			}
			if r.Method == http.MethodPost && r.URL.Path == "/v1/payouts/momo" {
				checking.Store(true) // the start balances were read
			}
			h.ServeHTTP(w, r)
		})
	}})
	c := s.config()
	c.Orgs, c.N = 3, 30
	var out bytes.Buffer
	err := run(context.Background(), c, &out)
	t.Log("\n" + out.String())
	require.ErrorContains(t, err, "balance check failed")
	require.Regexp(t, `^2 of 3, [0-9a-f-]{36}$`, field(t, out.String(), "organization"))
	require.Contains(t, out.String(), "FAIL: available is off by 7.00")
	require.Equal(t, "FAIL: 1 of 3 organizations", regexp.MustCompile(`(?m)^balance check +(.*)$`).FindAllStringSubmatch(out.String(), -1)[1][1])
}

// -hot: the quiet organization runs alone at its pace, then beside the
// flood; the report gives both p50/p99s and the ratio of the p99s, and
// both organizations' money is checked.
func TestHotAndQuiet(t *testing.T) {
	s := newServer(t, serverOptions{limits: unlimited()})
	c := s.config()
	c.Hot, c.Clients, c.N, c.Duration, c.QuietEvery = true, 4, 0, 300*time.Millisecond, 5*time.Millisecond
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), c, &out), out.String())
	report := out.String()
	t.Log("\n" + report)
	require.Contains(t, field(t, report, "target"), "4 clients, 3 on a hot organization and 1 on a quiet one (a request every 5ms), for 300ms")
	require.Regexp(t, `^[0-9a-f-]{36} \("loadgen .* hot"\), funded with`, field(t, report, "hot organization"))
	require.Regexp(t, `^[0-9a-f-]{36} \("loadgen .* quiet"\), funded with`, field(t, report, "quiet organization"))
	require.NotEmpty(t, field(t, report, "hot api key"))
	require.NotEmpty(t, field(t, report, "quiet api key"))
	for _, g := range []string{"hot", "quiet"} {
		require.Regexp(t, `^\d+ requests, \d+ accepted, [0-9.]+ accepted/s, p50 \d+\.\d{3} ms, p90 .* ms, p99 \d+\.\d{3} ms, max .* ms$`,
			field(t, report, g))
	}
	// At one request every 5 ms for 300 ms: about 60, one at a time.
	for _, phase := range []string{"unloaded", "loaded"} {
		n := fieldInt(t, report, "quiet "+phase+" sent")
		require.Positive(t, n, phase)
		require.LessOrEqual(t, n, 61, phase)
		require.Regexp(t, `^\d+\.\d{3} ms$`, field(t, report, "quiet "+phase+" p50"))
		require.Regexp(t, `^\d+\.\d{3} ms$`, field(t, report, "quiet "+phase+" p99"))
	}
	require.Regexp(t, `^\d+\.\d{2} \(loaded / unloaded; target at most 2\)$`, field(t, report, "quiet p99 ratio"))
	require.Greater(t, fieldInt(t, report, "requests"), fieldInt(t, report, "quiet loaded sent"), "the flood outnumbers the quiet one")
	require.Equal(t, "PASS (2 organizations)", field(t, report, "balance check"))
}

func TestManyOrganizationsRefusals(t *testing.T) {
	base := config{URL: "http://127.0.0.1:1", AdminURL: "http://127.0.0.1:1", AdminToken: testAdminToken,
		Clients: 4, N: 10, Amount: "1500.00", Rail: "momo", Timeout: time.Second}
	for _, tc := range []struct {
		edit func(*config)
		err  string
	}{
		{func(c *config) { c.Orgs = -1 }, "-orgs must be at least 1"},
		{func(c *config) { c.Orgs, c.Key = 2, "k" }, "drop -key"},
		{func(c *config) { c.Orgs, c.IDsFile = 2, "ids.txt" }, "-ids needs a single organization"},
		{func(c *config) { c.Hot, c.Duration = true, 0 }, "-hot needs -duration"},
		{func(c *config) { c.Hot, c.Duration, c.Clients = true, time.Second, 1 }, "-hot needs at least 2 -clients"},
		{func(c *config) { c.Hot, c.Duration, c.Orgs = true, time.Second, 3 }, "drop -orgs"},
	} {
		c := base
		tc.edit(&c)
		var out bytes.Buffer
		require.ErrorContains(t, run(context.Background(), c, &out), tc.err)
		require.Empty(t, out.String())
	}
}
