package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/money"
)

// config is what the flags set.
type config struct {
	URL          string        // public API bases, comma-separated: the load spreads over them
	AdminURL     string        // admin API base (setup only)
	AdminToken   string        // admin token; empty reads DataDir/admin-token
	DataDir      string        // the server's data folder
	Key          string        // an existing API key; empty creates an organization
	Clients      int           // concurrent clients
	N            int           // payouts to send; 0 with Duration set: unbounded
	Duration     time.Duration // how long to send; 0: until N are sent
	Amount       string        // amount_mwk of each payout
	Rail         string        // momo or bank
	AllowRemote  bool          // allow a non-loopback target
	IDsFile      string        // where accepted payout ids go
	VerifyFile   string        // verify mode: ids to look up
	Timeout      time.Duration // per request
	Settle       time.Duration // verify mode: wait this long for every payout to be terminal
	PGBench      string        // a scratch database to run pgbench's tpcb-like baseline on first; empty: none
	PGBenchBin   string        // the pgbench executable (default "pgbench")
	PGBenchTime  time.Duration // how long the baseline runs (default 10s)
	Bare         bool          // instead of a load run, drive a bare net/http JSON handler in this process
	BareBaseline bool          // before the load, run the bare handler for BareTime and print the ratio
	BareTime     time.Duration // how long the bare baseline runs (default 10s)
	PGStats      string        // the server's PostgreSQL database: print its rows per accept; empty: none
	Orgs         int           // organizations to create and spread the clients over; 0 or 1: one
	Hot          bool          // one hot organization floods, one quiet one sends at a steady pace
	QuietEvery   time.Duration // with Hot: the quiet organization's pace (default 10ms)
	Mode         string        // what each request does (modes); empty: payout
}

// mode is the run's -mode: payout unless set.
// pgbenchBaseline runs pgbench's tpcb-like workload when -pgbench names a
// scratch database, before the load, and returns the run and its tps
// (zero without -pgbench).
func (c *config) pgbenchBaseline(ctx context.Context) (pgbenchRun, float64, error) {
	if c.PGBench == "" {
		return pgbenchRun{}, 0, nil
	}
	baseline := pgbenchRun{bin: c.PGBenchBin, db: c.PGBench, clients: c.Clients, duration: c.PGBenchTime}
	if baseline.bin == "" {
		baseline.bin = "pgbench"
	}
	if baseline.duration <= 0 {
		baseline.duration = 10 * time.Second
	}
	tps, err := baseline.tps(ctx)
	if err != nil {
		return baseline, 0, fmt.Errorf("the pgbench baseline: %w", err)
	}
	return baseline, tps, nil
}

func (c *config) mode() string {
	if c.Mode == "" {
		return modePayout
	}
	return c.Mode
}

// defaultQuietEvery is the quiet organization's pace when -quiet-every is
// not set.
const defaultQuietEvery = 10 * time.Millisecond

// orgCount is how many organizations the run pays from: two with -hot.
func (c *config) orgCount() int {
	if c.Hot {
		return 2
	}
	return max(c.Orgs, 1)
}

// quietEvery is the pace of -hot's quiet organization.
func (c *config) quietEvery() time.Duration {
	if c.QuietEvery > 0 {
		return c.QuietEvery
	}
	return defaultQuietEvery
}

// The sandbox institutions the bodies name: Airtel Money for the test
// wallets (exempt from the network check) and bank 1 for the test accounts.
const (
	momoInstitution = 101
	bankInstitution = 1
)

// fundRatePerSecond sizes the funding of a -duration run without -n: enough
// for this many accepted payouts per second, well above the target.
const fundRatePerSecond = 100_000

