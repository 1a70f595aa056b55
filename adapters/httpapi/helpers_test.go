package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/prommetrics"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// adminToken is the admin token of every test environment.
const adminToken = "adm_test_0123456789abcdefghijklmnopqrstuvwxyz"

// ---------------------------------------------------------------------------
// The OpenAPI document, loaded once.

type openAPI struct {
	doc    *openapi3.T
	router routers.Router
	err    error
}

var (
	specOnce sync.Once
	spec     openAPI
)

// loadSpec parses the embedded document, validates it and builds a router.
func loadSpec(t testing.TB) openAPI {
	t.Helper()
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(httpapi.OpenAPI())
		if err != nil {
			spec.err = fmt.Errorf("loading openapi.json: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			spec.err = fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
			return
		}
		r, err := gorillamux.NewRouter(doc)
		if err != nil {
			spec.err = fmt.Errorf("building the router: %w", err)
			return
		}
		spec = openAPI{doc: doc, router: r}
	})
	if spec.err != nil {
		t.Fatal(spec.err)
	}
	return spec
}

// uuidFormat checks format: uuid (any version, ids are UUIDv7).
var uuidFormat = openapi3.WithStringFormatValidator("uuid",
	openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562))

var validationOptions = &openapi3filter.Options{
	IncludeResponseStatus:   true, // an undocumented status is a failure
	MultiError:              true,
	AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
	SchemaValidationOptions: []openapi3.SchemaValidationOption{uuidFormat},
}

// exercised records the documented (operation, status) pairs the tests
// received; TestMain checks every operation saw a success.
var exercised sync.Map // "operationId status" -> true

// checkPublic validates one public-API response against the document: a
// routed request's status, headers and body must match its operation; an
// unrouted one must be the 404/405 envelope (a 2xx there means the handler
// serves a route the document does not list).
func checkPublic(t testing.TB, method, target string, status int, header http.Header, body []byte) {
	t.Helper()
	s := loadSpec(t)
	checkEnvelope(t, method, target, status, header, body)
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		t.Errorf("%s %s: %v", method, target, err)
		return
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		switch {
		case status >= 200 && status < 300:
			t.Errorf("%s %s answered %d, but the OpenAPI document lists no such operation (%v)", method, target, status, err)
		case errors.Is(err, routers.ErrPathNotFound) && status != 404 && status != 413:
			t.Errorf("%s %s: path not in the document, yet status %d (want 404)", method, target, status)
		// 404 too: a concrete path (/v1/payouts/bank) is also matched by a
		// templated one of another method (GET /v1/payouts/{id}).
		case errors.Is(err, routers.ErrMethodNotAllowed) && status != 405 && status != 404 && status != 413:
			t.Errorf("%s %s: method not in the document, yet status %d (want 405)", method, target, status)
		}
		if status == 405 && header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without an Allow header", method, target)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route, Options: validationOptions,
		},
		Status:  status,
		Header:  header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: validationOptions,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s -> %d does not match the OpenAPI document: %v\nbody: %s", method, target, status, err, truncate(body))
		return
	}
	exercised.Store(fmt.Sprintf("%s %d", route.Operation.OperationID, status), true)
}

