package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/store"
)

// The golden tests pin the bytes of the public and admin APIs, of the
// webhook deliveries and of the stored records: one deterministic scenario
// drives every route through the real handlers, every resource through its
// lifecycle and every webhook event type into the outbox, and the
// transcript, the outbox and a dump of the whole store are compared with
// the files under testdata/golden. Run with -update to rewrite them (and
// review the diff: a changed byte is a changed contract).
//
// What makes the run deterministic:
//   - the fake clock, moved only by the scenario; ids from a counter
//     (Options.NewID) and key material from a seeded ChaCha8
//     (Options.Random), so keys, secrets, signatures, funding references
//     and proof links are the same on every run;
//   - the worker passes (payouts, conversions, orders, deliveries) are
//     called directly, one at a time, each with Concurrency 1, never Run;
//   - the retry schedule of webhooks is empty (a failed attempt
//     dead-letters at once), so no retry jitter is drawn.
//
// What is normalised, explicitly (see normalise):
//   - the Request-Id response header, a UUIDv7 of the real time: checked
//     to be one, then written as <uuidv7>;
//   - the Date response header: not recorded;
//   - a webhook attempt's duration_ns (the real time a send took), in the
//     admin deliveries answers and in the webhooks.attempts records: the
//     digits are written as <elapsed>, and the Content-Length of such an
//     answer as <normalised>;
//   - the request id of an audit entry of a request that sent no
//     Request-Id (the one the handler made, a UUIDv7 of the real time):
//     written as <uuidv7>.

var updateGolden = flag.Bool("update", false, "TestGolden*: rewrite the golden files under testdata/golden")

const goldenDir = "testdata/golden"

// ---------------------------------------------------------------------------
// Deterministic ports.

// goldenRandom is a seeded ChaCha8 stream, safe for concurrent use.
type goldenRandom struct {
	mu sync.Mutex
	r  *rand.ChaCha8
}

func newGoldenRandom() *goldenRandom {
	var seed [32]byte
	copy(seed[:], "tambala golden tests, fixed seed")
	return &goldenRandom{r: rand.NewChaCha8(seed)}
}

func (g *goldenRandom) Read(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.r.Read(p)
}

// goldenIDs returns ids that look like UUIDs (version 7, variant 10) and
// sort by creation.
func goldenIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", n.Add(1)) }
}

// goldenSender is the webhook endpoint of every organization: it answers
// 200 ok, or 503 down for a URL marked down, and logs every send.
type goldenSender struct {
	mu   sync.Mutex
	down map[string]bool
	n    int
	log  bytes.Buffer
}

func (s *goldenSender) setDown(url string, down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down[url] = down
}

func (s *goldenSender) Send(_ context.Context, url string, body []byte, signature string) (tambala.SendResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	status, answer := 200, "ok"
	if s.down[url] {
		status, answer = 503, "down"
	}
	fmt.Fprintf(&s.log, "=== send %d\nurl: %s\nsignature: %s\nanswer: %d %s\nbody: %s\n\n", s.n, url, signature, status, answer, bodyText(body))
	return tambala.SendResult{StatusCode: status, Response: []byte(answer)}, nil
}

// bucketStore is a store.Store that remembers the name of every bucket
// written to, so that the dump can list them (the port cannot).
type bucketStore struct {
	store.Store
	mu      *sync.Mutex // shared by the handles of one data set
	buckets map[string]bool
}

func (s *bucketStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Update(ctx, func(tx store.Tx) error { return fn(bucketTx{tx, s}) })
}

func (s *bucketStore) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedKeys(s.buckets)
}

type bucketTx struct {
	store.Tx
	s *bucketStore
}

func (t bucketTx) Put(bucket, key, value []byte) error {
	t.s.mu.Lock()
	t.s.buckets[string(bucket)] = true
	t.s.mu.Unlock()
	return t.Tx.Put(bucket, key, value)
}

// goldenBackup is a httpapi.Backuper that writes fixed bytes.
type goldenBackup struct{}

const goldenBackupBytes = "golden backup bytes\x00\x01\x02\n"

func (goldenBackup) Backup(_ context.Context, w io.Writer) (int64, error) {
	n, err := io.WriteString(w, goldenBackupBytes)
	return int64(n), err
}

// ---------------------------------------------------------------------------
// The environment and the recorder.

type goldenEnv struct {
	*testEnv
	t      *testing.T
	store  *bucketStore
	prov   *sandbox.Provider
	conv   *sandbox.Converter
	issuer *sandbox.Issuer
	sender *goldenSender

	// others are the further instances over the same data set (see
	// TestGolden_TwoInstances): the exchanges and the worker passes go to
	// each instance in turn, unless pinned.
	others []goldenInstance
	pinned bool
	passes int // worker passes so far, for the turn
	// served counts the exchanges each instance answered.
	served map[int]int

	files []goldenFile
	n     int // exchanges so far, over every file
}

// goldenInstance is one engine with its handlers on httptest servers.
type goldenInstance struct {
	index       int // 0 for the first
	engine      *tambala.Engine
	srv, admSrv *httptest.Server
}

type goldenFile struct {
	name string
	buf  *bytes.Buffer
}

// newGoldenEnv builds the engine with every deterministic port, the real
// handlers on httptest servers, and the MWK corridor, over a memstore.
func newGoldenEnv(t *testing.T, env tambala.Environment, limits tambala.Limits) *goldenEnv {
	t.Helper()
	return newGoldenEnvOn(t, env, limits, memstore.New())
}

// newGoldenEnvOn is newGoldenEnv over handles, each a handle on one data
// set: one instance (an engine and its handlers) per handle. Every
// instance shares the clock, the id counter, the random stream and the
// sandbox's provider, converter, issuer and webhook receiver, which stand
// for the outside world.
func newGoldenEnvOn(t *testing.T, env tambala.Environment, limits tambala.Limits, handles ...store.Store) *goldenEnv {
	t.Helper()
	var mu sync.Mutex
	buckets := map[string]bool{}
	g := &goldenEnv{t: t, store: &bucketStore{Store: handles[0], mu: &mu, buckets: buckets},
		sender: &goldenSender{down: map[string]bool{}}}
	e := &testEnv{Store: g.store, Clock: &fakeClock{t: epoch}}
	g.testEnv = e
	clock := e.Clock.Now
	g.prov = sandbox.New(&sandbox.Options{Clock: clock, Delay: time.Second})
	g.conv = sandbox.NewConverter(&sandbox.ConverterOptions{Clock: clock, Delay: 2 * time.Second})
	g.issuer = sandbox.NewIssuer(nil)
	ids, random := goldenIDs(), newGoldenRandom()
	for i, h := range handles {
		st := g.store
		if i > 0 {
			st = &bucketStore{Store: h, mu: &mu, buckets: buckets}
		}
		eng, err := tambala.New(st, &tambala.Options{
			Clock:            clock,
			NewID:            ids,
			Random:           random,
			Environment:      env,
			Limits:           limits,
			Payouts:          g.prov,
			Converter:        g.conv,
			DepositIssuer:    g.issuer,
			Webhooks:         g.sender,
			Dispatcher:       tambala.DispatcherOptions{Schedule: []time.Duration{}, Concurrency: 1},
			Worker:           tambala.WorkerOptions{Concurrency: 1},
			ConversionWorker: tambala.ConversionWorkerOptions{Concurrency: 1},
			// A handler, so that the in-process events are kept in the store
			// (and pinned by the dump); ProcessEvents is never called.
			Events: tambala.EventHandlerFunc(func(context.Context, tambala.Event) error {
				t.Error("ProcessEvents is never called by the golden tests")
				return nil
			}),
		})
		if err != nil {
			t.Fatal(err)
		}
		metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			// A stub: the engine's real metrics hold real durations.
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			_, _ = io.WriteString(w, "# the golden test's stub metrics\n")
		})
		adm, err := httpapi.NewAdmin(eng, adminToken, &httpapi.Options{Metrics: metrics})
		if err != nil {
			t.Fatal(err)
		}
		in := goldenInstance{index: i, engine: eng, srv: httptest.NewServer(httpapi.New(eng, nil)), admSrv: httptest.NewServer(adm)}
		t.Cleanup(func() {
			in.srv.Close()
			in.admSrv.Close()
		})
		if i > 0 {
			g.others = append(g.others, in)
			continue
		}
		e.Engine, e.Public, e.Admin = eng, in.srv.Config.Handler, adm
		e.srv, e.admSrv = in.srv, in.admSrv
	}
	return g
}

// turn returns the instance whose turn it is, of n turns so far.
func (g *goldenEnv) turn(n int) goldenInstance {
	first := goldenInstance{engine: g.Engine, srv: g.srv, admSrv: g.admSrv}
	if g.pinned || len(g.others) == 0 {
		return first
	}
	if i := n % (1 + len(g.others)); i > 0 && g.others[i-1].index == i {
		return g.others[i-1]
	}
	return first
}

// worker returns the engine of the next worker pass.
func (g *goldenEnv) worker() *tambala.Engine {
	g.passes++
	return g.turn(g.passes).engine
}

// section starts the next golden file of the transcript.
func (g *goldenEnv) section(name, about string) {
	b := &bytes.Buffer{}
	fmt.Fprintf(b, "# %s\n# %s\n# Each exchange: > request line, headers, body; < status, headers (not Date), body.\n\n", name, about)
	g.files = append(g.files, goldenFile{name: name + ".golden", buf: b})
}

func (g *goldenEnv) out() *bytes.Buffer { return g.files[len(g.files)-1].buf }

// note writes a line of what the scenario did besides HTTP.
func (g *goldenEnv) note(format string, args ...any) {
	fmt.Fprintf(g.out(), "# "+format+"\n\n", args...)
}