func (c *config) validate() (money.Amount, error) {
	if c.Clients < 1 {
		return money.Amount{}, errors.New("-clients must be at least 1")
	}
	if c.Timeout <= 0 {
		return money.Amount{}, errors.New("-timeout must be positive")
	}
	if c.Bare {
		switch {
		case c.VerifyFile != "", c.Hot, c.Orgs > 1, c.IDsFile != "", c.PGBench != "", c.BareBaseline, c.PGStats != "", c.mode() != modePayout:
			return money.Amount{}, errors.New("-bare drives a bare handler in this process: drop -verify, -hot, -orgs, -ids, -pgbench, -bare-baseline, -pg-stats and -mode")
		}
	}
	if c.VerifyFile != "" {
		if c.Key == "" {
			return money.Amount{}, errors.New("-verify needs -key (the API key of the organization that made the payouts; a load run prints it)")
		}
		return money.Amount{}, nil
	}
	if c.N < 0 || c.Duration < 0 || (c.N == 0 && c.Duration == 0) {
		return money.Amount{}, errors.New("give a positive -n or -duration")
	}
	if !slices.Contains(modes, c.mode()) {
		return money.Amount{}, fmt.Errorf("-mode must be one of %s, not %q", strings.Join(modes, ", "), c.Mode)
	}
	if c.mode() != modePayout {
		switch {
		case c.Key != "":
			return money.Amount{}, fmt.Errorf("-mode %s sets its organization up (/v2 access, assets, USDT): drop -key", c.mode())
		case c.Orgs > 1 || c.Hot:
			return money.Amount{}, fmt.Errorf("-mode %s uses one organization: drop -orgs and -hot", c.mode())
		case c.IDsFile != "":
			return money.Amount{}, errors.New("-ids lists /v1 payouts: it needs -mode payout")
		case c.PGStats != "":
			return money.Amount{}, errors.New("-pg-stats counts the rows of /v1 payouts: it needs -mode payout")
		}
	}
	if c.Orgs < 0 {
		return money.Amount{}, errors.New("-orgs must be at least 1")
	}
	if c.QuietEvery < 0 {
		return money.Amount{}, errors.New("-quiet-every must be positive")
	}
	if c.Hot {
		switch {
		case c.Orgs > 1:
			return money.Amount{}, errors.New("-hot uses two organizations of its own: drop -orgs")
		case c.Clients < 2:
			return money.Amount{}, errors.New("-hot needs at least 2 -clients (all but one flood, one is quiet)")
		case c.Duration <= 0:
			return money.Amount{}, errors.New("-hot needs -duration: the quiet organization runs that long alone, then as long under the flood")
		}
	}
	if c.orgCount() > 1 {
		if c.Key != "" {
			return money.Amount{}, errors.New("-orgs and -hot create their organizations: drop -key")
		}
		if c.IDsFile != "" {
			return money.Amount{}, errors.New("-ids needs a single organization (-verify reads with one API key)")
		}
	}
	if c.Rail != "momo" && c.Rail != "bank" {
		return money.Amount{}, fmt.Errorf("-rail must be momo or bank, not %q", c.Rail)
	}
	amt, err := money.Parse(money.MWK, c.Amount)
	if err != nil {
		return money.Amount{}, fmt.Errorf("-amount: %w", err)
	}
	if amt.Sign() <= 0 {
		return money.Amount{}, errors.New("-amount must be positive")
	}
	return amt, nil
}

// run is the whole command: a load run and its balance check, or -verify.
func run(ctx context.Context, c config, out io.Writer) error {
	amount, err := c.validate()
	if err != nil {
		return err
	}
	if c.Bare {
		return runBare(ctx, c, amount, out)
	}
	bases := strings.Split(c.URL, ",")
	for i, u := range bases {
		if err := checkTarget(ctx, u, c.AllowRemote, lookupHost); err != nil {
			return err
		}
		bases[i] = strings.TrimRight(u, "/")
	}
	setup := c.VerifyFile == "" && c.Key == ""
	if setup {
		if err := checkTarget(ctx, c.AdminURL, c.AllowRemote, lookupHost); err != nil {
			return err
		}
	}
	hc := newHTTPClient(c.Clients, c.Timeout, c.AllowRemote)
	defer hc.CloseIdleConnections()
	// Setup, the balance check and replays go through the first server.
	pub := &endpoint{hc: hc, base: bases[0], token: c.Key}
	if c.VerifyFile != "" {
		return verify(ctx, pub, c.VerifyFile, c.Clients, c.Settle, out)
	}

	// orgs are the organizations the run pays from, each with its API
	// key: one unless -orgs or -hot.
	orgs := []*endpoint{pub}
	var adm *endpoint
	if setup {
		token := c.AdminToken
		if token == "" {
			b, err := os.ReadFile(filepath.Join(c.DataDir, "admin-token"))
			if err != nil {
				return fmt.Errorf("reading the admin token (give -admin-token or -data): %w", err)
			}
			token = strings.TrimSpace(string(b))
		}
		adm = &endpoint{hc: hc, base: strings.TrimRight(c.AdminURL, "/"), token: token}
		if orgs, err = setupOrgs(ctx, adm, pub, c, amount, out); err != nil {
			return err
		}
	}
	if c.mode() != modePayout {
		return runV2(ctx, c, hc, bases, orgs[0], adm, amount, out)
	}
	holds := make([]money.Amount, len(orgs))
	starts := make([]balance, len(orgs))
	if err := forEach(len(orgs), c.Clients, func(i int) error {
		var err error
		if holds[i], err = quoteTotalDebit(ctx, orgs[i], c.Rail, amount); err != nil {
			return err
		}
		starts[i], err = readBalance(ctx, orgs[i])
		return err
	}); err != nil {
		return err
	}
	if !starts[0].Held.IsZero() {
		fmt.Fprintf(out, "warning: the organization holds %s MWK for payouts in flight already; if they settle during the run the balance check fails\n", starts[0].Held)
	}
	baseline, tps, err := c.pgbenchBaseline(ctx)
	if err != nil {
		return err
	}
	bare, err := c.bareBaseline(ctx, amount)
	if err != nil {
		return err
	}
	urls := make([]string, len(bases))
	for i, b := range bases {
		urls[i] = b + "/v1/payouts/" + c.Rail
	}
	spread := ""
	switch {
	case c.Hot:
		spread = fmt.Sprintf(", %d on a hot organization and 1 on a quiet one (a request every %s)", c.Clients-1, c.quietEvery())
	case len(orgs) > 1:
		spread = fmt.Sprintf(" over %d organizations", len(orgs))
	}
	fmt.Fprintf(out, "%-*s%s, %s MWK each, %d clients%s, %s\n", labelWidth, "target",
		strings.Join(urls, " and "), amount, c.Clients, spread, bounds(c))
	keys := make([]string, len(orgs))
	for i, o := range orgs {
		keys[i] = o.token
	}
	bodies := payoutBodies(c.Rail, amount)
	plan := planClients(c, urls)
	// -hot: the quiet organization first runs alone at its pace, for its
	// unloaded latency; then beside the flood.
	var alone *result
	if c.Hot {
		quiet := plan[len(plan)-1]
		alone = runLoad(ctx, hc, loadParams{clients: []client{quiet}, keys: keys, bodies: bodies, n: c.N, duration: c.Duration})
	}
	stats, err := openPGStats(ctx, c.PGStats)
	if err != nil {
		return err
	}
	defer stats.close(context.WithoutCancel(ctx))
	var before rowCounts
	if stats != nil {
		if before, err = stats.read(ctx, pgStatsWait); err != nil {
			return fmt.Errorf("-pg-stats: %w", err)
		}
	}
	res := runLoad(ctx, hc, loadParams{clients: plan, keys: keys, bodies: bodies, n: c.N, duration: c.Duration})
	var rows rowCounts
	if stats != nil {
		after, err := stats.read(context.WithoutCancel(ctx), pgStatsWait)
		if err != nil {
			return fmt.Errorf("-pg-stats: %w", err)
		}
		rows = after.minus(before)
	}
	// An interrupt stops the sending only: what was sent is still resolved
	// and checked (a second interrupt kills the command).
	ctx = context.WithoutCancel(ctx)
	runs := []*result{res}
	if alone != nil {
		alone.resolveUnknown(ctx, orgs, "/v1/payouts/"+c.Rail, c.Clients)
		runs = append(runs, alone)
	}
	res.resolveUnknown(ctx, orgs, "/v1/payouts/"+c.Rail, c.Clients)
	if c.IDsFile != "" {
		if err := writeIDs(c.IDsFile, res.ids); err != nil {
			return err
		}
	}
	printReport(out, res)
	if len(orgs) > 1 {
		printGroups(out, res, orgGroups(c))
	}
	if alone != nil {
		printQuiet(out, alone, res)
	}
	if c.PGBench != "" {
		printBaseline(out, tps, baseline, res.accepted, res.wall)
	}
	if c.BareBaseline {
		printBare(out, bare, res.accepted, res.wall)
	}
	if stats != nil {
		printPGStats(out, rows, res.accepted)
	}
	var ok bool
	if len(orgs) == 1 {
		ok, err = checkBalance(ctx, orgs[0], c.Clients, starts[0], holds[0], res, out)
	} else {
		ok, err = checkOrgs(ctx, orgs, c.Clients, starts, holds, runs, out)
	}
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("balance check failed")
	}
	return nil
}

