package httpapi

import (
	"context"
	"net/http"
	"net/netip"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
)

// Options configure the handlers. nil is fine.
type Options struct {
	// Logger receives request logs (method, path, status, duration,
	// organization, key prefix; never a key or a secret). Default: none.
	Logger *zap.Logger
	// ClientAddr returns the caller's address for the allowlist. Default:
	// the connection's remote address. A host behind a reverse proxy
	// supplies its own, trusting only its proxy's header.
	ClientAddr func(*http.Request) netip.Addr
	// PublicBaseURL is the public API's address as callers reach it
	// (https://api.example.com), for absolute links such as funding proof
	// downloads. Default: the scheme and Host of each request.
	PublicBaseURL string
}

// Handler serves the public API.
type Handler struct {
	engine *tambala.Engine
	log    *zap.Logger
	addr   func(*http.Request) netip.Addr
	mux    *http.ServeMux
	// publicBase is Options.PublicBaseURL.
	publicBase string
}

// New returns the public API handler over engine.
func New(engine *tambala.Engine, opts *Options) *Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.ClientAddr == nil {
		o.ClientAddr = remoteAddr
	}
	h := &Handler{engine: engine, log: o.Logger, addr: o.ClientAddr, mux: http.NewServeMux(), publicBase: o.PublicBaseURL}
	h.routes()
	return h
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
	h.handle("GET /v1/ping", tambala.APIv1, h.pingV1)
	h.handle("GET /v1/balance", tambala.APIv1, h.balanceV1)
	h.handle("GET /v2/ping", tambala.APIv2, h.pingV2)
	h.handle("GET /v2/assets", tambala.APIv2, h.assets)
	h.handle("GET /v2/balances", tambala.APIv2, h.balancesV2)
	h.handle("GET /v2/balances/{asset}", tambala.APIv2, h.balanceV2)
	h.payoutRoutes()
	h.collectionRoutes()
	h.orderRoutes()
}

// handle registers an authenticated route of api.
func (h *Handler) handle(pattern string, api tambala.API, fn authed) {
	h.mux.Handle(pattern, h.chain(api, pattern == "GET /v2/ping", fn))
}

// ServeHTTP logs, recovers, caps the body, and routes; unknown routes and
// wrong methods get the envelope too.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	serve(w, r, h.log, h.maxBody(r), h.mux)
}

type ctxKey int

const principalKey ctxKey = iota

// chain authenticates, checks the allowlist (only the transport knows the
// caller's address), rate-limits, and asks the engine to admit the
// Principal to api before fn.
func (h *Handler) chain(api tambala.API, isV2Ping bool, fn authed) http.Handler {
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
		if ok, retry := h.engine.Allow(p.Org.ID); !ok {
			w.Header().Set("Retry-After", itoa(retry))
			writeError(w, r, h.log, errcode.New(errcode.RateLimited))
			return
		}
		if !isV2Ping {
			// The engine's rules for api, answered before the request is
			// decoded; every use case checks them again itself.
			if err := h.engine.Admit(r.Context(), p, api); err != nil {
				writeError(w, r, h.log, err)
				return
			}
		}
		fn(w, r.WithContext(context.WithValue(r.Context(), principalKey, p)), p)
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
	org, keyPrefix string
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

// serve is the outer layer both handlers share: log line, panic recovery,
// body cap, and enveloped 404/405 for what the mux does not route.
func serve(w http.ResponseWriter, r *http.Request, log *zap.Logger, maxBody int64, mux *http.ServeMux) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	li := &logInfo{}
	r = r.WithContext(context.WithValue(r.Context(), logInfoKey, li))
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			log.Error("panic", zap.Any("panic", v), zap.ByteString("stack", debug.Stack()),
				zap.String("method", r.Method), zap.String("path", r.URL.Path))
			if !sw.wrote {
				writeError(sw, r, log, errcode.New(errcode.InternalError))
			}
		}
		log.Info("request",
			zap.String("method", r.Method), zap.String("path", r.URL.Path),
			zap.Int("status", sw.status), zap.Duration("duration", time.Since(start)),
			zap.String("org", li.org), zap.String("key_prefix", li.keyPrefix))
	}()
	if r.ContentLength > maxBody {
		writeError(sw, r, log, errTooLarge)
		return
	}
	r.Body = http.MaxBytesReader(sw, r.Body, maxBody)
	if _, pattern := mux.Handler(r); pattern == "" || path.Clean(r.URL.Path) != r.URL.Path { // no mux redirects (HTML) for unclean paths
		notRouted(sw, r, log, mux)
		return
	}
	mux.ServeHTTP(sw, r)
}

var methods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// notRouted answers 405 method_not_allowed (with Allow) when the path exists
// under another method, else 404 not_found.
func notRouted(w http.ResponseWriter, r *http.Request, log *zap.Logger, mux *http.ServeMux) {
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
