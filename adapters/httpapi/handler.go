package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
)

// Options configure the handlers. nil is fine.
type Options struct {
	// Logger receives request logs (method, path, status, duration,
	// organization, key prefix; never a key or a secret), as the engine's
	// tambala.Options.Logger does (zap serves it through
	// go.uber.org/zap/exp/zapslog). Default: none.
	Logger *slog.Logger
	// ClientAddr returns the caller's address for the allowlist (public
	// handler) and for the audit trail (both handlers). Default: the
	// connection's remote address. A host behind a reverse proxy
	// supplies its own, trusting only its proxy's header.
	ClientAddr func(*http.Request) netip.Addr
	// PublicBaseURL is the public API's address as callers reach it
	// (https://api.example.com, or with a path prefix,
	// https://example.com/api), for absolute links such as funding proof
	// downloads. Empty, links are relative to the API's root
	// (/files/proofs/...). A request's Host header is never used: it is
	// the client's to choose. Check a configured value with
	// CheckPublicBaseURL.
	PublicBaseURL string
	// Ready adds the host's own checks to GET /readyz, on both handlers:
	// one entry per check, nil when it passes (for example "worker": an
	// error once the host's Run goroutine has returned). It is called on
	// every /readyz request with a context that ends after 2 s. The
	// engine's own checks (the store answers a read; in production, the
	// institutions reference data is synced) always run. A failing
	// check's text is shown in the 503 body to anyone who can reach the
	// listener: keep it short and free of secrets.
	Ready func(ctx context.Context) map[string]error
	// Observe, when set, is called once per request after the answer:
	// the mux pattern that served it ("" when none did), the status, the
	// error code of an error answer ("" otherwise) and the latency. The
	// handler name is bound by the host (prommetrics.Metrics.ObserveHTTP
	// takes it first).
	Observe func(route string, status int, code string, d time.Duration)
	// Metrics, when set, is served at GET /metrics on the admin listener,
	// behind the admin token like every admin route (promhttp.HandlerFor a
	// registry, for example).
	Metrics http.Handler
	// Backup is the store that GET /admin/backup copies (a
	// *boltstore.Store); nil answers 404. The binding never reaches the
	// engine's store by itself.
	Backup Backuper
	// TracerProvider, when set, makes a server span of every request
	// (named by its route, child of the caller's W3C traceparent) and puts
	// its trace_id in the request's log lines. Default: the engine's
	// (tambala.Options.TracerProvider); neither set, tracing is off.
	TracerProvider trace.TracerProvider
}

// Handler serves the public API.
type Handler struct {
	engine *tambala.Engine
	log    *slog.Logger
	addr   func(*http.Request) netip.Addr
	mux    *http.ServeMux
	// publicBase is Options.PublicBaseURL without its trailing slash: ""
	// makes links relative.
	publicBase string
	observe    func(route string, status int, code string, d time.Duration)
	probes     *probes
	tracer     trace.Tracer // nil: tracing off
}

// optionsOf is opts (nil: none) with what is unset defaulted: no logging,
// the client's address from the connection.
func optionsOf(opts *Options) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ClientAddr == nil {
		o.ClientAddr = remoteAddr
	}
	return o
}

// New returns the public API handler over engine.
func New(engine *tambala.Engine, opts *Options) *Handler {
	o := optionsOf(opts)
	h := &Handler{engine: engine, log: o.Logger, addr: o.ClientAddr, mux: http.NewServeMux(), publicBase: strings.TrimRight(o.PublicBaseURL, "/"),
		probes: newProbes(engine, o.Logger, o), observe: o.Observe, tracer: tracerOf(engine, o.TracerProvider)}
	h.routes()
	return h
}

// CheckPublicBaseURL tells whether s can be Options.PublicBaseURL: an
// absolute http or https URL with a host, and no query, fragment or user
// information.
func CheckPublicBaseURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("the public base URL %q does not parse: %w", s, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("the public base URL %q must be an absolute http or https URL, such as https://api.example.com", s)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.User != nil:
		return fmt.Errorf("the public base URL %q must have no query, fragment or user information", s)
	}
	return nil
}

func remoteAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		a, _ := netip.ParseAddr(r.RemoteAddr)
		return a.Unmap()
	}
	return ap.Addr().Unmap()
}

// authed is a handler that runs after the whole request chain.
type authed func(w http.ResponseWriter, r *http.Request, p tambala.Principal)

