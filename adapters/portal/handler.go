package portal

import (
	"context"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
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
	site     *webui.Site
	handler  http.Handler
	maxKeys  int
	minPass  int
	staticFS http.Handler
}

var pageNames = []string{"signin", "second", "enrol", "recovery", "accept", "overview", "keys", "key_created",
	"revoke", "allowlist", "audit", "message"}

// New returns the portal's handler over engine; o may be nil.
func New(engine *tambala.Engine, o *Options) *Handler {
	h := &Handler{engine: engine, portal: engine.Portal(),
		maxKeys: engine.Limits().MaxActiveKeys, minPass: accounts.MinPasswordLength}
	if o != nil {
		h.opts = *o
	}
	pages := map[string]*template.Template{}
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	for _, name := range pageNames {
		t := template.Must(layout.Clone())
		pages[name] = template.Must(t.ParseFS(templateFS, "templates/"+name+".html"))
	}
	h.site = &webui.Site{Portal: h.portal, Prefix: "/portal", Home: "/portal/",
		SecureCookie: SecureCookieName, InsecureCookie: InsecureCookieName, InsecureCookies: h.opts.InsecureCookies,
		CSP: ContentSecurityPolicy, StaticPrefix: "/portal/static/", ClientAddr: h.opts.ClientAddr,
		Logger: h.opts.Logger, LogPrefix: "portal: ", Pages: pages, MinPassword: h.minPass}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	h.staticFS = http.StripPrefix("/portal/static/", http.FileServerFS(static))

	mux := http.NewServeMux()
	mux.HandleFunc("GET /portal/static/{file}", h.static)
	mux.HandleFunc("GET /portal/sign-in", h.site.SignInPage)
	mux.HandleFunc("POST /portal/sign-in", h.site.SignIn)
	mux.HandleFunc("GET /portal/second-factor", h.site.SecondFactorPage)
	mux.HandleFunc("POST /portal/second-factor", h.site.SecondFactor)
	mux.HandleFunc("GET /portal/enrol", h.site.EnrolPage)
	mux.HandleFunc("POST /portal/enrol", h.site.Enrol)
	mux.HandleFunc("GET /portal/invitations/accept", h.site.AcceptPage)
	mux.HandleFunc("POST /portal/invitations/accept", h.site.Accept)
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
	mux.HandleFunc("POST /portal/sign-out", h.site.SignOut)
	// Activity: payouts, orders (and their funding proofs), conversions, collections.
	mux.HandleFunc("GET /portal/payouts", h.signedIn(serveList(h, listPage[payouts.Payout, tambala.PayoutFilter]{title: "Payouts (/v1)", nav: "payouts",
		tmpl: "payouts", path: "/portal/payouts", statuses: payoutStatuses, filter: payoutFilter, list: (*tambala.Client).Payouts})))
	mux.HandleFunc("GET /portal/payouts/{id}", h.signedIn(detail(h, "Payout", "payouts", "payout", "/portal/payouts", (*tambala.Client).Payout)))
	mux.HandleFunc("GET /portal/v2/payouts", h.signedIn(serveList(h, listPage[tambala.PayoutV2, tambala.PayoutFilter]{title: "Payouts (/v2)", nav: "payouts",
		tmpl: "payouts_v2", path: "/portal/v2/payouts", v2: true, statuses: payoutStatuses, filter: payoutFilter, list: (*tambala.Client).PayoutsV2})))
	mux.HandleFunc("GET /portal/v2/payouts/{id}", h.signedIn(detail(h, "Payout (/v2)", "payouts", "payout_v2", "/portal/v2/payouts", (*tambala.Client).PayoutV2)))
	mux.HandleFunc("GET /portal/orders", h.signedIn(serveList(h, listPage[orders.Order, tambala.OrderFilter]{title: "Orders", nav: "orders",
		tmpl: "orders", path: "/portal/orders", v2: true, statuses: orderStatuses, filter: orderFilter, list: (*tambala.Client).Orders})))
	mux.HandleFunc("GET /portal/orders/{id}", h.signedIn(h.order))
	mux.Handle("POST /portal/orders/{id}/proof", h.site.Upload(engine.MaxProofBytes()+proofFormSlack, h.uploadProof))
	mux.HandleFunc("GET /portal/conversions", h.signedIn(serveList(h, listPage[tambala.Conversion, money.AssetCode]{title: "Conversions", nav: "conversions",
		tmpl: "conversions", path: "/portal/conversions", field: "asset", v2: true, filter: assetFilter,
		list: func(c *tambala.Client, ctx context.Context, pg tambala.PageRequest, asset money.AssetCode) (tambala.Page[tambala.Conversion], error) {
			return c.Conversions(ctx, pg, tambala.ConversionFilter{Asset: asset})
		}})))
	mux.HandleFunc("GET /portal/conversions/{id}", h.signedIn(detail(h, "Conversion", "conversions", "conversion", "/portal/conversions", (*tambala.Client).Conversion)))
	mux.HandleFunc("GET /portal/collections", h.signedIn(serveList(h, listPage[tambala.Collection, struct{}]{title: "Collections (/v1)", nav: "collections",
		tmpl: "collections", path: "/portal/collections", filter: noFilter,
		list: func(c *tambala.Client, ctx context.Context, pg tambala.PageRequest, _ struct{}) (tambala.Page[tambala.Collection], error) {
			return c.Collections(ctx, pg)
		}})))
	mux.HandleFunc("GET /portal/collections/{id}", h.signedIn(detail(h, "Collection", "collections", "collection", "/portal/collections", (*tambala.Client).Collection)))
	mux.HandleFunc("GET /portal/v2/collections", h.signedIn(serveList(h, listPage[tambala.CollectionV2, money.AssetCode]{title: "Collections (/v2)", nav: "collections",
		tmpl: "collections_v2", path: "/portal/v2/collections", field: "asset", v2: true, filter: assetFilter,
		list: func(c *tambala.Client, ctx context.Context, pg tambala.PageRequest, asset money.AssetCode) (tambala.Page[tambala.CollectionV2], error) {
			return c.CollectionsV2(ctx, pg, tambala.CollectionV2Filter{Asset: asset})
		}})))
	mux.HandleFunc("GET /portal/v2/collections/{id}", h.signedIn(detail(h, "Collection (/v2)", "collections", "collection_v2", "/portal/v2/collections", (*tambala.Client).CollectionV2)))
	mux.HandleFunc("GET /portal/statement", h.signedIn(h.statement))
	mux.HandleFunc("GET /portal/statement.csv", h.signedIn(h.statementCSV))
	mux.HandleFunc("/portal/", h.site.NotFound)
	h.handler = http.NewCrossOriginProtection().Handler(mux)
	h.site.Tracer, h.site.Routes = webui.TracerOf(engine, "github.com/tambalapay/tambala/adapters/portal"), mux
	return h
}