// forEach calls fn(i) for i in [0, n) on up to conc goroutines and returns
// the first error; after one, the calls not started are skipped.
func forEach(n, conc int, fn func(i int) error) error {
	var mu sync.Mutex
	var first error
	var failed atomic.Bool
	parallel(n, max(conc, 1), func(i int) {
		if failed.Load() {
			return
		}
		if err := fn(i); err != nil {
			failed.Store(true)
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
	})
	return first
}

// ---------------------------------------------------------------------------
// Targets and the HTTP client.

func lookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// checkTarget refuses a URL that is not http(s), and unless allowRemote one
// whose host resolves to anything but loopback addresses.
func checkTarget(ctx context.Context, raw string, allowRemote bool, lookup func(context.Context, string) ([]netip.Addr, error)) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// base address", raw)
	}
	if allowRemote {
		return nil
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = lookup(ctx, host); err != nil {
		return fmt.Errorf("resolving %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("%s resolves to no address", host)
	}
	for _, a := range addrs {
		if !a.Unmap().IsLoopback() {
			return fmt.Errorf("refusing %s: %s is not a loopback address (pass -allow-remote to load a remote server)", raw, a)
		}
	}
	return nil
}

// loopbackOnly is a dialer Control that refuses any non-loopback address,
// whatever DNS answered after checkTarget.
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return fmt.Errorf("refusing to connect to %s: not a loopback address", address)
	}
	return nil
}

// newHTTPClient returns the one client of a run: keep-alive connections for
// every worker, no proxy, no redirects, no compression.
func newHTTPClient(clients int, timeout time.Duration, allowRemote bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !allowRemote {
		d.Control = loopbackOnly
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         d.DialContext,
			MaxIdleConns:        2*clients + 16,
			MaxIdleConnsPerHost: clients + 16,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second,
			DisableCompression:  true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// endpoint is one API base and the bearer token it takes.
type endpoint struct {
	hc    *http.Client
	base  string
	token string
	org   string // the organization's id when the run created it, for reports
}

// apiError is a response that was not the expected status.
type apiError struct {
	Method, Path string
	Status       int
	Code         string
	Body         string
}

func (e *apiError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Code)
	}
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Body)
}

// errorCode reads the code of an error envelope, "" when there is none.
func errorCode(body []byte) string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	return env.Error.Code
}

// send does one request and reads the whole response.
func (e *endpoint) send(ctx context.Context, method, path string, body []byte, header http.Header) (int, http.Header, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.base+path, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b, err
}

// call sends in as JSON (nil: no body), wants status want and decodes the
// response into out (nil: discard).
func (e *endpoint) call(ctx context.Context, method, path string, in any, want int, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	status, _, b, err := e.send(ctx, method, path, body, nil)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if status != want {
		return &apiError{Method: method, Path: path, Status: status, Code: errorCode(b), Body: strings.TrimSpace(string(b))}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: reading the response: %w", method, path, err)
	}
	return nil
}