func (g *goldenEnv) advance(d time.Duration) {
	g.Clock.Advance(d)
	g.note("clock +%s = %s", d, g.Clock.Now().UTC().Format(time.RFC3339Nano))
}

// work runs the payout and conversion workers once each, then moves the
// clock on a second, steps times.
func (g *goldenEnv) work(steps int) {
	g.t.Helper()
	ctx := context.Background()
	for range steps {
		p, err := g.worker().Work().ProcessPayouts(ctx)
		if err != nil {
			g.t.Fatal(err)
		}
		c, err := g.worker().Work().ProcessConversions(ctx)
		if err != nil {
			g.t.Fatal(err)
		}
		g.note("ProcessPayouts = %d, ProcessConversions = %d", p, c)
		g.advance(time.Second)
	}
}

func (g *goldenEnv) processOrders() {
	g.t.Helper()
	n, err := g.worker().Work().ProcessOrders(context.Background())
	if err != nil {
		g.t.Fatal(err)
	}
	g.note("ProcessOrders = %d", n)
}

func (g *goldenEnv) deliver() {
	g.t.Helper()
	n, err := g.worker().Work().ProcessDeliveries(context.Background())
	if err != nil {
		g.t.Fatal(err)
	}
	g.note("ProcessDeliveries = %d", n)
}

// pub sends a public-API request with key ("" for none) and records it;
// hdrs are name, value pairs. A body is sent as application/json unless
// hdrs name a Content-Type. The status must be want.
func (g *goldenEnv) pub(want int, key, method, path, body string, hdrs ...string) *resp {
	g.t.Helper()
	return g.call(false, want, key, method, path, body, hdrs...)
}

// adm sends an admin request with the admin token.
func (g *goldenEnv) adm(want int, method, path, body string, hdrs ...string) *resp {
	g.t.Helper()
	return g.call(true, want, adminToken, method, path, body, hdrs...)
}

func (g *goldenEnv) call(admin bool, want int, key, method, path, body string, hdrs ...string) *resp {
	g.t.Helper()
	in := g.turn(g.n + 1)
	if g.served == nil {
		g.served = map[int]int{}
	}
	g.served[in.index]++
	srv := in.srv
	if admin {
		srv = in.admSrv
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		g.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdrs); i += 2 {
		req.Header.Set(hdrs[i], hdrs[i+1])
	}
	if body != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	c := *srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.Do(req)
	if err != nil {
		g.t.Fatalf("%s %s: %v", method, path, err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		g.t.Fatalf("%s %s: %v", method, path, err)
	}
	r := &resp{Status: res.StatusCode, Header: res.Header, Body: b}
	if r.Status != want {
		g.t.Errorf("%s %s: got %d %s, want %d", method, path, r.Status, truncate(b), want)
	}
	g.validate(admin, method, path, r)
	g.record(admin, req, body, r)
	return r
}

// validate checks a JSON answer against the OpenAPI documents, as every
// other test of the package does; the probes, files and metrics are
// pinned by the golden files alone.
func (g *goldenEnv) validate(admin bool, method, path string, r *resp) {
	g.t.Helper()
	if path == "/healthz" || path == "/readyz" || r.Header.Get("Content-Type") != "application/json" {
		return
	}
	if admin {
		checkAdmin(g.t, method, path, r.Status, r.Header, r.Body)
	} else {
		checkPublic(g.t, method, path, r.Status, r.Header, r.Body)
	}
}

// durationNS is a webhook attempt's real send time.
var durationNS = regexp.MustCompile(`"duration_ns":[0-9]+`)

// auditRequestID matches the request id of an audit entry when it is a
// UUIDv7 (the one the handler made for a request that sent none).
var auditRequestID = regexp.MustCompile(`"request_id":"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"`)

func (g *goldenEnv) record(admin bool, req *http.Request, body string, r *resp) {
	g.t.Helper()
	g.n++
	w := g.out()
	side := "public"
	if admin {
		side = "admin"
	}
	fmt.Fprintf(w, "=== %04d %s\n> %s %s\n", g.n, side, req.Method, req.URL.RequestURI())
	for _, name := range sortedKeys(req.Header) {
		for _, v := range req.Header[name] {
			fmt.Fprintf(w, "> %s: %s\n", name, v)
		}
	}
	if body != "" {
		if len(body) > 4096 {
			sum := sha256.Sum256([]byte(body))
			fmt.Fprintf(w, "> body: %d bytes, sha256 %s\n", len(body), hex.EncodeToString(sum[:]))
		} else {
			fmt.Fprintf(w, "> body: %s\n", bodyText([]byte(body)))
		}
	}
	fmt.Fprintf(w, "< %d %s\n", r.Status, http.StatusText(r.Status))
	respBody := r.Body
	normalised := false
	if strings.Contains(req.URL.Path, "/deliveries") {
		nb := durationNS.ReplaceAll(respBody, []byte(`"duration_ns":<elapsed>`))
		normalised = !bytes.Equal(nb, respBody)
		respBody = nb
	}
	for _, name := range sortedKeys(r.Header) {
		for _, v := range r.Header[name] {
			switch name {
			case "Date":
				continue
			case httpapi.RequestIDHeader:
				if id, err := uuid.Parse(v); err != nil || id.Version() != 7 {
					g.t.Errorf("%s %s: Request-Id %q is not a UUIDv7", req.Method, req.URL, v)
				}
				v = "<uuidv7>"
			case "Content-Length":
				if normalised {
					v = "<normalised>"
				}
			}
			fmt.Fprintf(w, "< %s: %s\n", name, v)
		}
	}
	switch p := req.URL.Path; {
	case p == "/openapi.json" && r.Status == 200, p == "/admin/openapi.json" && r.Status == 200:
		// The documents are large: their digest pins them, and they must be
		// the embedded bytes.
		doc := httpapi.OpenAPI()
		if p != "/openapi.json" {
			doc = httpapi.AdminOpenAPI()
		}
		if !bytes.Equal(r.Body, doc) {
			g.t.Errorf("GET %s is not the embedded document", p)
		}
		sum := sha256.Sum256(r.Body)
		fmt.Fprintf(w, "< body: %d bytes, sha256 %s\n\n", len(r.Body), hex.EncodeToString(sum[:]))
	default:
		fmt.Fprintf(w, "< body: %s\n\n", bodyText(respBody))
	}
}

// bodyText renders bytes on one line: as they are when they are printable
// UTF-8, else Go-quoted after "(quoted) ", else "(empty)".
func bodyText(b []byte) string {
	if len(b) == 0 {
		return "(empty)"
	}
	if printable(b) {
		return string(b)
	}
	return "(quoted) " + strconv.Quote(string(b))
}

func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// str returns a string field of a JSON object answer.
func (r *resp) str(t testing.TB, path ...string) string {
	t.Helper()
	var v any = r.obj(t)
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no %v in %s", path, truncate(r.Body))
		}
		v = m[p]
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%v is not a string in %s", path, truncate(r.Body))
	}
	return s
}

// ---------------------------------------------------------------------------
// The dumps and the comparison.

// dumpStore writes every bucket ever written to, in name order, and its
// keys and values in key order.
func (g *goldenEnv) dumpStore() []byte {
	g.t.Helper()
	var b bytes.Buffer
	b.WriteString("# store\n# Every bucket written to during the scenario, then each key and value in order:\n" +
		"# printable UTF-8 as it is, anything else (quoted). The digits of a webhook attempt's duration_ns are <elapsed>.\n\n")
	rows := 0
	err := g.store.View(context.Background(), func(tx store.Tx) error {
		for _, name := range g.store.names() {
			var keys bytes.Buffer
			n := 0
			err := tx.Scan([]byte(name), store.ScanOptions{}, func(k, v []byte) (bool, error) {
				n++
				switch name {
				case "webhooks.attempts":
					v = durationNS.ReplaceAll(v, []byte(`"duration_ns":<elapsed>`))
				case "audit":
					v = auditRequestID.ReplaceAll(v, []byte(`"request_id":"<uuidv7>"`))
				}
				fmt.Fprintf(&keys, "key: %s\nval: %s\n", bodyText(k), bodyText(v))
				return true, nil
			})
			if err != nil {
				return err
			}
			rows += n
			fmt.Fprintf(&b, "=== bucket %s (%d keys)\n", bodyText([]byte(name)), n)
			b.Write(keys.Bytes())
			b.WriteString("\n")
		}
		return nil
	})
	if err != nil {
		g.t.Fatal(err)
	}
	g.t.Logf("store: %d buckets, %d records", len(g.store.names()), rows)
	return b.Bytes()
}

// dumpWebhooks writes the sends in order, then each organization's outbox
// (Operator.Deliveries: the exact bytes stored), and checks every event
// type of the catalog is in it.
func (g *goldenEnv) dumpWebhooks(orgs []string, wantTypes []string) []byte {
	g.t.Helper()
	ctx := context.Background()
	var b bytes.Buffer
	b.WriteString("# webhooks\n# Every send the dispatcher made, in order, then every organization's outbox, newest first.\n\n")
	g.sender.mu.Lock()
	b.Write(g.sender.log.Bytes())
	g.sender.mu.Unlock()
	seen := map[string]int{}
	total := 0
	for _, org := range orgs {
		fmt.Fprintf(&b, "=== outbox of %s\n", org)
		page := tambala.PageRequest{Limit: tambala.MaxPageSize}
		for {
			res, err := g.Engine.Operator().Deliveries(ctx, org, page)
			if err != nil {
				g.t.Fatal(err)
			}
			for _, d := range res.Items {
				total++
				seen[d.EventType]++
				fmt.Fprintf(&b, "--- %s %s %s attempts=%d created_at=%s url=%s\n", d.ID, d.EventType, d.State, len(d.Attempts),
					d.CreatedAt.UTC().Format(time.RFC3339Nano), d.URL)
				fmt.Fprintf(&b, "body: %s\n", bodyText([]byte(d.Body)))
			}
			if !res.HasMore {
				break
			}
			page.BeforeID = res.NextBeforeID
		}
		b.WriteString("\n")
	}
	for _, typ := range wantTypes {
		if seen[typ] == 0 {
			g.t.Errorf("no %s event in the outbox", typ)
		}
	}
	for _, typ := range sortedKeys(seen) {
		if wantTypes != nil && !slices.Contains(wantTypes, typ) {
			g.t.Errorf("event type %s is not in the test's list: add it", typ)
		}
	}
	g.t.Logf("webhooks: %d sends, %d deliveries of %d event types", g.sender.n, total, len(seen))
	return b.Bytes()
}