func (h *Handler) routes() {
	h.mux.HandleFunc("GET /openapi.json", h.openAPI)
	h.probes.register(h.mux) // GET /healthz and GET /readyz, without a key
	h.handle("GET /v1/ping", tambala.APIv1, h.pingV1)
	h.handle("GET /v1/balance", tambala.APIv1, h.balanceV1)
	h.handle("GET /v2/ping", tambala.APIv2, h.pingV2)
	h.handle("GET /v2/assets", tambala.APIv2, h.assets)
	h.handle("GET /v2/balances", tambala.APIv2, h.balancesV2)
	h.handle("GET /v2/balances/{asset}", tambala.APIv2, h.balanceV2)
	h.payoutRoutes()
	h.collectionRoutes()
	h.orderRoutes()
	h.collectionV2Routes()
	h.payoutV2Routes()
	h.conversionRoutes()
}

// handle registers an authenticated route of api.
func (h *Handler) handle(pattern string, api tambala.API, fn authed) {
	h.mux.Handle(pattern, h.chain(api, pattern == "GET /v2/ping", false, fn))
}

// handleJSON registers an authenticated route of api whose body is JSON:
// a body declared as another media type is refused (checkJSONBody) before
// it is read.
func (h *Handler) handleJSON(pattern string, api tambala.API, fn authed) {
	h.mux.Handle(pattern, h.chain(api, false, true, fn))
}

// ServeHTTP logs, recovers, caps the body, and routes; unknown routes and
// wrong methods get the envelope too.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serve(w, r, h.log, h.maxBody(r), h.mux, h.observe, h.tracer)
}

type ctxKey int

// chain authenticates, checks the allowlist (only the transport knows the
// caller's address), rate-limits, asks the engine to admit the Principal
// to api and, for a route with a JSON body, checks the body's media type,
// before fn.
func (h *Handler) chain(api tambala.API, isV2Ping, jsonBody bool, fn authed) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearer(r)
		if !ok {
			writeError(w, r, h.log, errcode.New(errcode.Unauthorized))
			return
		}
		p, err := h.engine.Authenticate(r.Context(), key)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		if !p.Org.Allows(h.addr(r)) {
			writeError(w, r, h.log, tambala.ErrNotAllowlisted)
			return
		}
		if li := logInfoFrom(r.Context()); li != nil {
			li.org, li.keyPrefix = p.Org.ID, p.Key.Prefix
		}
		if ok, retry := tambala.GateOf(h.engine).Allow(p.Org.ID); !ok {
			w.Header().Set("Retry-After", itoa(retry))
			writeError(w, r, h.log, errcode.New(errcode.RateLimited))
			return
		}
		release, err := tambala.GateOf(h.engine).Enter(r.Context(), p.Org.ID)
		if err != nil {
			writeError(w, r, h.log, err)
			return
		}
		defer release()
		if !isV2Ping {
			// The engine's rules for api, answered before the request is
			// decoded, against the state Authenticate read; every use
			// case checks them again itself.
			if err := tambala.GateOf(h.engine).Admitted(p, api); err != nil {
				writeError(w, r, h.log, err)
				return
			}
		}
		if jsonBody {
			// Before the body is read, so before the Idempotency-Key is
			// looked at: a refused media type reads and stores nothing.
			if err := checkJSONBody(r); err != nil {
				writeError(w, r, h.log, err)
				return
			}
		}
		fn(w, r, p)
	})
}

// bearer extracts the key of "Authorization: Bearer <key>".
func bearer(r *http.Request) (string, bool) {
	v := r.Header.Get("Authorization")
	const scheme = "bearer "
	if len(v) <= len(scheme) || !strings.EqualFold(v[:len(scheme)], scheme) {
		return "", false
	}
	k := strings.TrimSpace(v[len(scheme):])
	return k, k != ""
}

// logInfo is filled in as the request goes through the chain.
type logInfo struct {
	requestID      string
	traceID        string // the request's trace, "" when untraced
	org, keyPrefix string
	code           errcode.Code // the error code answered, if any
	probe          bool         // a health or readiness probe: logged at debug level when it passes
}

const logInfoKey ctxKey = 1

func logInfoFrom(ctx context.Context) *logInfo {
	li, _ := ctx.Value(logInfoKey).(*logInfo)
	return li
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
	// vals backs the single values of the headers the binding sets on
	// every answer (Request-Id, Content-Type, Content-Length): one
	// allocation with the writer rather than one per header.
	vals [3]string
	used int
}