// ServeHTTP serves a request under /portal/ with the portal's headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.site.Serve(h.handler, w, r)
}

func (h *Handler) static(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-cache")
	h.staticFS.ServeHTTP(w, r)
}

// view is what every page template is given; session a signed-in
// request (adapters/internal/webui's).
type (
	view    = webui.View
	session = webui.Session
)

func (h *Handler) render(w http.ResponseWriter, status int, page string, v view) {
	h.site.Render(w, status, page, v)
}

// message renders a page that only says something, with a link on.
func (h *Handler) message(w http.ResponseWriter, status int, title, text, next string) {
	h.site.Message(w, status, title, text, next)
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{"duration": webui.Duration}

// statusOf is the status a page answers an engine error with.
func statusOf(err error) int { return webui.StatusOf(err) }

// friendly is the message a page shows for an engine error.
func (h *Handler) friendly(err error) string { return h.site.Friendly(err) }

// token is the session token of r's cookie, "" for none.
func (h *Handler) token(r *http.Request) string { return h.site.Token(r) }

func (h *Handler) setSession(w http.ResponseWriter, r *http.Request, token string) {
	h.site.SetSession(w, r, token)
}

func (h *Handler) redirectFor(w http.ResponseWriter, r *http.Request, err error) {
	h.site.RedirectFor(w, r, err)
}

func (h *Handler) signedIn(page func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return h.site.SignedIn(page)
}

func (h *Handler) changing(action func(http.ResponseWriter, *http.Request, session)) http.HandlerFunc {
	return h.site.Changing(action)
}

func (h *Handler) checkCSRF(w http.ResponseWriter, r *http.Request, token string) bool {
	return h.site.CheckCSRF(w, r, token)
}

func (h *Handler) sessionToken(w http.ResponseWriter, r *http.Request) (string, bool) {
	return h.site.SessionToken(w, r)
}