// checkGolden compares got with the golden file name, or rewrites it
// under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *updateGolden {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (run go test -run Golden -update to write it)", err)
		return
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w || i >= len(gl) || i >= len(wl) {
			col := 0
			for col < len(g) && col < len(w) && g[col] == w[col] {
				col++
			}
			t.Errorf("%s differs from the run at line %d, byte %d:\nwant: %s\ngot:  %s\n(go test -run Golden -update rewrites it; review the diff)",
				path, i+1, col+1, around(w, col), around(g, col))
			return
		}
	}
}

// around is s cut to 200 bytes either side of col.
func around(s string, col int) string {
	from, to, pre, post := max(0, col-200), min(len(s), col+200), "", ""
	if from > 0 {
		pre = "..."
	}
	if to < len(s) {
		post = "..."
	}
	return pre + s[from:to] + post
}

func (g *goldenEnv) checkFiles() {
	g.t.Helper()
	for _, f := range g.files {
		checkGolden(g.t, f.name, f.buf.Bytes())
	}
}

// ---------------------------------------------------------------------------
// The scenario.

// goldenEventTypes is the webhook catalog: the scenario produces each.
var goldenEventTypes = []string{
	"payout.succeeded", "payout.failed", "payout.reversed",
	"payout_v2.succeeded", "payout_v2.failed", "payout_v2.reversed",
	"order.processing", "order.completed", "order.failed", "order.cancelled",
	"order.awaiting_funds", "order.funds_confirmed", "order.expired", "order.refund_returned",
	"conversion.completed", "conversion.failed",
	"collection.settled", "collection.reversed", "collection_v2.settled",
	"trade.settled", "balance.low",
}

const (
	goldenUnknownID = "00000000-0000-7000-8000-999999999999"
	hookAlpha       = "https://hooks.example.com/alpha"
	hookBeta        = "https://hooks.example.com/beta"
	hookGamma       = "http://127.0.0.1:9/gamma"
	goldenBank      = `{"amount_mwk":"%s","institution_id":1,"account_number":"%s","beneficiary_name":"Chisomo Banda"}`
	goldenMomo      = `{"amount_mwk":"%s","institution_id":101,"mobile_number":"%s","beneficiary_name":"Chisomo Banda"}`
)

func TestGolden(t *testing.T) {
	g := newGoldenEnv(t, tambala.Sandbox, tambala.Limits{RatePerSecond: 1_000_000, RateBurst: 1_000_000})
	orgs := goldenSetup(g)
	goldenV1(g, orgs)
	goldenOrders(g, orgs)
	goldenConversions(g, orgs)
	goldenPayoutsV2(g, orgs)
	goldenCollectionsV2(g, orgs)
	goldenAdmin(g, orgs)
	g.checkFiles()
	checkGolden(t, "webhooks.golden", g.dumpWebhooks([]string{orgs.a, orgs.b, orgs.c}, goldenEventTypes))
	checkGolden(t, "store.golden", g.dumpStore())
	t.Logf("%d exchanges in %d files", g.n, len(g.files))
}

// TestGolden_RateLimit pins the 429 and its Retry-After, on an engine of
// its own with a small bucket.
func TestGolden_RateLimit(t *testing.T) {
	g := newGoldenEnv(t, tambala.Sandbox, tambala.Limits{RatePerSecond: 1, RateBurst: 2})
	g.section("ratelimit", "An engine with 1 request per second and a burst of 2: the 429 and its Retry-After.")
	org := g.adm(201, "POST", "/admin/orgs", `{"name":"Delta"}`).str(t, "id")
	key := g.adm(201, "POST", "/admin/orgs/"+org+"/keys", "").str(t, "key")
	g.pub(200, key, "GET", "/v1/ping", "")
	g.pub(200, key, "GET", "/v1/ping", "")
	g.pub(429, key, "GET", "/v1/ping", "")
	g.pub(429, key, "POST", "/v1/payouts/bank", fmt.Sprintf(goldenBank, "1000", "3333888800"), "Idempotency-Key", "rl-1")
	g.advance(time.Second)
	g.pub(200, key, "GET", "/v1/balance", "")
	g.checkFiles()
}