// checkEnvelope holds for every response of both handlers: JSON content
// type and body; a non-2xx is exactly the envelope, with a code of the
// table and the table's status.
func checkEnvelope(t testing.TB, method, target string, status int, header http.Header, body []byte) {
	t.Helper()
	if ct := header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s -> %d: Content-Type %q, want application/json", method, target, status, ct)
	}
	if !json.Valid(body) {
		t.Errorf("%s %s -> %d: body is not JSON: %s", method, target, status, truncate(body))
		return
	}
	if status < 300 {
		return
	}
	var env struct {
		Error map[string]json.RawMessage `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || len(env.Error) != 2 {
		t.Errorf("%s %s -> %d: not the error envelope: %s", method, target, status, truncate(body))
		return
	}
	var code, msg string
	if json.Unmarshal(env.Error["code"], &code) != nil || json.Unmarshal(env.Error["message"], &msg) != nil || msg == "" {
		t.Errorf("%s %s -> %d: envelope needs string code and non-empty message: %s", method, target, status, truncate(body))
		return
	}
	if !errcode.Known(errcode.Code(code)) {
		t.Errorf("%s %s -> %d: code %q is not in errcode.Table", method, target, status, code)
		return
	}
	if want := httpapi.Status(errcode.Code(code)); want != status {
		t.Errorf("%s %s: code %s sent with status %d, table says %d", method, target, code, status, want)
	}
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}

// TestMain runs the tests, then (on a full run) checks every documented
// operation was exercised with a success status.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	full := flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.fuzz").Value.String() == "" &&
		flag.Lookup("test.skip").Value.String() == ""
	if code == 0 && full && !testing.Short() {
		// Both documents: the public one and the admin one.
		if missing := unexercised(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: no test received a documented success response of: %s\n", strings.Join(missing, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// The test environment: an engine over memstore, the real public and admin
// handlers on httptest servers, a fake clock and a fake client address.

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type envConfig struct {
	environment tambala.Environment
	limits      tambala.Limits
	store       store.Store
	logger      *zap.Logger
	defaultAddr bool // use the handler's own ClientAddr
	realClock   bool
	provider    bool          // wire a sandbox payout provider on the env's clock
	delay       time.Duration // the sandbox provider's time to an outcome
	engineOpts  func(*tambala.Options)
}

type option func(*envConfig)

func withLimits(l tambala.Limits) option           { return func(c *envConfig) { c.limits = l } }
func withEnvironment(e tambala.Environment) option { return func(c *envConfig) { c.environment = e } }
func withStore(s store.Store) option               { return func(c *envConfig) { c.store = s } }
func withLogger(l *zap.Logger) option              { return func(c *envConfig) { c.logger = l } }
func withDefaultClientAddr() option                { return func(c *envConfig) { c.defaultAddr = true } }
func withRealClock() option                        { return func(c *envConfig) { c.realClock = true } }

// withEngineOptions changes the engine's options last.
func withEngineOptions(f func(*tambala.Options)) option {
	return func(c *envConfig) { c.engineOpts = f }
}

// withSandboxProvider wires a sandbox payout provider, on the env's clock,
// that reports an outcome delay after a payout is submitted.
func withSandboxProvider(delay time.Duration) option {
	return func(c *envConfig) { c.provider, c.delay = true, delay }
}

// withWorker tunes the engine's payout worker.

type testEnv struct {
	Engine   *tambala.Engine
	Provider *sandbox.Provider // nil unless withSandboxProvider
	Store    store.Store
	Clock    *fakeClock
	Public   http.Handler
	Admin    http.Handler
	srv      *httptest.Server
	admSrv   *httptest.Server
	addr     atomic.Pointer[netip.Addr]
}

var epoch = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// newEnv builds an environment. Default limits leave the rate limiter out
// of the way (the fake clock does not move by itself).
func newEnv(t testing.TB, opts ...option) *testEnv {
	t.Helper()
	c := envConfig{
		limits: tambala.Limits{RatePerSecond: 1_000_000, RateBurst: 1_000_000},
		logger: zap.NewNop(),
	}
	for _, o := range opts {
		o(&c)
	}
	if c.store == nil {
		c.store = memstore.New()
	}
	e := &testEnv{Store: c.store, Clock: &fakeClock{t: epoch}}
	clock := e.Clock.Now
	if c.realClock {
		clock = time.Now
	}
	reg := prometheus.NewRegistry()
	pm := prommetrics.New(reg)
	// One zap core behind every part, as in the server.
	logger := slog.New(zapslog.NewHandler(c.logger.Core()))
	eopts := &tambala.Options{Metrics: pm,
		Logger: logger, Clock: clock, Environment: c.environment, Limits: c.limits,
		// Cheap password hashes: the portal's people are made in tests.
		People: tambala.PeopleOptions{PasswordParams: accounts.TestParams},
	}
	if c.provider {
		e.Provider = sandbox.New(&sandbox.Options{Clock: clock, Delay: c.delay})
		eopts.Payouts = e.Provider
	}
	if c.engineOpts != nil {
		c.engineOpts(eopts)
	}
	eng, err := tambala.New(c.store, eopts)
	if err != nil {
		t.Fatal(err)
	}
	e.Engine = eng
	hopts := &httpapi.Options{Logger: logger, Observe: func(route string, status int, code string, d time.Duration) {
		pm.ObserveHTTP("public", route, status, code, d)
	}}
	if !c.defaultAddr {
		hopts.ClientAddr = func(r *http.Request) netip.Addr {
			if a := e.addr.Load(); a != nil {
				return *a
			}
			ap, err := netip.ParseAddrPort(r.RemoteAddr)
			if err != nil {
				return netip.Addr{}
			}
			return ap.Addr().Unmap()
		}
	}
	e.Public = httpapi.New(eng, hopts)
	aopts := &httpapi.Options{Logger: logger, Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}
	if b, ok := c.store.(httpapi.Backuper); ok {
		aopts.Backup = b
	}
	adm, err := httpapi.NewAdmin(eng, adminToken, aopts)
	if err != nil {
		t.Fatal(err)
	}
	e.Admin = adm
	e.srv = httptest.NewServer(e.Public)
	e.admSrv = httptest.NewServer(e.Admin)
	t.Cleanup(func() {
		e.srv.Close()
		e.admSrv.Close()
	})
	return e
}

// setAddr fakes the client address the allowlist sees.
func (e *testEnv) setAddr(t testing.TB, s string) {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	e.addr.Store(&a)
}

// orgSpec describes an organization to set up directly on the engine.
type orgSpec struct {
	name     string
	v2       tambala.V2Access
	assets   []tambala.AssetAccess
	fundMWK  int64
	fundUSDT int64
}

// allAssets is MWK and USDT with every operation.
var allAssets = []tambala.AssetAccess{
	{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
	{Asset: "USDT", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
}

// assetsJSON is assets as the admin API takes them:
// [{"asset","operations"}].
func assetsJSON(assets []tambala.AssetAccess) []map[string]any {
	out := make([]map[string]any, len(assets))
	for i, a := range assets {
		out[i] = map[string]any{"asset": a.Asset, "operations": a.Operations}
	}
	return out
}

// newOrg creates an organization and one key on the engine.
func (e *testEnv) newOrg(t testing.TB, s orgSpec) (tambala.Organization, string) {
	t.Helper()
	ctx := context.Background()
	if s.name == "" {
		s.name = "Org " + t.Name()
	}
	o, err := e.Engine.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: s.name, V2Access: s.v2, Assets: s.assets})
	if err != nil {
		t.Fatal(err)
	}
	if s.fundMWK > 0 {
		if err := e.Engine.Operator().Fund(ctx, o.ID, money.FromInt(money.MWK, s.fundMWK), "seed"); err != nil {
			t.Fatal(err)
		}
	}
	if s.fundUSDT > 0 {
		if err := e.Engine.Operator().Fund(ctx, o.ID, money.FromInt(money.USDT, s.fundUSDT), "seed"); err != nil {
			t.Fatal(err)
		}
	}
	key, _, err := e.Engine.Operator().CreateKey(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	return o, key
}

// ---------------------------------------------------------------------------
// Requests.

type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// code returns the error code of an envelope ("" when none).
func (r *resp) code() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// obj decodes the body as a JSON object.
func (r *resp) obj(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, truncate(r.Body))
	}
	return m
}

func (r *resp) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", truncate(r.Body), err)
	}
}

// want fails unless the response has status (and, for errors, code).
func (r *resp) want(t testing.TB, status int, code string) *resp {
	t.Helper()
	if r.Status != status || (code != "" && r.code() != code) {
		t.Errorf("got %d %s, want %d %s", r.Status, truncate(r.Body), status, code)
	}
	return r
}

// hdr builds request headers: a bearer key ("" for none) and name/value
// pairs.
func hdr(key string, kv ...string) map[string]string {
	h := map[string]string{}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

func encodeBody(body any) (io.Reader, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.NewReader(b), nil
	case []byte:
		return bytes.NewReader(b), nil
	case io.Reader:
		return b, nil
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		return bytes.NewReader(j), nil
	}
}

func send(srv *httptest.Server, method, path string, body any, headers map[string]string) (*resp, error) {
	rd, err := encodeBody(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	// Redirects are answers too: never follow them.
	c := *srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &resp{Status: res.StatusCode, Header: res.Header, Body: b}, nil
}

// do sends a public-API request to the real handler over HTTP and
// validates the response against the OpenAPI document. It reports with
// t.Errorf only, so goroutines may call it.
func (e *testEnv) do(t testing.TB, method, path string, body any, headers map[string]string) *resp {
	t.Helper()
	r, err := send(e.srv, method, path, body, headers)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return &resp{Header: http.Header{}}
	}
	checkPublic(t, method, path, r.Status, r.Header, r.Body)
	return r
}

// admin sends an admin request with the admin token.
func (e *testEnv) admin(t testing.TB, method, path string, body any) *resp {
	t.Helper()
	return e.adminWith(t, method, path, body, map[string]string{"Authorization": "Bearer " + adminToken})
}

// adminWith sends an admin request with the given headers and validates
// the response against the admin OpenAPI document.
func (e *testEnv) adminWith(t testing.TB, method, path string, body any, headers map[string]string) *resp {
	t.Helper()
	r, err := send(e.admSrv, method, path, body, headers)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return &resp{Header: http.Header{}}
	}
	checkAdmin(t, method, path, r.Status, r.Header, r.Body)
	return r
}

// serveDirect runs a request through h without a network (for the fuzz
// target), returning the response.
func serveDirect(h http.Handler, req *http.Request) *resp {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return &resp{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
