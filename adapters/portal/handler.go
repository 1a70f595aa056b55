package portal

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"github.com/tambalapay/tambala/money"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css static/copy.js
var staticFS embed.FS

// ContentSecurityPolicy is the policy every response carries: the
// portal's own style sheet and script only, never inline, never framed.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// Cookie names: the __Host- prefix needs Secure and Path=/.
const (
	SecureCookieName   = "__Host-tambala_session"
	InsecureCookieName = "tambala_session"
)

// Options configure the Handler. The zero value serves over HTTPS.
type Options struct {
	// ClientAddr returns the caller's address, for sign-in throttling
	// and the audit trail. Default: the connection's remote address. A
	// host behind a reverse proxy supplies its own, trusting only its
	// proxy's header.
	ClientAddr func(*http.Request) netip.Addr
	// InsecureCookies lets the session cookie go over plain HTTP (named
	// tambala_session, Path /portal, not Secure) on requests without TLS.
	// Set it only for a sandbox listening on loopback.
	InsecureCookies bool
	// Logger receives the engine failures the pages hide. Default: none.
	Logger *slog.Logger
}

// Handler serves the portal's pages under /portal/.
type Handler struct {
	engine   *tambala.Engine
	portal   *tambala.Portal
	opts     Options
	pages    map[string]*template.Template
	handler  http.Handler
	maxKeys  int
	minPass  int
	staticFS http.Handler
}

var pageNames = []string{"signin", "second", "enrol", "recovery", "accept", "overview", "keys", "key_created",
	"revoke", "allowlist", "audit", "message"}

