package webui

import (
	"crypto/rand"
	"encoding/hex"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"go.opentelemetry.io/otel/trace"
)

// Site is one web face over the engine's Sessions. Its fields are set once,
// before it serves.
type Site struct {
	// Portal is the engine's Sessions face: sign-in and sessions.
	Portal *tambala.Sessions
	// Prefix is the path the face is mounted under, without the trailing
	// slash ("/portal"); Home is its first page after sign-in.
	Prefix, Home string
	// SecureCookie is the session cookie's name over HTTPS (a __Host-
	// name: Secure, Path /); InsecureCookie its name over plain HTTP
	// when InsecureCookies is set (Path Prefix, not Secure).
	SecureCookie, InsecureCookie string
	// InsecureCookies lets the session cookie go over plain HTTP on
	// requests without TLS: only for a sandbox listening on loopback.
	InsecureCookies bool
	// CSP is the Content-Security-Policy of every response.
	CSP string
	// StaticPrefix is the path of the static files, which may be cached
	// (no-cache rather than no-store).
	StaticPrefix string
	// ClientAddr returns the caller's address. Default: RemoteAddr.
	ClientAddr func(*http.Request) netip.Addr
	// Logger receives the engine failures the pages hide; LogPrefix
	// starts each message.
	Logger    *slog.Logger
	LogPrefix string
	// Words are what the shared pages say on this face (pages.go).
	Words Wording
	// Pages are the parsed templates by page name, each with "layout"
	// (AddPages).
	Pages map[string]*template.Template
	// Tracer, when set, makes a server span of each request (tracing.go),
	// named by the route of Routes that serves it. Routes is also where
	// Serve finds the Upload routes, whose bodies have their own cap.
	Tracer trace.Tracer
	Routes *http.ServeMux
	// Admit, when set, decides whether a signed-in user may use the face;
	// a user it refuses is signed out and shown its message (forbidden).
	Admit func(tambala.User) error
	// MaxFormBytes caps the body of every request but an Upload route's
	// (forms.go). Default: MaxFormBytes.
	MaxFormBytes int64
	// MinPassword is the shortest password the accept page asks for
	// (accept.go). Default: accounts.MinPasswordLength.
	MinPassword int
}

// Serve sets the security headers and the request's RequestInfo (client
// address and a new request id), bounds the request's body (forms.go) and
// serves r with next.
func (s *Site) Serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", s.CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	if s.StaticPrefix == "" || !strings.HasPrefix(r.URL.Path, s.StaticPrefix) {
		hd.Set("Cache-Control", "no-store")
	}
	addr := s.ClientAddr
	if addr == nil {
		addr = RemoteAddr
	}
	r = r.WithContext(tambala.WithRequestInfo(r.Context(),
		tambala.RequestInfo{Address: addr(r), RequestID: NewRequestID()}))
	if s.Tracer != nil {
		var end func()
		w, r, end = s.traceRequest(w, r)
		defer end()
	}
	defer removeForm(r)
	if !s.boundBody(w, r) {
		return
	}
	next.ServeHTTP(w, r)
}

// RemoteAddr is the connection's remote address.
func RemoteAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		a, _ := netip.ParseAddr(r.RemoteAddr)
		return a.Unmap()
	}
	return ap.Addr().Unmap()
}

// NewRequestID is a random request id.
func NewRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// View is what every page template is given.
type View struct {
	Title string
	Nav   string
	Email string
	// Roles names the signed-in user's staff roles, for a face that shows
	// them.
	Roles  string
	CSRF   string
	Notice string
	Error  string
	// Errors are the messages shown beside the fields, by field name.
	Errors map[string]string
	// Form holds the values sent back into the form's fields.
	Form   map[string]string
	Script bool
	Data   any
}

// Render writes page in its layout with status.
func (s *Site) Render(w http.ResponseWriter, status int, page string, v View) {
	if v.Errors == nil {
		v.Errors = map[string]string{}
	}
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	var b strings.Builder
	if err := s.Pages[page].ExecuteTemplate(&b, "layout", v); err != nil {
		s.LogError("rendering "+page, err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// LogError logs an engine failure the page hides.
func (s *Site) LogError(what string, err error) {
	if s.Logger != nil {
		s.Logger.Error(s.LogPrefix+what, "error", err)
	}
}

// Message renders a page that only says something, with a link on.
func (s *Site) Message(w http.ResponseWriter, status int, title, text, next string) {
	s.Render(w, status, "message", View{Title: title, Error: text, Data: next})
}

// NotFound answers a path the face does not serve.
func (s *Site) NotFound(w http.ResponseWriter, r *http.Request) {
	s.Message(w, http.StatusNotFound, "Not found", "There is no such page.", s.Home)
}

// StatusOf is the status a page answers an engine error with.
func StatusOf(err error) int {
	switch errcode.Of(err) {
	case errcode.ValidationError:
		return http.StatusUnprocessableEntity
	case errcode.Unauthorized:
		return http.StatusUnauthorized
	case errcode.Forbidden:
		return http.StatusForbidden
	case errcode.NotFound:
		return http.StatusNotFound
	case errcode.Conflict:
		return http.StatusConflict
	case errcode.RateLimited:
		return http.StatusTooManyRequests
	default:
		return http.StatusInternalServerError
	}
}

// Friendly is the message a page shows for an engine error: the engine's
// public message for a coded error, a generic one (and a log line) for
// anything else.
func (s *Site) Friendly(err error) string {
	if StatusOf(err) == http.StatusInternalServerError {
		s.LogError("engine call", err)
		return "Something went wrong on our side; try again in a moment."
	}
	return errcode.Message(err)
}

// secure reports whether the session cookie of r is a Secure one.
func (s *Site) secure(r *http.Request) bool {
	return r.TLS != nil || !s.InsecureCookies
}

// CookieName is the session cookie's name for r.
func (s *Site) CookieName(r *http.Request) string {
	if s.secure(r) {
		return s.SecureCookie
	}
	return s.InsecureCookie
}

func (s *Site) cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	c := &http.Cookie{Name: s.CookieName(r), Value: value, HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: s.secure(r), Path: s.Prefix, MaxAge: maxAge}
	if c.Secure {
		c.Path = "/"
	}
	return c
}

// SetSession sets the session cookie: no Max-Age, so it lasts no longer
// than the browser, and the engine ends the session at its limits.
func (s *Site) SetSession(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, s.cookie(r, token, 0))
}

// ClearSession removes the session cookie.
func (s *Site) ClearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, s.cookie(r, "", -1))
}

// Token is the session token of r's cookie, "" for none.
func (s *Site) Token(r *http.Request) string {
	c, err := r.Cookie(s.CookieName(r))
	if err != nil {
		return ""
	}
	return c.Value
}