// TestGolden_Production pins what only a production engine answers: the
// readiness of its reference data, the sandbox-only routes, the webhook
// URL rule, payouts before and after the institutions are synced.
func TestGolden_Production(t *testing.T) {
	g := newGoldenEnv(t, tambala.Production, tambala.Limits{RatePerSecond: 1_000_000, RateBurst: 1_000_000})
	g.section("production", "A production engine: reference data readiness, sandbox-only routes, payouts before and after the sync.")
	g.pub(200, "", "GET", "/healthz", "")
	g.pub(503, "", "GET", "/readyz", "")
	g.adm(503, "GET", "/readyz", "")
	org := g.adm(201, "POST", "/admin/orgs", `{"name":"Epsilon","v2_access":"enabled","assets":[{"asset":"MWK","operations":["payout","collection"]},{"asset":"USDT","operations":["payout","collection"]}]}`).str(t, "id")
	key := g.adm(201, "POST", "/admin/orgs/"+org+"/keys", "").str(t, "key")
	g.adm(200, "POST", "/admin/orgs/"+org+"/funding", `{"asset":"MWK","amount":"100000","ref":"seed"}`)
	g.adm(400, "PUT", "/admin/orgs/"+org+"/webhook", `{"url":"http://127.0.0.1:9/hook"}`)
	g.adm(200, "PUT", "/admin/orgs/"+org+"/webhook", `{"url":"https://hooks.example.com/epsilon"}`)
	g.pub(200, key, "GET", "/v1/ping", "")
	g.pub(403, key, "POST", "/v1/collections/simulate", `{"amount_mwk":"1000"}`)
	g.pub(403, key, "POST", "/v1/collections/simulate", `{"amount_mwk":`)
	g.pub(403, key, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"1"}`)
	g.pub(503, key, "GET", "/v1/institutions", "")
	g.pub(503, key, "POST", "/v1/payouts/bank", fmt.Sprintf(goldenBank, "1000", "1234567890"), "Idempotency-Key", "p-1")
	g.pub(200, key, "POST", "/v1/fees/quote", feeBody("payout", "bank", "1000"))
	g.adm(200, "PUT", "/admin/institutions", `{"institutions":[{"institution_id":1,"name":"National Bank of Malawi","rail":"bank"},{"institution_id":101,"name":"Airtel Money","rail":"momo","network":"9"}]}`)
	g.pub(200, "", "GET", "/readyz", "")
	g.pub(200, key, "GET", "/v1/institutions", "")
	g.pub(202, key, "POST", "/v1/payouts/bank", fmt.Sprintf(goldenBank, "1000", "1234567890"), "Idempotency-Key", "p-1")
	g.pub(422, key, "POST", "/v1/payouts/momo", fmt.Sprintf(goldenMomo, "1000", sandboxWallet), "Idempotency-Key", "p-2")
	g.work(3)
	g.deliver()
	g.adm(200, "GET", "/admin/orgs/"+org+"/deliveries", "")
	g.checkFiles()
	checkGolden(t, "production_webhooks.golden", g.dumpWebhooks([]string{org}, nil))
}

type goldenOrgs struct {
	a, b, c          string // Alpha (v1 and v2, every asset), Beta (v1 only), Gamma (the admin's guinea pig)
	keyA, keyB, keyC string
	keyC2            string
}

func goldenSetup(g *goldenEnv) goldenOrgs {
	t := g.t
	g.section("01_setup", "Probes, documents, organizations, keys, funding, webhook endpoints, reference data, access errors.")
	for _, p := range []string{"/healthz", "/readyz"} {
		g.pub(200, "", "GET", p, "")
		g.adm(200, "GET", p, "")
	}
	g.pub(200, "", "GET", "/openapi.json", "")
	g.adm(200, "GET", "/admin/openapi.json", "")
	g.adm(200, "GET", "/admin/orgs", "")

	var o goldenOrgs
	o.a = g.adm(201, "POST", "/admin/orgs", `{"name":"Alpha Payments","v2_access":"enabled","assets":[`+
		`{"asset":"MWK","operations":["payout","collection","convert"]},{"asset":"USDT","operations":["convert","payout","collection"]}]}`).str(t, "id")
	o.b = g.adm(201, "POST", "/admin/orgs", `{"name":"Beta Remit"}`).str(t, "id")
	o.c = g.adm(201, "POST", "/admin/orgs", `{"name":"  Gamma Traders ","v2_access":"enabled","balance_floor_mwk":"1000",`+
		`"assets":[{"asset":"MWK","operations":["payout","collection"]},{"asset":"USDT","operations":["payout"]}]}`).str(t, "id")
	// Refusals.
	g.adm(400, "POST", "/admin/orgs", `{"name":""}`)
	g.adm(400, "POST", "/admin/orgs", `{"name":"Dup","name":"Dup"}`) // strict decoding: a duplicate field
	g.adm(400, "POST", "/admin/orgs", `{"name":"x"`)
	g.adm(422, "POST", "/admin/orgs", `{"name":"x","assets":[{"asset":"EUR"}]}`)
	g.adm(415, "POST", "/admin/orgs", `{"name":"x"}`, "Content-Type", "text/plain")
	g.call(true, 401, "", "GET", "/admin/orgs", "")
	g.call(true, 401, "adm_wrong_0123456789abcdefghijklmnopqrstuvwxyz", "GET", "/admin/orgs", "")
	g.adm(404, "GET", "/admin/orgs/"+goldenUnknownID, "")
	g.adm(404, "GET", "/admin/nope", "")
	g.adm(405, "DELETE", "/admin/orgs", "")
	g.adm(200, "GET", "/admin/orgs/"+o.a, "")
	g.adm(200, "GET", "/admin/orgs", "")

	// Keys.
	o.keyA = g.adm(201, "POST", "/admin/orgs/"+o.a+"/keys", "").str(t, "key")
	o.keyB = g.adm(201, "POST", "/admin/orgs/"+o.b+"/keys", "").str(t, "key")
	o.keyC = g.adm(201, "POST", "/admin/orgs/"+o.c+"/keys", "").str(t, "key")
	o.keyC2 = g.adm(201, "POST", "/admin/orgs/"+o.c+"/keys", "").str(t, "key")
	g.adm(200, "GET", "/admin/orgs/"+o.c+"/keys", "")
	g.adm(404, "POST", "/admin/orgs/"+goldenUnknownID+"/keys", "")

	// Funding.
	g.adm(200, "POST", "/admin/orgs/"+o.a+"/funding", `{"asset":"MWK","amount":"500000.00","ref":"seed-a-mwk"}`)
	g.adm(200, "POST", "/admin/orgs/"+o.a+"/funding", `{"asset":"USDT","amount":"1000","ref":"seed-a-usdt"}`)
	g.adm(200, "POST", "/admin/orgs/"+o.b+"/funding", `{"asset":"MWK","amount":"100000","ref":"seed-b"}`)
	g.adm(200, "POST", "/admin/orgs/"+o.c+"/funding", `{"asset":"MWK","amount":"50000.5","ref":"seed-c"}`)
	g.adm(400, "POST", "/admin/orgs/"+o.c+"/funding", `{"asset":"MWK","amount":"1.001","ref":"bad"}`)
	g.adm(422, "POST", "/admin/orgs/"+o.c+"/funding", `{"asset":"EUR","amount":"1","ref":"bad"}`)

	// Webhook endpoints: every event of A, B and C goes to the outbox.
	g.adm(200, "PUT", "/admin/orgs/"+o.a+"/webhook", `{"url":"`+hookAlpha+`"}`)
	g.adm(200, "PUT", "/admin/orgs/"+o.b+"/webhook", `{"url":"`+hookBeta+`"}`)
	g.adm(200, "PUT", "/admin/orgs/"+o.c+"/webhook", `{"url":"`+hookGamma+`"}`)
	g.adm(400, "PUT", "/admin/orgs/"+o.c+"/webhook", `{"url":"http://hooks.example.com/plain"}`)
	g.adm(404, "PUT", "/admin/orgs/"+goldenUnknownID+"/webhook", `{"url":"`+hookAlpha+`"}`)
	// B's endpoint is down until the redelivery (goldenAdmin).
	g.sender.setDown(hookBeta, true)
	g.note("the endpoint %s answers 503 from now on", hookBeta)

	// The corridor the desk quotes from.
	g.adm(200, "PUT", "/admin/corridors/MWK", corridorMWK)
	g.adm(400, "PUT", "/admin/corridors/MWK", `{"rate_off_ramp":"-1","rate_on_ramp":"1800","min":"1000.00","open":true}`)
	g.adm(400, "PUT", "/admin/corridors/EUR", corridorMWK)
	g.adm(200, "GET", "/admin/corridors", "")

	// Reads of every organization.
	g.pub(200, o.keyA, "GET", "/v1/ping", "")
	g.pub(200, o.keyA, "GET", "/v2/ping", "")
	g.pub(200, o.keyA, "GET", "/v1/balance", "")
	g.pub(200, o.keyA, "GET", "/v2/balances", "")
	g.pub(200, o.keyA, "GET", "/v2/balances/USDT", "")
	g.pub(200, o.keyA, "GET", "/v2/balances/MWK", "")
	g.pub(403, o.keyA, "GET", "/v2/balances/EUR", "")
	g.pub(200, o.keyA, "GET", "/v2/assets", "")
	g.pub(200, o.keyC, "GET", "/v2/assets", "")
	g.pub(200, o.keyB, "GET", "/v1/institutions", "")
	g.pub(200, o.keyB, "GET", "/v1/banks", "")
	g.pub(200, o.keyB, "GET", "/v1/operators", "")
	g.pub(200, o.keyB, "GET", "/v1/balance", "")
	// /v2 for an organization still onboarding.
	g.pub(200, o.keyB, "GET", "/v2/ping", "")
	g.pub(403, o.keyB, "GET", "/v2/balances", "")
	g.pub(403, o.keyB, "GET", "/v2/orders", "")
	// Credentials.
	g.pub(401, "", "GET", "/v1/ping", "")
	g.pub(401, "tmb_sandbox_not_a_key", "GET", "/v1/ping", "")
	g.call(false, 401, "", "GET", "/v1/ping", "", "Authorization", "Basic "+o.keyA)
	g.pub(401, adminToken, "GET", "/v1/balance", "")
	// Unrouted.
	g.pub(404, o.keyA, "GET", "/v1/nope", "")
	g.pub(404, "", "GET", "/", "")
	g.pub(405, o.keyA, "DELETE", "/v1/balance", "")
	g.pub(404, o.keyA, "GET", "/v1/payouts/bank", "") // matched by GET /v1/payouts/{id}
	g.pub(404, o.keyA, "GET", "/v1//balance", "")
	return o
}

func goldenV1(g *goldenEnv, o goldenOrgs) {
	t := g.t
	g.section("02_v1", "/v1: fee quotes, payouts through the worker, resolutions, clawback, balance.low, collections, trades.")
	// Fee quotes.
	g.pub(200, o.keyA, "POST", "/v1/fees/quote", feeBody("payout", "bank", "10000"))
	g.pub(200, o.keyA, "POST", "/v1/fees/quote", feeBody("payout", "momo", "2500.5"))
	g.pub(200, o.keyA, "POST", "/v1/fees/quote", feeBody("collection", "momo", "5000"))
	g.pub(400, o.keyA, "POST", "/v1/fees/quote", feeBody("sideways", "bank", "10000"))
	g.pub(200, o.keyA, "POST", "/v1/fees/quote", `{"direction":"payout","rail":"bank","amount_mwk":10000}`) // /v1 takes a number too

	// A's floor: the first payout takes it under, balance.low.
	g.adm(200, "PUT", "/admin/orgs/"+o.a+"/balance-floor", `{"floor_mwk":"495000.00"}`)
	g.adm(400, "PUT", "/admin/orgs/"+o.a+"/balance-floor", `{"floor_mwk":"-1"}`)

	bank := func(amount, account string) string { return fmt.Sprintf(goldenBank, amount, account) }
	momo := func(amount, mobile string) string { return fmt.Sprintf(goldenMomo, amount, mobile) }
	p1 := g.pub(202, o.keyA, "POST", "/v1/payouts/bank", bank("10000", "3333888800"), "Idempotency-Key", "a-bank-1").str(t, "id")
	g.pub(202, o.keyA, "POST", "/v1/payouts/bank", bank("10000", "3333888800"), "Idempotency-Key", "a-bank-1")
	g.pub(409, o.keyA, "POST", "/v1/payouts/bank", bank("10001", "3333888800"), "Idempotency-Key", "a-bank-1")
	p2 := g.pub(202, o.keyA, "POST", "/v1/payouts/momo", momo("2500.50", sandboxWallet), "Idempotency-Key", "a-momo-1").str(t, "id")
	p3 := g.pub(202, o.keyA, "POST", "/v1/payouts/momo", momo("1500", "265991234567"), "Idempotency-Key", "a-momo-2").str(t, "id")
	p4 := g.pub(202, o.keyA, "POST", "/v1/payouts/bank", bank("3000", "3333888801"), "Idempotency-Key", "a-bank-2").str(t, "id")
	p5 := g.pub(202, o.keyA, "POST", "/v1/payouts/bank", bank("4000", "3333888802"), "Idempotency-Key", "a-bank-3").str(t, "id")
	g.pub(202, o.keyB, "POST", "/v1/payouts/bank", bank("1000", "3333888804"), "Idempotency-Key", "b-bank-1")
	// Refusals.
	g.pub(402, o.keyA, "POST", "/v1/payouts/bank", bank("4000000", "3333888800"), "Idempotency-Key", "a-big")
	g.pub(400, o.keyA, "POST", "/v1/payouts/bank", bank("10000", "3333888800"))
	g.pub(400, o.keyA, "POST", "/v1/payouts/bank", bank("ten", "3333888800"), "Idempotency-Key", "a-bad-1")
	g.pub(400, o.keyA, "POST", "/v1/payouts/bank", `{"amount_mwk":"1000","amount_mwk":"2000","institution_id":1,"account_number":"3333888800","beneficiary_name":"A"}`,
		"Idempotency-Key", "a-bad-2")
	g.pub(400, o.keyA, "POST", "/v1/payouts/bank", `{"amount_mwk":"1000",`, "Idempotency-Key", "a-bad-3")
	g.pub(415, o.keyA, "POST", "/v1/payouts/bank", bank("1000", "3333888800"), "Idempotency-Key", "a-bad-4", "Content-Type", "text/plain")
	g.pub(415, o.keyA, "POST", "/v1/payouts/bank", bank("1000", "3333888800"), "Idempotency-Key", "a-bad-5", "Content-Type", "application/json; charset=latin1")
	g.pub(422, o.keyA, "POST", "/v1/payouts/bank", fmt.Sprintf(`{"amount_mwk":"1000","institution_id":77,"account_number":"3333888800","beneficiary_name":"A"}`),
		"Idempotency-Key", "a-bad-6")
	g.pub(422, o.keyA, "POST", "/v1/payouts/bank", bank("1000", "12-34"), "Idempotency-Key", "a-bad-7")
	g.pub(422, o.keyA, "POST", "/v1/payouts/momo", momo("1000", "12"), "Idempotency-Key", "a-bad-8")
	g.pub(413, o.keyA, "POST", "/v1/payouts/bank", `{"x":"`+strings.Repeat("a", 1<<20)+`"}`, "Idempotency-Key", "a-bad-9")
	// Reads before the worker.
	g.pub(200, o.keyA, "GET", "/v1/payouts/"+p1, "")
	g.pub(404, o.keyA, "GET", "/v1/payouts/"+goldenUnknownID, "")
	g.pub(404, o.keyB, "GET", "/v1/payouts/"+p1, "")
	g.pub(200, o.keyA, "GET", "/v1/payouts", "")
	g.pub(200, o.keyA, "GET", "/v1/payouts?limit=2", "")
	g.pub(200, o.keyA, "GET", "/v1/payouts?limit=2&before_id="+p3, "")
	g.pub(400, o.keyA, "GET", "/v1/payouts?limit=0", "")
	g.pub(400, o.keyA, "GET", "/v1/payouts?status=lost", "")
	g.pub(200, o.keyA, "GET", "/v1/balance", "")

	// The worker submits; the operator resolves two by hand.
	g.work(1)
	g.adm(200, "GET", "/admin/payouts/in-flight", "")
	g.adm(200, "GET", "/admin/payouts/in-flight?org="+o.a+"&status=pending&limit=2", "")
	g.adm(400, "GET", "/admin/payouts/in-flight?older_than=soon", "")
	g.adm(200, "POST", "/admin/payouts/"+p4+"/resolve", `{"outcome":"succeeded","fee":"282.00","reason":"Confirmed with the provider by phone."}`)
	g.adm(200, "POST", "/admin/payouts/"+p5+"/resolve", `{"outcome":"failed","failure_code":"declined","reason":"The provider declined it."}`)
	g.adm(409, "POST", "/admin/payouts/"+p5+"/resolve", `{"outcome":"failed","failure_code":"declined","reason":"Again."}`)
	g.adm(400, "POST", "/admin/payouts/"+p1+"/resolve", `{"outcome":"lost","reason":"x"}`)
	g.adm(404, "POST", "/admin/payouts/"+goldenUnknownID+"/resolve", `{"outcome":"succeeded","reason":"x"}`)
	g.work(3)
	g.pub(200, o.keyA, "GET", "/v1/payouts/"+p1, "")
	g.pub(200, o.keyA, "GET", "/v1/payouts/"+p2, "")
	g.pub(200, o.keyA, "GET", "/v1/payouts/"+p3, "")
	g.pub(200, o.keyA, "GET", "/v1/payouts/"+p4, "")
	g.pub(200, o.keyA, "GET", "/v1/payouts/"+p5, "")
	g.pub(200, o.keyA, "GET", "/v1/payouts?status=succeeded", "")
	g.pub(200, o.keyA, "GET", "/v1/payouts?status=failed", "")
	// The clawback of a paid payout.
	g.adm(200, "POST", "/admin/payouts/"+p1+"/clawback", "")
	g.adm(409, "POST", "/admin/payouts/"+p1+"/clawback", "")
	g.adm(409, "POST", "/admin/payouts/"+p3+"/clawback", "")
	g.adm(404, "POST", "/admin/payouts/"+goldenUnknownID+"/clawback", "")
	g.pub(200, o.keyA, "GET", "/v1/payouts/"+p1, "")
	g.pub(200, o.keyA, "GET", "/v1/balance", "")
	g.adm(200, "GET", "/admin/payouts/in-flight", "")

	// Collections.
	c1 := g.pub(201, o.keyB, "POST", "/v1/collections/simulate", `{"amount_mwk":"20000"}`).str(t, "id")
	g.pub(201, o.keyB, "POST", "/v1/collections/simulate", `{"amount_mwk":"5000.25","rail":"momo"}`)
	g.pub(400, o.keyB, "POST", "/v1/collections/simulate", `{"amount_mwk":"-5"}`)
	g.pub(400, o.keyB, "POST", "/v1/collections/simulate", `{"amount_mwk":"5","rail":"card"}`)
	g.pub(200, o.keyB, "GET", "/v1/collections", "")
	g.pub(200, o.keyB, "GET", "/v1/collections?limit=1", "")
	g.pub(200, o.keyB, "GET", "/v1/collections/"+c1, "")
	g.pub(404, o.keyB, "GET", "/v1/collections/"+goldenUnknownID, "")
	g.pub(404, o.keyA, "GET", "/v1/collections/"+c1, "")
	g.adm(200, "POST", "/admin/orgs/"+o.b+"/collections/"+c1+"/reverse", "")
	g.adm(409, "POST", "/admin/orgs/"+o.b+"/collections/"+c1+"/reverse", "")
	g.adm(404, "POST", "/admin/orgs/"+o.a+"/collections/"+c1+"/reverse", "")
	g.pub(200, o.keyB, "GET", "/v1/collections/"+c1, "")

	// Trades.
	g.adm(201, "POST", "/admin/orgs/"+o.b+"/trades", `{"ref":"otc-1","usdt_amount":"100","client_rate":"1750.25"}`)
	g.adm(201, "POST", "/admin/orgs/"+o.b+"/trades", `{"ref":"otc-1","usdt_amount":"100","client_rate":"1750.25"}`)
	g.adm(409, "POST", "/admin/orgs/"+o.b+"/trades", `{"ref":"otc-1","usdt_amount":"101","client_rate":"1750.25"}`)
	g.adm(400, "POST", "/admin/orgs/"+o.b+"/trades", `{"ref":"","usdt_amount":"100","client_rate":"1750"}`)
	g.adm(404, "POST", "/admin/orgs/"+goldenUnknownID+"/trades", `{"ref":"otc-2","usdt_amount":"100","client_rate":"1750"}`)
	g.pub(200, o.keyB, "GET", "/v1/trades", "")
	g.pub(400, o.keyB, "GET", "/v1/trades?limit=x", "")
	g.pub(200, o.keyB, "GET", "/v1/balance", "")
	g.work(2)
	g.deliver()
}

func goldenOrders(g *goldenEnv, o goldenOrgs) {
	t := g.t
	g.section("03_v2_orders", "/v2 orders: corridors, quotes, to-bank and from-bank orders through every desk move, proofs and links.")
	g.pub(200, o.keyA, "GET", "/v2/orders/corridors", "")
	g.pub(200, o.keyC, "GET", "/v2/orders/corridors", "")
	quote := func(body string) string {
		t.Helper()
		return g.pub(201, o.keyA, "POST", "/v2/orders/quotes", body).str(t, "quote_id")
	}
	order := func(idem, body string) string {
		t.Helper()
		return g.pub(201, o.keyA, "POST", "/v2/orders", body, "Idempotency-Key", idem).str(t, "id")
	}
	moveTo := func(want int, id, mv, body string) *resp {
		t.Helper()
		return g.adm(want, "POST", "/admin/orders/"+id+"/"+mv, body)
	}
	// Quote refusals.
	g.pub(400, o.keyA, "POST", "/v2/orders/quotes", `{"from_asset":"USDT","to_asset":"MWK"}`)
	g.pub(400, o.keyA, "POST", "/v2/orders/quotes", `{"from_asset":"USDT","to_asset":"MWK","from_amount":"1","to_amount":"1"}`)
	g.pub(422, o.keyA, "POST", "/v2/orders/quotes", quoteBody("USDT", "USDT", "from", "10"))
	g.pub(422, o.keyA, "POST", "/v2/orders/quotes", quoteBody("USDT", "MWK", "from", "0.01"))
	g.pub(403, o.keyA, "POST", "/v2/orders/quotes", quoteBody("USDT", "EUR", "from", "10"))

	// T1: to-bank, completed.
	q := quote(quoteBody("USDT", "MWK", "from", "123.456789"))
	g.pub(201, o.keyA, "POST", "/v2/orders/quotes", quoteBody("USDT", "MWK", "to", "216111.10"))
	t1 := order("t1", orderBody(q, "inv-1", beneficiaryJSON))
	g.pub(201, o.keyA, "POST", "/v2/orders", orderBody(q, "inv-1", beneficiaryJSON), "Idempotency-Key", "t1")
	g.pub(409, o.keyA, "POST", "/v2/orders", orderBody(q, "inv-1b", beneficiaryJSON), "Idempotency-Key", "t1")
	g.pub(409, o.keyA, "POST", "/v2/orders", orderBody(q, "inv-1c", beneficiaryJSON), "Idempotency-Key", "t1-again")
	g.pub(200, o.keyA, "GET", "/v2/orders/"+t1, "")
	g.pub(404, o.keyC, "GET", "/v2/orders/"+t1, "")
	g.advance(time.Minute)
	moveTo(200, t1, "processing", "")
	moveTo(200, t1, "processing", "{}")
	g.advance(time.Minute)
	moveTo(200, t1, "coins-sent", "")
	moveTo(409, t1, "cancel", "")
	g.advance(time.Minute)
	moveTo(200, t1, "complete", "")
	g.pub(200, o.keyA, "GET", "/v2/orders/"+t1, "")

	// T2: to-bank, failed after the coins left, the refund returned.
	q = quote(quoteBody("USDT", "MWK", "from", "50"))
	g.pub(409, o.keyA, "POST", "/v2/orders", orderBody(q, "inv-1", beneficiaryJSON), "Idempotency-Key", "t2-dup-ref")
	g.pub(422, o.keyA, "POST", "/v2/orders", orderBody(q, "inv-2", ""), "Idempotency-Key", "t2-no-beneficiary")
	g.pub(400, o.keyA, "POST", "/v2/orders", orderBody(q, "inv-2", `{"name":"A","bank_name":"B","account_number":"1","swift":"X"}`), "Idempotency-Key", "t2-bad-beneficiary")
	t2 := order("t2", orderBody(q, "inv-2", `{"name":"Chisomo Banda","bank_name":"NBM","account_number":"100200300","branch":"Lilongwe"}`))
	moveTo(200, t2, "processing", "")
	moveTo(200, t2, "coins-sent", "")
	moveTo(400, t2, "fail", `{"code":"nope"}`)
	g.advance(time.Minute)
	moveTo(200, t2, "fail", `{"code":"not_delivered"}`)
	moveTo(409, t2, "fail", `{"code":"other"}`)
	g.advance(time.Minute)
	moveTo(200, t2, "refund-returned", "")
	moveTo(200, t2, "refund-returned", "")

	// T3: to-bank, cancelled; T4: failed before the coins left.
	q = quote(quoteBody("USDT", "MWK", "from", "20"))
	t3 := order("t3", orderBody(q, "inv-3", beneficiaryJSON))
	moveTo(200, t3, "cancel", "")
	moveTo(409, t3, "processing", "")
	q = quote(quoteBody("USDT", "MWK", "from", "21"))
	t4 := order("t4", orderBody(q, "inv-4", beneficiaryJSON))
	moveTo(200, t4, "fail", `{"code":"unable_to_fill"}`)

	// Move refusals.
	moveTo(404, t1, "nope", "")
	moveTo(404, goldenUnknownID, "processing", "")
	moveTo(400, t1, "processing", `{"x":`)
	g.adm(415, "POST", "/admin/orders/"+t1+"/processing", `{}`, "Content-Type", "text/plain")
	g.adm(405, "GET", "/admin/orders/"+t1+"/processing", "")

	// F1: from-bank, a rejected proof, then a confirmed one.
	q = quote(quoteBody("MWK", "USDT", "from", "100000.00"))
	f1 := order("f1", orderBody(q, "wire-1", ""))
	g.pub(422, o.keyA, "POST", "/v2/orders", orderBody(quote(quoteBody("MWK", "USDT", "from", "2000")), "wire-x", beneficiaryJSON), "Idempotency-Key", "f-beneficiary")
	g.pub(409, o.keyA, "PUT", "/v2/orders/"+f1+"/proofs/funding", pdf1, "Content-Type", "application/pdf")
	g.pub(404, o.keyA, "GET", "/v2/orders/"+f1+"/proofs/funding", "")
	moveTo(400, f1, "instructions", `{"bank_name":"NBM","account_name":"Tambala Desk","account_number":"0011223344","deadline":"tomorrow"}`)
	moveTo(200, f1, "instructions", `{"bank_name":"NBM","account_name":"Tambala Desk","account_number":"0011223344"}`)
	g.advance(time.Hour)
	g.pub(415, o.keyA, "PUT", "/v2/orders/"+f1+"/proofs/funding", pdf1, "Content-Type", "image/png")
	g.pub(415, o.keyA, "PUT", "/v2/orders/"+f1+"/proofs/funding", pdf1, "Content-Type", "text/plain")
	g.pub(200, o.keyA, "PUT", "/v2/orders/"+f1+"/proofs/funding", pdf1, "Content-Type", "application/pdf")
	g.pub(200, o.keyA, "PUT", "/v2/orders/"+f1+"/proofs/funding", pdf1, "Content-Type", "application/pdf")
	g.pub(409, o.keyA, "PUT", "/v2/orders/"+f1+"/proofs/funding", pdf2, "Content-Type", "application/pdf")
	link := g.pub(200, o.keyA, "GET", "/v2/orders/"+f1+"/proofs/funding", "").str(t, "url")
	g.pub(200, "", "GET", link, "")
	g.pub(404, "", "GET", link+"x", "")
	g.pub(404, o.keyC, "GET", "/v2/orders/"+f1+"/proofs/funding", "")
	g.adm(200, "GET", "/admin/orders/"+f1+"/proofs/funding", "")
	proof1 := g.adm(200, "GET", "/admin/orders/"+f1, "").str(t, "proof", "id")
	g.advance(time.Minute)
	moveTo(200, f1, "reject-proof", `{"proof_id":"`+proof1+`","reason":"The amount is not visible."}`)
	g.advance(time.Minute)
	g.pub(200, o.keyA, "PUT", "/v2/orders/"+f1+"/proofs/funding", pngBytes, "Content-Type", "image/png")
	proof2 := g.adm(200, "GET", "/admin/orders/"+f1, "").str(t, "proof", "id")
	g.adm(200, "GET", "/admin/orders/"+f1+"/proofs/funding", "")
	moveTo(409, f1, "confirm-funds", `{"proof_id":"`+proof1+`"}`)
	moveTo(200, f1, "confirm-funds", `{"proof_id":"`+proof2+`"}`)
	moveTo(200, f1, "complete", "")
	g.pub(409, o.keyA, "PUT", "/v2/orders/"+f1+"/proofs/funding", pdf1, "Content-Type", "application/pdf")
	g.pub(200, o.keyA, "GET", "/v2/orders/"+f1, "")

	// F2: from-bank, expired past the desk's deadline.
	q = quote(quoteBody("MWK", "USDT", "to", "10"))
	f2 := order("f2", orderBody(q, "wire-2", ""))
	deadline := g.Clock.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339Nano)
	moveTo(200, f2, "instructions", `{"bank_name":"NBM","account_name":"Tambala Desk","account_number":"0011223344","reference":"TMBWIRE2","deadline":"`+deadline+`"}`)
	g.processOrders()
	g.advance(2*time.Hour + time.Millisecond)
	g.pub(409, o.keyA, "PUT", "/v2/orders/"+f2+"/proofs/funding", pdf1, "Content-Type", "application/pdf")
	g.processOrders()
	g.pub(200, o.keyA, "GET", "/v2/orders/"+f2, "")

	// An expired quote.
	q = quote(quoteBody("USDT", "MWK", "from", "10"))
	g.advance(61 * time.Second)
	g.pub(422, o.keyA, "POST", "/v2/orders", orderBody(q, "late", beneficiaryJSON), "Idempotency-Key", "late")

	// Lists.
	g.pub(200, o.keyA, "GET", "/v2/orders", "")
	g.pub(200, o.keyA, "GET", "/v2/orders?limit=2", "")
	g.pub(200, o.keyA, "GET", "/v2/orders?status=failed", "")
	g.pub(200, o.keyA, "GET", "/v2/orders?client_ref=inv-1", "")
	g.pub(400, o.keyA, "GET", "/v2/orders?client_ref=", "")
	g.pub(400, o.keyA, "GET", "/v2/orders?status=done", "")
	g.pub(404, o.keyA, "GET", "/v2/orders/"+goldenUnknownID, "")
	g.adm(200, "GET", "/admin/orders", "")
	g.adm(200, "GET", "/admin/orders?status=failed&org="+o.a, "")
	g.adm(200, "GET", "/admin/orders?limit=1&before_id="+t3, "")
	g.adm(400, "GET", "/admin/orders?status=done", "")
	g.adm(200, "GET", "/admin/orders/"+t2, "")
	g.adm(404, "GET", "/admin/orders/"+goldenUnknownID, "")
	g.adm(404, "GET", "/admin/orders/"+t1+"/proofs/funding", "")
	g.pub(200, o.keyA, "GET", "/v2/balances", "")
	g.deliver()
}

func goldenConversions(g *goldenEnv, o goldenOrgs) {
	t := g.t
	g.section("04_v2_conversions", "/v2 conversions: quotes, creates, the worker's outcomes, the operator's limits.")
	quote := func(want int, body string) *resp {
		t.Helper()
		return g.pub(want, o.keyA, "POST", "/v2/conversions/quotes", body)
	}
	q1 := quote(201, quoteBody("USDT", "MWK", "from", "100")).str(t, "quote_id")
	q2 := quote(201, quoteBody("MWK", "USDT", "from", "18000.00")).str(t, "quote_id")
	quote(201, quoteBody("MWK", "USDT", "to", "3"))
	quote(422, quoteBody("USDT", "USDT", "from", "1"))
	g.pub(403, o.keyC, "POST", "/v2/conversions/quotes", quoteBody("USDT", "MWK", "from", "1"))
	c1 := g.pub(201, o.keyA, "POST", "/v2/conversions", convBody(q1), "Idempotency-Key", "c1").str(t, "id")
	g.pub(201, o.keyA, "POST", "/v2/conversions", convBody(q1), "Idempotency-Key", "c1")
	g.pub(409, o.keyA, "POST", "/v2/conversions", convBody(q2), "Idempotency-Key", "c1")
	g.pub(409, o.keyA, "POST", "/v2/conversions", convBody(q1), "Idempotency-Key", "c1-again")
	c2 := g.pub(201, o.keyA, "POST", "/v2/conversions", convBody(q2), "Idempotency-Key", "c2").str(t, "id")
	g.pub(400, o.keyA, "POST", "/v2/conversions", `{}`, "Idempotency-Key", "c3")
	g.pub(404, o.keyA, "POST", "/v2/conversions", convBody(goldenUnknownID), "Idempotency-Key", "c4")
	g.pub(400, o.keyA, "POST", "/v2/conversions", convBody(q2))
	g.pub(403, o.keyB, "POST", "/v2/conversions", convBody(q2), "Idempotency-Key", "c5")
	g.conv.ScriptFailure(c2, tambala.ConversionProviderDeclined)
	g.note("the converter declines %s", c2)
	g.pub(200, o.keyA, "GET", "/v2/conversions/"+c1, "")
	g.pub(200, o.keyA, "GET", "/v2/conversions", "")
	g.work(4)
	g.pub(200, o.keyA, "GET", "/v2/conversions/"+c1, "")
	g.pub(200, o.keyA, "GET", "/v2/conversions/"+c2, "")
	g.pub(404, o.keyA, "GET", "/v2/conversions/"+goldenUnknownID, "")
	g.pub(200, o.keyA, "GET", "/v2/conversions?limit=1", "")
	g.pub(200, o.keyA, "GET", "/v2/conversions?status=failed", "")
	g.pub(200, o.keyA, "GET", "/v2/conversions?status=lost", "") // an unknown status filters nothing (as of this pin)

	// The operator's limits.
	g.adm(200, "GET", "/admin/assets/USDT/limits/convert", "")
	g.adm(200, "PUT", "/admin/assets/USDT/limits/convert", `{"min":"1.5","max":"500"}`)
	g.adm(200, "GET", "/admin/assets/USDT/limits/convert", "")
	quote(422, quoteBody("USDT", "MWK", "from", "1"))
	quote(422, quoteBody("USDT", "MWK", "from", "501"))
	g.adm(200, "PUT", "/admin/assets/USDT/limits/convert", `{}`)
	g.adm(400, "PUT", "/admin/assets/USDT/limits/convert", `{"min":1}`)
	g.adm(400, "GET", "/admin/assets/USDT/limits/mint", "")
	g.adm(400, "PUT", "/admin/assets/EUR/limits/payout", `{"min":"1"}`)
	g.adm(200, "GET", "/admin/networks", "")
	g.pub(200, o.keyA, "GET", "/v2/balances", "")
	g.deliver()
}

func goldenPayoutsV2(g *goldenEnv, o goldenOrgs) {
	t := g.t
	g.section("05_v2_payouts", "/v2 payouts: wallet, bank (with FX) and momo destinations through the worker; refusals.")
	post := func(want int, idem, body string) *resp {
		t.Helper()
		if idem == "" {
			return g.pub(want, o.keyA, "POST", "/v2/payouts", body)
		}
		return g.pub(want, o.keyA, "POST", "/v2/payouts", body, "Idempotency-Key", idem)
	}
	reversed := "3333888803"
	g.prov.ScriptDestination(reversed, sandbox.Outcome{Clawback: true})
	g.note("the provider reverses payouts to %s after they succeed", reversed)
	w1 := post(202, "w1", walletBody("USDT", "USDT", "5", "tron", sandbox.TestWalletAddresses["tron"][0])).str(t, "id")
	post(202, "w1", walletBody("USDT", "USDT", "5", "tron", sandbox.TestWalletAddresses["tron"][0]))
	post(409, "w1", walletBody("USDT", "USDT", "6", "tron", sandbox.TestWalletAddresses["tron"][0]))
	post(409, "w1", `{"amount":1}`)
	w2 := post(202, "w2", walletBody("USDT", "USDT", "3.25", "ethereum", "0x4444444444444444444444444444444444444444")).str(t, "id")
	w3 := post(202, "w3", fmt.Sprintf(`{"source_asset":"USDT","asset":"MWK","amount":"1000.00","destination":{"type":"bank","institution_id":1,"account_number":%q,"beneficiary_name":"Chikondi Banda"}}`, reversed)).str(t, "id")
	w4 := post(202, "w4", momoV2Body("1000", "111100000221", 101)).str(t, "id")
	post(202, "w5", bankV2Body("MWK", "1500", 1))
	// Refusals.
	post(400, "", walletBody("USDT", "USDT", "5", "tron", v2Tron))
	post(400, "w-bad-1", `{"source_asset":"USDT","asset":"USDT","amount":5,"destination":{"type":"wallet","network":"tron","address":"`+v2Tron+`"}}`)
	post(400, "w-bad-2", `{"source_asset":"USDT","asset":"USDT","amount":"5","destination":{"type":"card"}}`)
	post(402, "w-bad-3", walletBody("USDT", "USDT", "5000", "tron", v2Tron))
	post(403, "w-bad-4", walletBody("EURC", "USDT", "5", "tron", v2Tron))
	post(422, "w-bad-5", walletBody("USDT", "USDT", "5", "solana", v2Tron))
	post(422, "w-bad-6", walletBody("USDT", "USDT", "5", "tron", v2EVM))
	post(422, "w-bad-7", bankV2Body("MWK", "1000", 77))
	post(422, "w-bad-8", momoV2Body("1000", "265888888888", 101))
	g.pub(403, o.keyB, "POST", "/v2/payouts", walletBody("USDT", "USDT", "5", "tron", v2Tron), "Idempotency-Key", "w-b")
	// Reads, the operator's in-flight view, the worker.
	g.pub(200, o.keyA, "GET", "/v2/payouts/"+w1, "")
	g.pub(404, o.keyA, "GET", "/v2/payouts/"+goldenUnknownID, "")
	g.pub(200, o.keyA, "GET", "/v2/payouts", "")
	g.adm(200, "GET", "/admin/payouts/in-flight?org="+o.a, "")
	g.work(4)
	for _, id := range []string{w1, w2, w3, w4} {
		g.pub(200, o.keyA, "GET", "/v2/payouts/"+id, "")
	}
	g.pub(200, o.keyA, "GET", "/v2/payouts?limit=2", "")
	g.pub(200, o.keyA, "GET", "/v2/payouts?status=reversed", "")
	g.pub(400, o.keyA, "GET", "/v2/payouts?limit=1000", "")
	g.pub(200, o.keyA, "GET", "/v2/balances", "")
	g.deliver()
}

func goldenCollectionsV2(g *goldenEnv, o goldenOrgs) {
	t := g.t
	g.section("06_v2_collections", "/v2 deposit addresses and collections: simulated, recorded deposits, reads.")
	// An issuer that fails: no partial list, the first time.
	g.issuer.Fail("ethereum", errors.New("the issuer is down"))
	g.note("the issuer fails on ethereum")
	g.pub(503, o.keyA, "GET", "/v2/deposit-addresses", "")
	g.issuer.Fail("ethereum", nil)
	g.note("the issuer works again")
	g.pub(200, o.keyA, "GET", "/v2/deposit-addresses", "")
	// Once issued, kept: the issuer is not asked again.
	g.issuer.Fail("ethereum", errors.New("the issuer is down"))
	g.note("the issuer fails on ethereum")
	g.pub(200, o.keyA, "GET", "/v2/deposit-addresses", "")
	g.adm(503, "POST", "/admin/orgs/"+o.a+"/deposit-addresses/ethereum/rotate", "")
	g.issuer.Fail("ethereum", nil)
	g.note("the issuer works again")
	g.pub(200, o.keyC, "GET", "/v2/deposit-addresses", "") // no asset with collection: none
	g.adm(200, "POST", "/admin/orgs/"+o.a+"/deposit-addresses/tron/rotate", "")
	g.adm(422, "POST", "/admin/orgs/"+o.a+"/deposit-addresses/solana/rotate", "")
	g.adm(404, "POST", "/admin/orgs/"+goldenUnknownID+"/deposit-addresses/tron/rotate", "")
	g.pub(200, o.keyA, "GET", "/v2/deposit-addresses", "")
	s1 := g.pub(201, o.keyA, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"25.5","network":"tron"}`).str(t, "id")
	g.pub(201, o.keyA, "POST", "/v2/collections/simulate", `{"asset":"MWK","amount":"5000"}`)
	g.pub(400, o.keyA, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":25}`)
	g.pub(400, o.keyA, "POST", "/v2/collections/simulate", `{"amount":"25"}`)
	g.pub(422, o.keyA, "POST", "/v2/collections/simulate", `{"asset":"USDT","amount":"25","network":"solana"}`)
	g.adm(201, "POST", "/admin/orgs/"+o.a+"/deposits", `{"network":"tron","asset":"USDT","amount":"10","tx_ref":"0xdeadbeef01"}`)
	g.adm(201, "POST", "/admin/orgs/"+o.a+"/deposits", `{"network":"tron","asset":"USDT","amount":"10","tx_ref":"0xdeadbeef01"}`)
	g.adm(409, "POST", "/admin/orgs/"+o.a+"/deposits", `{"network":"tron","asset":"USDT","amount":"11","tx_ref":"0xdeadbeef01"}`)
	g.adm(400, "POST", "/admin/orgs/"+o.a+"/deposits", `{"network":"tron","asset":"USDT","amount":10,"tx_ref":"0xdeadbeef02"}`)
	g.pub(200, o.keyA, "GET", "/v2/collections", "")
	g.pub(200, o.keyA, "GET", "/v2/collections?asset=USDT&limit=2", "")
	g.pub(400, o.keyA, "GET", "/v2/collections?asset=", "")
	g.pub(200, o.keyA, "GET", "/v2/collections/"+s1, "")
	g.pub(404, o.keyA, "GET", "/v2/collections/"+goldenUnknownID, "")
	g.pub(200, o.keyA, "GET", "/v2/balances", "")
	g.deliver()
}

func goldenAdmin(g *goldenEnv, o goldenOrgs) {
	t := g.t
	g.section("07_admin", "The operator's switches on an organization, rails, pauses, reference data, webhook deliveries.")
	base := "/admin/orgs/" + o.c
	// Status.
	g.adm(200, "PUT", base+"/status", `{"status":"suspended"}`)
	g.pub(403, o.keyC, "GET", "/v1/ping", "")
	g.adm(200, "PUT", base+"/status", `{"status":"active"}`)
	g.adm(400, "PUT", base+"/status", `{"status":"gone"}`)
	g.pub(200, o.keyC, "GET", "/v1/ping", "")
	// /v2 access.
	g.adm(200, "PUT", base+"/v2-access", `{"v2_access":"access_suspended"}`)
	g.pub(403, o.keyC, "GET", "/v2/balances", "")
	g.pub(200, o.keyC, "GET", "/v2/ping", "")
	g.adm(200, "PUT", base+"/v2-access", `{"v2_access":"enabled"}`)
	g.adm(400, "PUT", base+"/v2-access", `{"v2_access":"yes"}`)
	// Assets.
	g.adm(200, "PUT", base+"/assets", `{"assets":[{"asset":"USDT","operations":["payout","convert"]},{"asset":"MWK","operations":["payout"]}]}`)
	g.pub(403, o.keyC, "POST", "/v2/collections/simulate", `{"asset":"MWK","amount":"10"}`)
	g.adm(400, "PUT", base+"/assets", `{"assets":[{"asset":"MWK","operations":["mint"]}]}`)
	g.adm(200, "PUT", base+"/assets", `{"assets":[{"asset":"MWK","operations":["payout","collection"]},{"asset":"USDT","operations":["payout"]}]}`)
	// Allowlist.
	g.adm(200, "PUT", base+"/allowlist", `{"addresses":["192.0.2.1","2001:db8::1"]}`)
	g.pub(403, o.keyC, "GET", "/v1/ping", "")
	g.adm(400, "PUT", base+"/allowlist", `{"addresses":["198.51.100.0/24"]}`)
	g.adm(200, "PUT", base+"/allowlist", `{"addresses":["127.0.0.1"]}`)
	g.pub(200, o.keyC, "GET", "/v1/ping", "")
	g.adm(200, "PUT", base+"/allowlist", `{"addresses":[]}`)
	// Keys: the second one revoked.
	keys := g.adm(200, "GET", base+"/keys", "")
	var list struct {
		Keys []struct {
			ID     string `json:"id"`
			Prefix string `json:"prefix"`
		} `json:"keys"`
	}
	keys.decode(t, &list)
	if len(list.Keys) != 2 {
		t.Fatalf("keys = %s", keys.Body)
	}
	g.adm(200, "DELETE", base+"/keys/"+list.Keys[1].ID, "")
	g.adm(404, "DELETE", base+"/keys/"+goldenUnknownID, "")
	g.adm(404, "DELETE", "/admin/orgs/"+o.a+"/keys/"+list.Keys[0].ID, "")
	g.pub(401, o.keyC2, "GET", "/v1/ping", "")
	g.pub(200, o.keyC, "GET", "/v1/ping", "")
	g.adm(200, "GET", base+"/keys", "")
	// Payout limits.
	g.adm(200, "PUT", base+"/payout-limits", `{"hourly_count":1,"max_per_payout_mwk":"20000.00"}`)
	g.adm(400, "PUT", base+"/payout-limits", `{"hourly_count":-1}`)
	g.pub(422, o.keyC, "POST", "/v1/payouts/bank", fmt.Sprintf(goldenBank, "20000.01", "3333888805"), "Idempotency-Key", "c-1")
	g.pub(202, o.keyC, "POST", "/v1/payouts/bank", fmt.Sprintf(goldenBank, "20000", "3333888805"), "Idempotency-Key", "c-2")
	g.pub(429, o.keyC, "POST", "/v1/payouts/bank", fmt.Sprintf(goldenBank, "100", "3333888805"), "Idempotency-Key", "c-3")
	g.adm(200, "PUT", base+"/payout-limits", `{}`)
	// Rails.
	g.adm(200, "PUT", "/admin/rails/momo", `{"disabled":true}`)
	g.pub(503, o.keyC, "POST", "/v1/payouts/momo", fmt.Sprintf(goldenMomo, "100", sandboxWallet), "Idempotency-Key", "c-4")
	g.adm(200, "PUT", "/admin/rails/momo", `{"disabled":false}`)
	g.adm(400, "PUT", "/admin/rails/card", `{"disabled":true}`)
	// The floor of C: its payout above took it under.
	g.adm(200, "PUT", base+"/balance-floor", `{"floor_mwk":""}`)
	g.adm(200, "GET", base, "")
	// Pauses.
	g.adm(200, "GET", "/admin/pause", "")
	g.adm(200, "PUT", "/admin/pause", `{"api":"v1","mode":"maintenance"}`)
	g.pub(503, o.keyA, "GET", "/v1/balance", "")
	g.pub(200, o.keyA, "GET", "/v2/balances/MWK", "")
	g.adm(200, "PUT", "/admin/pause", `{"api":"v2","mode":"incident"}`)
	g.pub(200, o.keyA, "GET", "/v2/ping", "")
	g.pub(503, o.keyA, "GET", "/v2/balances", "")
	g.pub(503, o.keyA, "POST", "/v2/payouts", walletBody("USDT", "USDT", "5", "tron", v2Tron), "Idempotency-Key", "paused")
	g.adm(200, "GET", "/admin/pause", "")
	g.adm(400, "PUT", "/admin/pause", `{"api":"v3","mode":"live"}`)
	g.adm(400, "PUT", "/admin/pause", `{"api":"v1","mode":"asleep"}`)
	g.adm(200, "PUT", "/admin/pause", `{"api":"v1","mode":"live"}`)
	g.adm(200, "PUT", "/admin/pause", `{"api":"v2","mode":"live"}`)
	g.pub(200, o.keyA, "GET", "/v2/ping", "")
	// Reference data.
	g.adm(200, "PUT", "/admin/institutions", `{"institutions":[`+
		`{"institution_id":1,"name":"National Bank of Malawi","rail":"bank","account_number_digits":{"min_digits":6,"max_digits":13}},`+
		`{"institution_id":7,"name":"CDH Investment Bank","rail":"bank"},`+
		`{"institution_id":101,"name":"Airtel Money","rail":"momo","network":"9"}]}`)
	g.adm(400, "PUT", "/admin/institutions", `{"institutions":[{"institution_id":1,"name":"","rail":"bank"}]}`)
	g.pub(200, o.keyB, "GET", "/v1/institutions", "")
	g.pub(200, o.keyB, "GET", "/v1/banks", "")
	g.pub(200, o.keyB, "GET", "/v1/operators", "")
	// Backups need a store that makes them (memstore does not: 404); an
	// admin handler with Options.Backup, a stub writing fixed bytes, pins
	// how the route streams one. Metrics are the host's.
	g.adm(404, "GET", "/admin/backup", "")
	withBackup, err := httpapi.NewAdmin(g.Engine, adminToken, &httpapi.Options{Backup: goldenBackup{}})
	if err != nil {
		t.Fatal(err)
	}
	bsrv := httptest.NewServer(withBackup)
	defer bsrv.Close()
	g.note("an admin handler with Options.Backup: a stub that writes %q", goldenBackupBytes)
	g.admSrv, bsrv = bsrv, g.admSrv
	g.pinned = true
	g.adm(200, "GET", "/admin/backup", "")
	g.pinned = false
	g.admSrv, bsrv = bsrv, g.admSrv
	g.adm(200, "GET", "/metrics", "")
	g.call(true, 401, "", "GET", "/metrics", "")

	// The deliveries: B's endpoint was down, so its deliveries are dead.
	g.work(2)
	g.deliver()
	g.adm(200, "GET", "/admin/orgs/"+o.a+"/deliveries?limit=3", "")
	dead := g.adm(200, "GET", "/admin/orgs/"+o.b+"/deliveries", "")
	var page struct {
		Deliveries []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"deliveries"`
	}
	dead.decode(t, &page)
	if len(page.Deliveries) == 0 || page.Deliveries[0].State != "dead" {
		t.Fatalf("B's deliveries = %s", truncate(dead.Body))
	}
	g.sender.setDown(hookBeta, false)
	g.note("the endpoint %s answers 200 again", hookBeta)
	id := page.Deliveries[len(page.Deliveries)-1].ID
	g.adm(404, "POST", "/admin/orgs/"+o.a+"/deliveries/"+id+"/redeliver", "")
	g.adm(200, "POST", "/admin/orgs/"+o.b+"/deliveries/"+id+"/redeliver", "")
	g.adm(409, "POST", "/admin/orgs/"+o.b+"/deliveries/"+id+"/redeliver", "")
	g.advance(time.Second)
	g.deliver()
	g.adm(200, "GET", "/admin/orgs/"+o.b+"/deliveries?limit=2&before_id="+page.Deliveries[len(page.Deliveries)-3].ID, "")
	g.adm(200, "GET", "/admin/orgs/"+o.b+"/deliveries", "")
	g.adm(200, "GET", "/admin/orgs/"+goldenUnknownID+"/deliveries", "")
	g.adm(400, "GET", "/admin/orgs/"+o.b+"/deliveries?limit=0", "")
	g.adm(200, "GET", "/admin/orgs", "")
}