// New returns the portal's handler over engine; o may be nil.
func New(engine *tambala.Engine, o *Options) *Handler {
	h := &Handler{engine: engine, portal: engine.Portal(), pages: map[string]*template.Template{},
		maxKeys: engine.Limits().MaxActiveKeys, minPass: accounts.MinPasswordLength}
	if o != nil {
		h.opts = *o
	}
	if h.opts.ClientAddr == nil {
		h.opts.ClientAddr = remoteAddr
	}
	layout := template.Must(template.ParseFS(templateFS, "templates/layout.html"))
	for _, name := range pageNames {
		t := template.Must(layout.Clone())
		h.pages[name] = template.Must(t.ParseFS(templateFS, "templates/"+name+".html"))
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	h.staticFS = http.StripPrefix("/portal/static/", http.FileServerFS(static))

	mux := http.NewServeMux()
	mux.HandleFunc("GET /portal/static/{file}", h.static)
	mux.HandleFunc("GET /portal/sign-in", h.signInPage)
	mux.HandleFunc("POST /portal/sign-in", h.signIn)
	mux.HandleFunc("GET /portal/second-factor", h.secondFactorPage)
	mux.HandleFunc("POST /portal/second-factor", h.secondFactor)
	mux.HandleFunc("GET /portal/enrol", h.enrolPage)
	mux.HandleFunc("POST /portal/enrol", h.enrol)
	mux.HandleFunc("GET /portal/invitations/accept", h.acceptPage)
	mux.HandleFunc("POST /portal/invitations/accept", h.accept)
	mux.HandleFunc("GET /portal/{$}", h.signedIn(h.overview))
	mux.HandleFunc("GET /portal/keys", h.signedIn(h.keys))
	mux.HandleFunc("POST /portal/keys", h.changing(h.createKey))
	mux.HandleFunc("GET /portal/keys/{id}/revoke", h.signedIn(h.revokePage))
	mux.HandleFunc("POST /portal/keys/{id}/revoke", h.changing(h.revokeKey))
	mux.HandleFunc("GET /portal/allowlist", h.signedIn(h.allowlistPage))
	mux.HandleFunc("POST /portal/allowlist", h.changing(h.saveAllowlist))
	mux.HandleFunc("GET /portal/audit", h.signedIn(h.audit))
	h.addPages(settingsPages...)
	mux.HandleFunc("GET /portal/webhook", h.signedIn(h.webhookPage))
	mux.HandleFunc("POST /portal/webhook", h.changing(h.setWebhook))
	mux.HandleFunc("GET /portal/deliveries", h.signedIn(h.deliveries))
	mux.HandleFunc("GET /portal/floor", h.signedIn(h.floorPage))
	mux.HandleFunc("POST /portal/floor", h.changing(h.setFloor))
	mux.HandleFunc("GET /portal/account", h.signedIn(h.accountPage))
	mux.HandleFunc("POST /portal/account/password", h.changing(h.changePassword))
	mux.HandleFunc("POST /portal/account/totp", h.changing(h.beginTOTP))
	mux.HandleFunc("POST /portal/account/totp/confirm", h.changing(h.confirmTOTP))
	mux.HandleFunc("POST /portal/sign-out", h.signOut)
	// Activity: payouts, orders (and their funding proofs), conversions, collections.
	mux.HandleFunc("GET /portal/payouts", h.signedIn(h.payouts))
	mux.HandleFunc("GET /portal/payouts/{id}", h.signedIn(detail(h, "Payout", "payouts", "payout", "/portal/payouts", (*tambala.Client).Payout)))
	mux.HandleFunc("GET /portal/v2/payouts", h.signedIn(h.payoutsV2))
	mux.HandleFunc("GET /portal/v2/payouts/{id}", h.signedIn(detail(h, "Payout (/v2)", "payouts", "payout_v2", "/portal/v2/payouts", (*tambala.Client).PayoutV2)))
	mux.HandleFunc("GET /portal/orders", h.signedIn(h.orders))
	mux.HandleFunc("GET /portal/orders/{id}", h.signedIn(h.order))
	mux.HandleFunc("POST /portal/orders/{id}/proof", h.proofForm)
	mux.HandleFunc("GET /portal/conversions", h.signedIn(assetList(h, "Conversions", "conversions", "conversions", "/portal/conversions",
		func(c *tambala.Client, ctx context.Context, pg tambala.PageRequest, asset money.AssetCode) (tambala.Page[tambala.Conversion], error) {
			return c.Conversions(ctx, pg, tambala.ConversionFilter{Asset: asset})
		})))
	mux.HandleFunc("GET /portal/conversions/{id}", h.signedIn(detail(h, "Conversion", "conversions", "conversion", "/portal/conversions", (*tambala.Client).Conversion)))
	mux.HandleFunc("GET /portal/collections", h.signedIn(h.collections))
	mux.HandleFunc("GET /portal/collections/{id}", h.signedIn(detail(h, "Collection", "collections", "collection", "/portal/collections", (*tambala.Client).Collection)))
	mux.HandleFunc("GET /portal/v2/collections", h.signedIn(assetList(h, "Collections (/v2)", "collections", "collections_v2", "/portal/v2/collections",
		func(c *tambala.Client, ctx context.Context, pg tambala.PageRequest, asset money.AssetCode) (tambala.Page[tambala.CollectionV2], error) {
			return c.CollectionsV2(ctx, pg, tambala.CollectionV2Filter{Asset: asset})
		})))
	mux.HandleFunc("GET /portal/v2/collections/{id}", h.signedIn(detail(h, "Collection (/v2)", "collections", "collection_v2", "/portal/v2/collections", (*tambala.Client).CollectionV2)))
	mux.HandleFunc("/portal/", h.notFound)
	h.handler = http.NewCrossOriginProtection().Handler(mux)
	return h
}

// ServeHTTP serves a request under /portal/ with the portal's headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	if !strings.HasPrefix(r.URL.Path, "/portal/static/") {
		hd.Set("Cache-Control", "no-store")
	}
	r = r.WithContext(tambala.WithRequestInfo(r.Context(),
		tambala.RequestInfo{Address: h.opts.ClientAddr(r), RequestID: newRequestID()}))
	h.handler.ServeHTTP(w, r)
}

func (h *Handler) static(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-cache")
	h.staticFS.ServeHTTP(w, r)
}

// remoteAddr is the connection's remote address.
func remoteAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		a, _ := netip.ParseAddr(r.RemoteAddr)
		return a.Unmap()
	}
	return ap.Addr().Unmap()
}

func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// view is what every page template is given.
type view struct {
	Title  string
	Nav    string
	Email  string
	CSRF   string
	Notice string
	Error  string
	Errors map[string]string
	Form   map[string]string
	Script bool
	Data   any
}