// getRetrying GETs path, waiting out 429s (Retry-After), transport errors
// and 5xx a few times: reads are safe to repeat.
func (e *endpoint) getRetrying(ctx context.Context, path string) (int, []byte, error) {
	var lastErr error
	for attempt := 0; attempt < 20; attempt++ {
		status, h, b, err := e.send(ctx, http.MethodGet, path, nil, nil)
		switch {
		case err != nil:
			lastErr = err
		case status == http.StatusTooManyRequests:
			lastErr = fmt.Errorf("429 %s", errorCode(b))
			if s, _ := strconv.Atoi(h.Get("Retry-After")); s > 0 {
				if err := sleep(ctx, time.Duration(min(s, 5))*time.Second); err != nil {
					return 0, nil, err
				}
				continue
			}
		case status >= 500:
			lastErr = fmt.Errorf("%d %s", status, errorCode(b))
		default:
			return status, b, nil
		}
		if err := sleep(ctx, time.Duration(attempt+1)*50*time.Millisecond); err != nil {
			return 0, nil, err
		}
	}
	return 0, nil, fmt.Errorf("GET %s: %w", path, lastErr)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ---------------------------------------------------------------------------
// Setup through the admin API.

// setupOrgs creates, keys, funds and unthrottles the run's fresh
// organizations (-orgs of them, two with -hot), clients at a time, and
// returns an endpoint with each one's API key.
func setupOrgs(ctx context.Context, adm, pub *endpoint, c config, amount money.Amount, out io.Writer) ([]*endpoint, error) {
	n := c.orgCount()
	stamp := "loadgen " + time.Now().UTC().Format(time.RFC3339)
	orgs := make([]orgInfo, n)
	err := forEach(n, c.Clients, func(i int) error {
		name := stamp
		switch {
		case c.Hot:
			name += []string{" hot", " quiet"}[i]
		case n > 1:
			name += fmt.Sprintf(" #%d", i+1)
		}
		var err error
		orgs[i], err = setupOrg(ctx, adm, pub, c, amount, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	switch {
	case c.Hot:
		for _, o := range orgs {
			role := strings.TrimPrefix(o.Name, stamp+" ")
			fmt.Fprintf(out, "%-*s%s (%q), funded with %s MWK\n", labelWidth, role+" organization", o.ID, o.Name, o.Funding)
			fmt.Fprintf(out, "%-*s%s\n", labelWidth, role+" api key", o.Key)
		}
	case n > 1:
		fmt.Fprintf(out, "%-*s%d (%q to %q), each funded with %s MWK\n", labelWidth, "organizations", n, orgs[0].Name, orgs[n-1].Name, orgs[0].Funding)
	default:
		fmt.Fprintf(out, "%-*s%s (%q), funded with %s MWK\n", labelWidth, "organization", orgs[0].ID, orgs[0].Name, orgs[0].Funding)
		fmt.Fprintf(out, "%-*s%s\n", labelWidth, "api key", orgs[0].Key)
	}
	eps := make([]*endpoint, n)
	for i, o := range orgs {
		e := *pub
		e.token, e.org = o.Key, o.ID
		eps[i] = &e
	}
	return eps, nil
}

// orgInfo is one organization a run created.
type orgInfo struct {
	ID, Name, Key string
	Funding       money.Amount
}

// setupOrg creates, keys, funds and unthrottles a fresh organization.
func setupOrg(ctx context.Context, adm, pub *endpoint, c config, amount money.Amount, name string) (orgInfo, error) {
	var org struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err := adm.call(ctx, http.MethodPost, "/admin/orgs", map[string]any{"name": name}, http.StatusCreated, &org); err != nil {
		return orgInfo{}, fmt.Errorf("creating the organization: %w", err)
	}
	var key struct {
		Key string `json:"key"`
	}
	if err := adm.call(ctx, http.MethodPost, "/admin/orgs/"+org.ID+"/keys", nil, http.StatusCreated, &key); err != nil {
		return orgInfo{}, fmt.Errorf("creating an API key: %w", err)
	}
	withKey := *pub
	withKey.token = key.Key
	hold, err := quoteTotalDebit(ctx, &withKey, c.Rail, amount)
	if err != nil {
		return orgInfo{}, err
	}
	count := int64(c.N)
	if c.Duration > 0 {
		count = max(count, int64(math.Ceil(c.Duration.Seconds()*fundRatePerSecond)))
	}
	funding, err := mulInt(hold, count+count/10+10) // a tenth more, and a few
	if err != nil {
		return orgInfo{}, err
	}
	if err := adm.call(ctx, http.MethodPost, "/admin/orgs/"+org.ID+"/funding",
		map[string]any{"asset": "MWK", "amount": funding.String(), "ref": "loadgen-" + uuid.NewString()}, http.StatusOK, nil); err != nil {
		return orgInfo{}, fmt.Errorf("funding the organization: %w", err)
	}
	// The daily volume cap is on amounts; the hourly count on payouts.
	volume, err := mulInt(amount, 2*count+10)
	if err != nil {
		return orgInfo{}, err
	}
	limits := map[string]any{ // the admin API's body, in its field names
		"max_per_payout_mwk": maxAmount(amount, tambala.DefaultPayoutLimits().MaxPerPayoutMWK).String(),
		"daily_volume_mwk":   volume.String(),
		"hourly_count":       int(min(2*count+10, math.MaxInt32)),
	}
	if err := adm.call(ctx, http.MethodPut, "/admin/orgs/"+org.ID+"/payout-limits", limits, http.StatusOK, nil); err != nil {
		return orgInfo{}, fmt.Errorf("raising the payout limits: %w", err)
	}
	return orgInfo{ID: org.ID, Name: name, Key: key.Key, Funding: funding}, nil
}

// maxAmount is the larger of a and b.
func maxAmount(a, b money.Amount) money.Amount {
	if a.Cmp(b) > 0 {
		return a
	}
	return b
}

// mulInt is a × n, exactly.
func mulInt(a money.Amount, n int64) (money.Amount, error) {
	ctx := apd.BaseContext.WithPrecision(100)
	ctx.Traps |= apd.Inexact
	var d apd.Decimal
	if _, err := ctx.Mul(&d, a.Decimal(), apd.New(n, 0)); err != nil {
		return money.Amount{}, err
	}
	return money.FromDecimal(a.Asset(), &d)
}

// quoteTotalDebit prices one payout: what it holds from available.
func quoteTotalDebit(ctx context.Context, pub *endpoint, rail string, amount money.Amount) (money.Amount, error) {
	var q struct {
		TotalDebit *string `json:"total_debit"`
	}
	in := map[string]any{"direction": "payout", "rail": rail, "amount_mwk": amount.String()}
	if err := pub.call(ctx, http.MethodPost, "/v1/fees/quote", in, http.StatusOK, &q); err != nil {
		return money.Amount{}, fmt.Errorf("quoting the fee: %w", err)
	}
	if q.TotalDebit == nil {
		return money.Amount{}, errors.New("the fee quote has no total_debit")
	}
	return money.Parse(money.MWK, *q.TotalDebit)
}

// balance is GET /v1/balance.
type balance struct {
	Available, Held, Shortfall money.Amount
}

func readBalance(ctx context.Context, pub *endpoint) (balance, error) {
	var b struct {
		Available string `json:"available"`
		Held      string `json:"held"`
		Shortfall string `json:"shortfall"`
	}
	status, body, err := pub.getRetrying(ctx, "/v1/balance")
	if err != nil {
		return balance{}, err
	}
	if status != http.StatusOK {
		return balance{}, &apiError{Method: "GET", Path: "/v1/balance", Status: status, Code: errorCode(body), Body: string(body)}
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return balance{}, fmt.Errorf("GET /v1/balance: %w", err)
	}
	var out balance
	for _, f := range []struct {
		dst *money.Amount
		s   string
	}{{&out.Available, b.Available}, {&out.Held, b.Held}, {&out.Shortfall, b.Shortfall}} {
		if f.s == "" {
			f.s = "0"
		}
		if *f.dst, err = money.ParseSigned(money.MWK, f.s); err != nil {
			return balance{}, fmt.Errorf("GET /v1/balance: %w", err)
		}
	}
	return out, nil
}

// payoutBodies are the request bodies of a run, built once: one per sandbox
// test destination, all of the same amount.
func payoutBodies(rail string, amount money.Amount) [][]byte {
	var out [][]byte
	if rail == "bank" {
		for _, acct := range tambala.SandboxBankAccounts {
			b, _ := json.Marshal(map[string]any{"amount_mwk": amount.String(), "institution_id": bankInstitution, "account_number": acct, "beneficiary_name": "Load Test"})
			out = append(out, b)
		}
		return out
	}
	for _, w := range tambala.SandboxWallets {
		b, _ := json.Marshal(map[string]any{"amount_mwk": amount.String(), "institution_id": momoInstitution, "mobile_number": w, "beneficiary_name": "Load Test"})
		out = append(out, b)
	}
	return out
}

// ---------------------------------------------------------------------------
// The load.

type loadParams struct {
	clients  []client
	keys     []string // API key of each organization, by index
	bodies   [][]byte
	n        int           // 0: no count bound
	duration time.Duration // 0: no time bound
}

// client is what one worker does.
type client struct {
	url   string        // where it sends
	orgs  []int         // the organizations it pays from, taking turns
	every time.Duration // 0: at full speed; else one request every so often, one at a time
}

// planClients spreads -clients over the organizations: client i pays from
// organization i modulo their number and sends to base i modulo theirs.
// With more organizations than clients, client i takes turns over
// organizations i, i+clients, i+2·clients… so every one is paid from.
// With -hot, every client but the last floods organization 0 and the last
// paces organization 1.
func planClients(c config, urls []string) []client {
	n := c.orgCount()
	plan := make([]client, c.Clients)
	for i := range plan {
		plan[i].url = urls[i%len(urls)]
		switch {
		case c.Hot && i == c.Clients-1:
			plan[i].orgs, plan[i].every = []int{1}, c.quietEvery()
		case c.Hot:
			plan[i].orgs = []int{0}
		case n <= c.Clients:
			plan[i].orgs = []int{i % n}
		default:
			for j := i; j < n; j += c.Clients {
				plan[i].orgs = append(plan[i].orgs, j)
			}
		}
	}
	return plan
}

// attempt is a payout request whose outcome is not known yet.
type attempt struct {
	org  int
	key  string
	body []byte
}

// tally is what a run saw of one organization.
type tally struct {
	lat        []time.Duration // of every request, unsorted
	accepted   int
	ids        []string // accepted payout ids
	unresolved int      // replays that never got an answer
}

// result is what a run saw.
type result struct {
	wall       time.Duration
	latencies  []time.Duration // of every request, sorted
	accepted   int
	ids        []string       // accepted payout ids
	orgs       []tally        // by organization
	errors     map[string]int // "status code" -> count
	unknown    []attempt      // transport errors and 5xx, to replay
	firstErr   string         // first transport error, for the report
	replayed   map[string]int // outcome of replays
	unresolved int            // replays that never got an answer
	stopped    bool           // interrupted
}

// worker is one client's private bookkeeping: nothing is shared while
// running.
type worker struct {
	tallies  map[int]*tally // by organization
	errs     map[string]int
	unknown  []attempt
	firstErr string
	buf      bytes.Buffer
	keys     keygen
}

// keygen makes random (version 4) UUIDs for Idempotency-Keys from its own
// buffer of crypto/rand bytes: no lock shared between workers.
type keygen struct {
	buf [16 * 256]byte
	off int
}

func (g *keygen) next() string {
	if g.off == 0 || g.off == len(g.buf) {
		if _, err := rand.Read(g.buf[:]); err != nil {
			panic(err) // crypto/rand does not fail on supported systems
		}
		g.off = 0
	}
	var u uuid.UUID
	copy(u[:], g.buf[g.off:g.off+16])
	g.off += 16
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u.String()
}

// runLoad sends the payouts and merges what the workers saw.
func runLoad(ctx context.Context, hc *http.Client, p loadParams) *result {
	workers := make([]*worker, len(p.clients))
	per := 1024
	if p.n > 0 {
		per = p.n/len(p.clients) + 1
	}
	auths := make([][]string, len(p.keys))
	for i, k := range p.keys {
		auths[i] = []string{"Bearer " + k}
	}
	for i, cl := range p.clients {
		w := &worker{tallies: map[int]*tally{}, errs: map[string]int{}}
		for _, org := range cl.orgs {
			if w.tallies[org] == nil {
				each := per/len(cl.orgs) + 1
				w.tallies[org] = &tally{lat: make([]time.Duration, 0, each), ids: make([]string, 0, each)}
			}
		}
		workers[i] = w
	}
	var next atomic.Int64
	var deadline time.Time
	t0 := time.Now()
	if p.duration > 0 {
		deadline = t0.Add(p.duration)
	}
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(ctx, hc, &p, auths, p.clients[i], &next, deadline)
		}()
	}
	wg.Wait()
	res := &result{wall: time.Since(t0), orgs: make([]tally, len(p.keys)), errors: map[string]int{}, replayed: map[string]int{}, stopped: ctx.Err() != nil}
	n := 0
	for _, w := range workers {
		for _, t := range w.tallies {
			n += len(t.lat)
		}
	}
	res.latencies = make([]time.Duration, 0, n)
	for _, w := range workers {
		for org, t := range w.tallies {
			o := &res.orgs[org]
			o.lat = append(o.lat, t.lat...)
			o.ids = append(o.ids, t.ids...)
			o.accepted += t.accepted
			res.latencies = append(res.latencies, t.lat...)
			res.ids = append(res.ids, t.ids...)
			res.accepted += t.accepted
		}
		for k, v := range w.errs {
			res.errors[k] += v
		}
		res.unknown = append(res.unknown, w.unknown...)
		if res.firstErr == "" {
			res.firstErr = w.firstErr
		}
	}
	slices.Sort(res.latencies)
	return res
}

func (w *worker) loop(ctx context.Context, hc *http.Client, p *loadParams, auths [][]string, cl client, next *atomic.Int64, deadline time.Time) {
	ctype := []string{"application/json"}
	tallies := make([]*tally, len(cl.orgs))
	for j, org := range cl.orgs {
		tallies[j] = w.tallies[org]
	}
	var nextAt time.Time // a paced client's next send
	for k := 0; ctx.Err() == nil; k++ {
		if cl.every > 0 && k > 0 {
			// One at a time: the next request goes at its time, or as soon
			// as this one is answered when that is later (no catching up).
			if !deadline.IsZero() && !nextAt.Before(deadline) {
				return
			}
			if d := time.Until(nextAt); d > 0 && sleep(ctx, d) != nil {
				return
			}
		}
		i := next.Add(1) - 1
		if p.n > 0 && i >= int64(p.n) {
			return
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return
		}
		j := k % len(cl.orgs)
		org, t := cl.orgs[j], tallies[j]
		body := p.bodies[i%int64(len(p.bodies))]
		key := w.keys.next()
		t0 := time.Now()
		nextAt = t0.Add(cl.every)
		status, b, err := w.post(hc, cl.url, auths[org], ctype, key, body)
		t.lat = append(t.lat, time.Since(t0))
		switch {
		case err != nil:
			w.errs["transport error"]++
			if w.firstErr == "" {
				w.firstErr = err.Error()
			}
			w.unknown = append(w.unknown, attempt{org, key, body})
		case status == http.StatusAccepted:
			t.accepted++
			if id := payoutID(b); id != "" {
				t.ids = append(t.ids, id)
			} else {
				w.errs["202 unreadable body"]++
			}
		default:
			w.errs[errKey(status, b)]++
			if status >= 500 {
				w.unknown = append(w.unknown, attempt{org, key, body})
			}
		}
	}
}

// post sends one payout; the body read into w.buf is valid until the next.
// Requests are not tied to ctx: an interrupted run lets the requests in
// flight finish, so their outcome is known.
func (w *worker) post(hc *http.Client, url string, auth, ctype []string, key string, body []byte) (int, []byte, error) {
	return postInto(hc, &w.buf, url, http.Header{"Authorization": auth, "Content-Type": ctype, "Idempotency-Key": {key}}, body)
}

// postInto POSTs body (none when nil) with header and reads the answer's
// body into buf: valid until buf's next use.
func postInto(hc *http.Client, buf *bytes.Buffer, url string, header http.Header, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(http.MethodPost, url, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header = header
	res, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	buf.Reset()
	_, err = buf.ReadFrom(res.Body)
	res.Body.Close()
	if err != nil {
		return 0, nil, err
	}
	return res.StatusCode, buf.Bytes(), nil
}

// payoutID reads the id of a payout body. The server renders the id first
// ({"id":"<36 characters>",...}), which is read without a JSON decoder; any
// other shape is decoded.
func payoutID(body []byte) string {
	const prefix = `{"id":"`
	if len(body) > len(prefix)+37 && string(body[:len(prefix)]) == prefix && body[len(prefix)+36] == '"' {
		if id := body[len(prefix) : len(prefix)+36]; uuid.Validate(string(id)) == nil {
			return string(id)
		}
	}
	var p struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(body, &p) != nil {
		return ""
	}
	return p.ID
}

func errKey(status int, body []byte) string {
	code := errorCode(body)
	if code == "" {
		code = "-"
	}
	return strconv.Itoa(status) + " " + code
}

// resolveUnknown replays every request whose outcome is unknown with the
// same key and body, clients at a time, until the server decides it: the
// original outcome if there was one, else a fresh decision. Either way it
// is then known. (After a server crash thousands of requests may be
// unknown; replaying them one by one would take minutes.)
func (r *result) resolveUnknown(ctx context.Context, orgs []*endpoint, path string, clients int) {
	outcomes := make([]string, len(r.unknown))
	ids := make([]string, len(r.unknown))
	parallel(len(r.unknown), clients, func(i int) {
		a := r.unknown[i]
		outcomes[i] = "still unknown"
		for try := 0; try < 10; try++ {
			status, h, b, err := orgs[a.org].send(ctx, http.MethodPost, path, a.body, http.Header{"Idempotency-Key": {a.key}})
			wait := time.Duration(try+1) * 100 * time.Millisecond
			if err == nil {
				if status == http.StatusAccepted {
					ids[i] = payoutID(b)
					outcomes[i] = "accepted"
					return
				}
				if status < 500 && status != http.StatusTooManyRequests && status != http.StatusConflict {
					outcomes[i] = "rejected " + errKey(status, b)
					return
				}
				if s, _ := strconv.Atoi(h.Get("Retry-After")); s > 0 {
					wait = time.Duration(min(s, 5)) * time.Second
				}
			}
			if ctx.Err() != nil || sleep(ctx, wait) != nil {
				return
			}
		}
	})
	for i, outcome := range outcomes {
		o := &r.orgs[r.unknown[i].org]
		if outcome == "accepted" {
			r.accepted++
			o.accepted++
			if ids[i] != "" {
				r.ids = append(r.ids, ids[i])
				o.ids = append(o.ids, ids[i])
			}
		}
		r.replayed[outcome]++
		if outcome == "still unknown" {
			r.unresolved++
			o.unresolved++
		}
	}
}

// ---------------------------------------------------------------------------
// The report.

// percentile is the nearest-rank percentile of sorted.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// The epsilon keeps float error from pushing an exact rank up (99.9% of
	// 1000 is rank 999, not 1000).
	i := int(math.Ceil(p/100*float64(len(sorted))-1e-9)) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// bounds describes when a run stops.
func bounds(c config) string {
	unit := map[string]string{modeOrder: "orders", modeConversion: "conversions", modeDeskMove: "orders made, then moved"}[c.mode()]
	if unit == "" {
		unit = "payouts"
	}
	switch {
	case c.N > 0 && c.Duration > 0:
		return fmt.Sprintf("%d %s or %s, whichever comes first", c.N, unit, c.Duration)
	case c.Duration > 0:
		return "for " + c.Duration.String()
	default:
		return fmt.Sprintf("%d %s", c.N, unit)
	}
}

// newTable is an aligned two-column writer; every block of the output uses
// the same first-column width.
func newTable(out io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(out, labelWidth, 0, 2, ' ', 0)
}

const labelWidth = 24

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64) + " ms"
}

func printReport(out io.Writer, r *result) {
	tw := newTable(out)
	secs := r.wall.Seconds()
	rate := func(n int) string {
		if secs <= 0 {
			return "-"
		}
		return strconv.FormatFloat(float64(n)/secs, 'f', 1, 64)
	}
	if r.stopped {
		fmt.Fprintf(tw, "interrupted\tyes\n")
	}
	fmt.Fprintf(tw, "wall time\t%s\n", r.wall.Round(time.Millisecond))
	fmt.Fprintf(tw, "requests\t%d\n", len(r.latencies))
	fmt.Fprintf(tw, "accepted\t%d\n", r.accepted)
	fmt.Fprintf(tw, "accepted/s\t%s\n", rate(r.accepted))
	fmt.Fprintf(tw, "requests/s\t%s\n", rate(len(r.latencies)))
	for _, p := range []struct {
		name string
		p    float64
	}{{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"max", 100}} {
		fmt.Fprintf(tw, "latency %s\t%s\n", p.name, ms(percentile(r.latencies, p.p)))
	}
	if len(r.errors) == 0 {
		fmt.Fprintf(tw, "errors\tnone\n")
	} else {
		keys := slices.Sorted(maps.Keys(r.errors))
		for _, k := range keys {
			fmt.Fprintf(tw, "error %s\t%d\n", k, r.errors[k])
		}
		if r.firstErr != "" {
			fmt.Fprintf(tw, "first transport error\t%s\n", r.firstErr)
		}
	}
	for k, v := range r.replayed {
		fmt.Fprintf(tw, "replayed, %s\t%d\n", k, v)
	}
	tw.Flush()
}

func writeIDs(path string, ids []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, id := range ids {
		w.WriteString(id)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// group is organizations reported together.
type group struct {
	name string
	orgs []int
}

// maxGroups bounds the lines of the per-organization report: many
// organizations are reported in this many runs of consecutive ones.
const maxGroups = 8

// orgGroups are the report's organization groups: with -hot the hot one
// and the quiet one (under load), else up to maxGroups runs of consecutive
// organizations (one each when there are that few).
func orgGroups(c config) []group {
	if c.Hot {
		return []group{{"hot", []int{0}}, {"quiet", []int{1}}}
	}
	n := c.orgCount()
	size := (n + maxGroups - 1) / maxGroups
	var out []group
	for lo := 0; lo < n; lo += size {
		g := group{name: fmt.Sprintf("org %d", lo+1)}
		if hi := min(lo+size, n); hi > lo+1 {
			g.name = fmt.Sprintf("orgs %d-%d", lo+1, hi)
		}
		for j := lo; j < min(lo+size, n); j++ {
			g.orgs = append(g.orgs, j)
		}
		out = append(out, g)
	}
	return out
}

// groupLatencies are the sorted latencies of a group's organizations, and
// how many payouts they had accepted.
func groupLatencies(r *result, g group) ([]time.Duration, int) {
	var lat []time.Duration
	accepted := 0
	for _, j := range g.orgs {
		lat = append(lat, r.orgs[j].lat...)
		accepted += r.orgs[j].accepted
	}
	slices.Sort(lat)
	return lat, accepted
}

// printGroups prints each group's requests, accepts per second (over the
// whole run's wall time) and latency percentiles.
func printGroups(out io.Writer, r *result, groups []group) {
	tw := newTable(out)
	for _, g := range groups {
		lat, accepted := groupLatencies(r, g)
		rate := "-"
		if s := r.wall.Seconds(); s > 0 {
			rate = strconv.FormatFloat(float64(accepted)/s, 'f', 1, 64)
		}
		fmt.Fprintf(tw, "%s\t%d requests, %d accepted, %s accepted/s, p50 %s, p90 %s, p99 %s, max %s\n", g.name,
			len(lat), accepted, rate, ms(percentile(lat, 50)), ms(percentile(lat, 90)), ms(percentile(lat, 99)), ms(percentile(lat, 100)))
	}
	tw.Flush()
}

// printQuiet prints -hot's quiet organization alone and beside the flood,
// and the ratio of its p99s.
func printQuiet(out io.Writer, alone, loaded *result) {
	quiet := group{orgs: []int{1}}
	un, _ := groupLatencies(alone, quiet)
	ld, _ := groupLatencies(loaded, quiet)
	tw := newTable(out)
	if alone.stopped {
		fmt.Fprintf(tw, "quiet unloaded interrupted\tyes\n")
	}
	fmt.Fprintf(tw, "quiet unloaded sent\t%d\n", len(un))
	fmt.Fprintf(tw, "quiet unloaded p50\t%s\n", ms(percentile(un, 50)))
	fmt.Fprintf(tw, "quiet unloaded p99\t%s\n", ms(percentile(un, 99)))
	keys := slices.Sorted(maps.Keys(alone.errors))
	for _, k := range keys {
		fmt.Fprintf(tw, "quiet unloaded error %s\t%d\n", k, alone.errors[k])
	}
	fmt.Fprintf(tw, "quiet loaded sent\t%d\n", len(ld))
	fmt.Fprintf(tw, "quiet loaded p50\t%s\n", ms(percentile(ld, 50)))
	fmt.Fprintf(tw, "quiet loaded p99\t%s\n", ms(percentile(ld, 99)))
	ratio := "-"
	if u := percentile(un, 99); u > 0 && len(ld) > 0 {
		ratio = strconv.FormatFloat(float64(percentile(ld, 99))/float64(u), 'f', 2, 64)
	}
	fmt.Fprintf(tw, "quiet p99 ratio\t%s (loaded / unloaded; target at most 2)\n", ratio)
	tw.Flush()
}