// setHeader sets the canonical header key of w to the single value v, as
// http.Header.Set does, backed by the writer's spare values when w is one.
func setHeader(w http.ResponseWriter, key, v string) {
	if sw, ok := w.(*statusWriter); ok && sw.used < len(sw.vals) {
		i := sw.used
		sw.used++
		sw.vals[i] = v
		w.Header()[key] = sw.vals[i : i+1 : i+1]
		return
	}
	w.Header().Set(key, v)
}

// request is what serve allocates for one request: the writer, the log
// information and the attributes of the request's log line, together. It
// is never reused: a logger's handler may keep the attributes it is given.
type request struct {
	sw    statusWriter
	li    logInfo
	attrs [9]slog.Attr
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if !s.wrote {
		s.status, s.wrote = 200, true
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// RequestIDHeader names the request id every response of both handlers
// carries: the client's own when it is well-formed (see validRequestID),
// else one the handler made (a UUIDv7). Every log line of the request
// carries it as request_id.
const RequestIDHeader = "Request-Id"

// maxRequestIDLength bounds a client's request id.
const maxRequestIDLength = 128

// validRequestID reports whether a client's request id is kept: 1 to 128
// characters of A-Z a-z 0-9 . _ : - (a UUID, a trace id, a ULID all fit;
// nothing that could split a log line or a header).
func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// secretLike reports whether a client's request id could be a secret sent
// in the wrong header: it starts like an API key or the server's admin
// tokens, or shares 12 characters in a row with the request's bearer
// credential. Such an id is replaced, so it never reaches a log.
func secretLike(r *http.Request, id string) bool {
	if strings.HasPrefix(id, "tmb_") || strings.HasPrefix(id, "adm_") {
		return true
	}
	cred, ok := bearer(r)
	if !ok {
		return false
	}
	const window = 12
	if len(cred) <= window {
		return strings.Contains(id, cred)
	}
	for i := 0; i+window <= len(cred); i++ {
		if strings.Contains(id, cred[i:i+window]) {
			return true
		}
	}
	return false
}

// newRequestID returns a UUIDv7 (time-ordered, so ids of one period sort
// together in logs).
func newRequestID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// requestID returns the request id serve gave r ("" outside serve).
func requestID(r *http.Request) string {
	if li := logInfoFrom(r.Context()); li != nil {
		return li.requestID
	}
	return ""
}

// serve is the outer layer both handlers share: request id, log line,
// panic recovery, body cap, and enveloped 404/405 for what the mux does
// not route.
func serve(w http.ResponseWriter, r *http.Request, log *slog.Logger, maxBody int64, mux *http.ServeMux, observe func(route string, status int, code string, d time.Duration), tracer trace.Tracer) {
	start := time.Now()
	st := &request{sw: statusWriter{ResponseWriter: w}}
	sw, li := &st.sw, &st.li
	id := r.Header.Get(RequestIDHeader)
	if !validRequestID(id) || secretLike(r, id) {
		id = newRequestID()
	}
	setHeader(sw, RequestIDHeader, id)
	li.requestID = id
	r = r.WithContext(context.WithValue(r.Context(), logInfoKey, li))
	var (
		route  string // the pattern that serves r, once routed is set
		routed bool
	)
	var span trace.Span
	if tracer != nil {
		r, span = startRequestSpan(tracer, r, mux, li)
	}
	defer func() {
		v := recover()
		aborted := v == http.ErrAbortHandler // the handler cut the response on purpose
		if v != nil && !aborted {
			log.LogAttrs(r.Context(), slog.LevelError, "panic", appendTrace([]slog.Attr{slog.Any("panic", v), slog.String("stack", string(debug.Stack())),
				slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("request_id", id)}, r)...)
			if !sw.wrote {
				writeError(sw, r, log, errcode.New(errcode.InternalError))
			}
		}
		level := slog.LevelInfo
		if li.probe && sw.status < 300 {
			level = slog.LevelDebug // a passing probe every few seconds is not worth a line
		}
		if log.Enabled(r.Context(), level) {
			attrs := appendTrace(append(st.attrs[:0], slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", sw.status), slog.Duration("duration", time.Since(start)),
				slog.String("request_id", id)), r)
			attrs = append(attrs, slog.String("org", li.org), slog.String("key_prefix", li.keyPrefix))
			if aborted {
				attrs = append(attrs, slog.Bool("aborted", true))
			}
			log.LogAttrs(r.Context(), level, "request", attrs...)
		}
		if observe != nil {
			if !routed {
				_, route = mux.Handler(r)
			}
			observe(route, sw.status, string(li.code), time.Since(start))
		}
		if span != nil {
			endRequestSpan(span, sw.status, li)
		}
		if aborted {
			panic(v)
		}
	}()
	if r.ContentLength > maxBody {
		writeError(sw, r, log, errTooLarge)
		return
	}
	r.Body = http.MaxBytesReader(sw, r.Body, maxBody)
	_, route = mux.Handler(r)
	routed = true
	if route == "" || path.Clean(r.URL.Path) != r.URL.Path { // no mux redirects (HTML) for unclean paths
		notRouted(sw, r, log, mux)
		return
	}
	mux.ServeHTTP(sw, r)
}

var methods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// notRouted answers 405 method_not_allowed (with Allow) when the path exists
// under another method, else 404 not_found.
func notRouted(w http.ResponseWriter, r *http.Request, log *slog.Logger, mux *http.ServeMux) {
	var allow []string
	for _, m := range methods {
		if m == r.Method || path.Clean(r.URL.Path) != r.URL.Path { // an unclean path is 404 under every method
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, p := mux.Handler(probe); p != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, r, log, errcode.New(errcode.MethodNotAllowed))
		return
	}
	writeError(w, r, log, errcode.New(errcode.NotFound))
}

// ---------------------------------------------------------------------------
// Probes: GET /healthz and GET /readyz on both handlers.

// The probe paths. They are not API operations (no key, no envelope, not in
// the OpenAPI document): they are for the orchestrator or load balancer in
// front of the process, and are answered on both listeners.
const (
	healthzPath = "/healthz"
	readyzPath  = "/readyz"
)

// readyTimeout bounds one readiness evaluation: a check that has not
// answered by then is reported as timed out.
const readyTimeout = 2 * time.Second

// probes answers the health and readiness probes of one handler.
type probes struct {
	engine *tambala.Engine
	log    *slog.Logger
	ready  func(context.Context) map[string]error // the host's checks, or nil
}

func newProbes(engine *tambala.Engine, log *slog.Logger, o Options) *probes {
	return &probes{engine: engine, log: log, ready: o.Ready}
}

// register adds the probe routes to mux. They sit outside every chain: no
// key, no rate limit, no pause switch applies to them.
func (p *probes) register(mux *http.ServeMux) {
	mux.HandleFunc(http.MethodGet+" "+healthzPath, p.healthz)
	mux.HandleFunc(http.MethodGet+" "+readyzPath, p.readyz)
}

func probeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	if li := logInfoFrom(r.Context()); li != nil {
		li.probe = true
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, v)
}

// healthz answers 200 {"status":"ok"} while the process serves HTTP: it
// reads nothing, so a slow store never makes an orchestrator kill a process
// that is only busy.
func (p *probes) healthz(w http.ResponseWriter, r *http.Request) {
	probeJSON(w, r, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 {"status":"ready"} when every check passes, else 503
// {"status":"not_ready","checks":{"name":"ok" or why,...}}.
func (p *probes) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	results := p.check(ctx, requestID(r))
	failed := false
	checks := make(map[string]string, len(results))
	for name, err := range results {
		checks[name] = "ok"
		if err != nil {
			failed = true
			checks[name] = err.Error()
		}
	}
	if failed {
		probeJSON(w, r, http.StatusServiceUnavailable, map[string]any{"status": "not_ready", "checks": checks})
		return
	}
	probeJSON(w, r, http.StatusOK, map[string]string{"status": "ready"})
}

// check runs the engine's checks and the host's at once and gathers what
// has answered when ctx ends; a group that has not answered by then is
// reported under its name as timed out.
func (p *probes) check(ctx context.Context, reqID string) map[string]error {
	type group struct {
		name string
		run  func() map[string]error
	}
	groups := []group{{"store", func() map[string]error { return map[string]error{"store": p.storeCheck(ctx, reqID)} }}}
	if p.engine.Settings().Environment() == tambala.Production {
		groups = append(groups, group{"reference_data", func() map[string]error {
			return map[string]error{"reference_data": p.referenceDataCheck(ctx, reqID)}
		}})
	}
	if p.ready != nil {
		groups = append(groups, group{"host", func() map[string]error { return p.ready(ctx) }})
	}
	type result struct {
		i    int
		errs map[string]error
	}
	done := make(chan result, len(groups)) // buffered: a late check never blocks
	for i, g := range groups {
		go func() {
			res := result{i: i}
			defer func() {
				if v := recover(); v != nil {
					p.log.LogAttrs(ctx, slog.LevelError, "readiness check panicked",
						slog.String("check", g.name), slog.Any("panic", v), slog.String("request_id", reqID))
					res.errs = map[string]error{g.name: errors.New("the check failed")}
				}
				done <- res
			}()
			res.errs = g.run()
		}()
	}
	out := map[string]error{}
	answered := make([]bool, len(groups))
	for range groups {
		select {
		case res := <-done:
			answered[res.i] = true
			maps.Copy(out, res.errs)
		case <-ctx.Done():
			for i, g := range groups {
				if !answered[i] {
					out[g.name] = fmt.Errorf("no answer within %s", readyTimeout)
				}
			}
			return out
		}
	}
	return out
}

// storeCheck reads the pause switches: one read transaction through the
// engine. The store's error goes to the log, not to the probe's body.
func (p *probes) storeCheck(ctx context.Context, reqID string) error {
	if _, err := p.engine.Operator().PauseState(ctx); err != nil {
		p.log.LogAttrs(ctx, slog.LevelWarn, "readiness: the store did not answer a read", slog.String("request_id", reqID), slog.Any("error", err))
		return errors.New("the store did not answer a read")
	}
	return nil
}

// referenceDataCheck tells whether the institutions reference data was
// synced (PUT /admin/institutions): in production, payouts are refused
// with service_unavailable until it is.
func (p *probes) referenceDataCheck(ctx context.Context, reqID string) error {
	err := p.engine.Work().ReferenceDataReady(ctx)
	switch {
	case err == nil:
		return nil
	case errcode.Of(err) == errcode.ServiceUnavailable:
		return errors.New("institution reference data has not been synced (PUT /admin/institutions)")
	default:
		p.log.LogAttrs(ctx, slog.LevelWarn, "readiness: reading the reference data", slog.String("request_id", reqID), slog.Any("error", err))
		return errors.New("the store did not answer a read")
	}
}

// ---------------------------------------------------------------------------
// Backups.

// Backuper is a store that can write a consistent copy of all its data
// while it serves (boltstore.Store, pebblestore.Store). GET /admin/backup streams what Backup
// writes; over any other store it answers 404 not_found.
type Backuper interface {
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// BackupNamer is a Backuper whose copy has a file name of its own
// (boltstore's "tambala.bolt", pebblestore's "tambala-pebble.tar"): GET
// /admin/backup sends it in Content-Disposition. Without it the name is
// "tambala.backup".
type BackupNamer interface {
	BackupName() string
}

// streamBackup writes st's backup to w. An error before the first byte is
// the envelope; after it, the connection is cut so the client never takes
// a truncated copy for a whole one (curl exits 18, "transfer closed with
// outstanding read data remaining").
func streamBackup(w http.ResponseWriter, r *http.Request, log *slog.Logger, b Backuper) {
	if b == nil {
		writeError(w, r, log, errcode.Newf(errcode.NotFound, "This server's store cannot stream a backup."))
		return
	}
	// A large copy outlasts the listener's WriteTimeout; it is bounded by
	// the client reading it instead.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	name := "tambala.backup"
	if n, ok := b.(BackupNamer); ok {
		name = n.BackupName()
	}
	h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
	h.Set("Cache-Control", "no-store")
	start := time.Now()
	cw := &firstWrite{w: w}
	n, err := b.Backup(r.Context(), cw)
	switch {
	case err != nil && !cw.wrote:
		h.Del("Content-Disposition")
		writeError(w, r, log, err) // logs it with the request id
		return
	case err != nil:
		log.LogAttrs(r.Context(), slog.LevelWarn, "backup cut short", append(appendTrace([]slog.Attr{slog.String("request_id", requestID(r))}, r),
			slog.Int64("bytes", n), slog.Any("error", err))...)
		panic(http.ErrAbortHandler)
	}
	log.LogAttrs(r.Context(), slog.LevelInfo, "backup written", slog.String("request_id", requestID(r)), slog.Int64("bytes", n),
		slog.Duration("duration", time.Since(start)))
}

// firstWrite records whether anything was written.
type firstWrite struct {
	w     io.Writer
	wrote bool
}

func (f *firstWrite) Write(p []byte) (int, error) {
	f.wrote = true
	return f.w.Write(p)
}