func (h *Handler) render(w http.ResponseWriter, status int, page string, v view) {
	if v.Errors == nil {
		v.Errors = map[string]string{}
	}
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	var b strings.Builder
	if err := h.pages[page].ExecuteTemplate(&b, "layout", v); err != nil {
		h.logError("rendering "+page, err)
		http.Error(w, "The page could not be shown.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

func (h *Handler) logError(what string, err error) {
	if h.opts.Logger != nil {
		h.opts.Logger.Error("portal: "+what, "error", err)
	}
}

// message renders a page that only says something, with a link on.
func (h *Handler) message(w http.ResponseWriter, status int, title, text, next string) {
	h.render(w, status, "message", view{Title: title, Error: text, Data: next})
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	h.message(w, http.StatusNotFound, "Not found", "There is no such page.", "/portal/")
}

// statusOf is the status a page answers an engine error with.
func statusOf(err error) int {
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

// friendly is the message a page shows for an engine error: the engine's
// public message for a coded error, a generic one for anything else.
func (h *Handler) friendly(err error) string {
	if statusOf(err) == http.StatusInternalServerError {
		h.logError("engine call", err)
		return "Something went wrong on our side; try again in a moment."
	}
	return errcode.Message(err)
}

// secure reports whether the session cookie of r is a Secure one.
func (h *Handler) secure(r *http.Request) bool {
	return r.TLS != nil || !h.opts.InsecureCookies
}

func (h *Handler) cookieName(r *http.Request) string {
	if h.secure(r) {
		return SecureCookieName
	}
	return InsecureCookieName
}

// setSession sets the session cookie: no Max-Age, so it lasts no longer
// than the browser, and the engine ends the session at its limits.
func (h *Handler) setSession(w http.ResponseWriter, r *http.Request, token string) {
	c := &http.Cookie{Name: h.cookieName(r), Value: token, HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: h.secure(r), Path: "/portal"}
	if c.Secure {
		c.Path = "/"
	}
	http.SetCookie(w, c)
}

func (h *Handler) clearSession(w http.ResponseWriter, r *http.Request) {
	c := &http.Cookie{Name: h.cookieName(r), Value: "", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: h.secure(r), Path: "/portal", MaxAge: -1}
	if c.Secure {
		c.Path = "/"
	}
	http.SetCookie(w, c)
}

// token is the session token of r's cookie, "" for none.
func (h *Handler) token(r *http.Request) string {
	c, err := r.Cookie(h.cookieName(r))
	if err != nil {
		return ""
	}
	return c.Value
}

// session is a signed-in request: its token, user and CSRF token.
type session struct {
	token string
	user  tambala.User
	csrf  string
}

func (s session) view(title, nav string) view {
	return view{Title: title, Nav: nav, Email: s.user.Email, CSRF: s.csrf}
}

// redirectFor sends a request whose session failed where it can go on:
// the second-factor or enrolment page of a session half signed in, or
// else the sign-in page.
func (h *Handler) redirectFor(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, accounts.ErrSecondFactorRequired):
		http.Redirect(w, r, "/portal/second-factor", http.StatusSeeOther)
	case errors.Is(err, accounts.ErrTOTPRequired):
		http.Redirect(w, r, "/portal/enrol", http.StatusSeeOther)
	case errcode.Of(err) == errcode.Unauthorized:
		h.clearSession(w, r)
		http.Redirect(w, r, "/portal/sign-in", http.StatusSeeOther)
	default:
		h.message(w, statusOf(err), "Not available", h.friendly(err), "/portal/sign-in")
	}
}

// signedIn wraps a page that needs a signed-in session.
func (h *Handler) signedIn(page func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := h.sessionToken(w, r)
		if !ok {
			return
		}
		si, err := h.portal.Session(r.Context(), token)
		if err != nil {
			h.redirectFor(w, r, err)
			return
		}
		page(w, r, session{token: token, user: si.User, csrf: accounts.CSRFToken(token)})
	}
}

// checkCSRF answers a form without the session's CSRF token with a
// forbidden page, and reports whether the form may go on.
func (h *Handler) checkCSRF(w http.ResponseWriter, r *http.Request, token string) bool {
	if err := h.portal.CheckCSRF(token, r.PostFormValue("csrf")); err != nil {
		h.message(w, http.StatusForbidden, "Form expired",
			"This form could not be checked and nothing was changed: reload the page and try again.", "/portal/")
		return false
	}
	return true
}

// changing wraps a state-changing form of a signed-in session: the CSRF
// token is checked before the session, so a forged form changes nothing.
func (h *Handler) changing(action func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := h.sessionToken(w, r)
		if !ok {
			return
		}
		if !h.checkCSRF(w, r, token) {
			return
		}
		h.signedIn(action)(w, r)
	}
}

// sessionToken is the request's session token; without one it sends the
// browser to sign in and reports false.
func (h *Handler) sessionToken(w http.ResponseWriter, r *http.Request) (string, bool) {
	token := h.token(r)
	if token == "" {
		http.Redirect(w, r, "/portal/sign-in", http.StatusSeeOther)
	}
	return token, token != ""
}
