package portal

import (
	"context"
	"embed"
	"net/http"
	"slices"

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

// Options configure the Handler (webui's, shared with the console; the
// portal reads no Now). The zero value serves over HTTPS; with
// InsecureCookies the plain-HTTP cookie is tambala_session, Path /portal.
type Options = webui.Options

// Handler serves the portal's pages under /portal/.
type Handler struct {
	engine  *tambala.Engine
	portal  *tambala.Sessions
	opts    Options
	site    *webui.Site
	handler http.Handler
	maxKeys int
	minPass int
}

// pageNames are the portal's pages: webui's shared ones and its own.
var pageNames = append(slices.Clip(webui.SharedPages), "overview", "keys", "key_created", "revoke", "allowlist", "audit")

// wording is what the shared pages say on the portal.
var wording = webui.Wording{Name: "portal",
	Enrol:    "Your organization requires a second factor.",
	Accept:   "finish setting up your account",
	Continue: "/portal/", ContinueTo: "the overview"}

// New returns the portal's handler over engine; o may be nil.
func New(engine *tambala.Engine, o *Options) *Handler {
	h := &Handler{engine: engine, portal: engine.Sessions(),
		maxKeys: engine.Settings().Limits().MaxActiveKeys, minPass: accounts.MinPasswordLength}
	if o != nil {
		h.opts = *o
	}
	h.site = &webui.Site{Portal: h.portal, Prefix: "/portal", Home: "/portal/", Words: wording,
		SecureCookie: SecureCookieName, InsecureCookie: InsecureCookieName, InsecureCookies: h.opts.InsecureCookies,
		CSP: ContentSecurityPolicy, StaticPrefix: "/portal/static/", ClientAddr: h.opts.ClientAddr,
		Logger: h.opts.Logger, LogPrefix: "portal: ", MinPassword: h.minPass}
	own := webui.Sub(templateFS, "templates")
	h.site.AddPages(h.site.Layout(own, []string{"layout.html"}), own, slices.Concat(pageNames, settingsPages)...)

	mux := http.NewServeMux()
	mux.Handle("GET /portal/static/{file}", h.site.Static(webui.Sub(staticFS, "static")))
	mux.HandleFunc("GET /portal/sign-in", h.site.SignInPage)
	mux.HandleFunc("POST /portal/sign-in", h.site.SignIn)
	mux.HandleFunc("GET /portal/second-factor", h.site.SecondFactorPage)
	mux.HandleFunc("POST /portal/second-factor", h.site.SecondFactor)
	mux.HandleFunc("GET /portal/enrol", h.site.EnrolPage)
	mux.HandleFunc("POST /portal/enrol", h.site.Enrol)
	mux.HandleFunc("GET /portal/invitations/accept", h.site.AcceptPage)
	mux.HandleFunc("POST /portal/invitations/accept", h.site.Accept)
	mux.HandleFunc("GET /portal/{$}", h.site.SignedIn(h.overview))
	mux.HandleFunc("GET /portal/keys", h.site.SignedIn(h.keys))
	mux.HandleFunc("POST /portal/keys", h.site.Changing(h.createKey))
	mux.HandleFunc("GET /portal/keys/{id}/revoke", h.site.SignedIn(h.revokePage))
	mux.HandleFunc("POST /portal/keys/{id}/revoke", h.site.Changing(h.revokeKey))
	mux.HandleFunc("GET /portal/allowlist", h.site.SignedIn(h.allowlistPage))
	mux.HandleFunc("POST /portal/allowlist", h.site.Changing(h.saveAllowlist))
	mux.HandleFunc("GET /portal/audit", h.site.SignedIn(h.audit))
	mux.HandleFunc("GET /portal/webhook", h.site.SignedIn(h.webhookPage))
	mux.HandleFunc("POST /portal/webhook", h.site.Changing(h.setWebhook))
	mux.HandleFunc("GET /portal/deliveries", h.site.SignedIn(h.deliveries))
	mux.HandleFunc("GET /portal/floor", h.site.SignedIn(h.floorPage))
	mux.HandleFunc("POST /portal/floor", h.site.Changing(h.setFloor))
	mux.HandleFunc("GET /portal/account", h.site.SignedIn(h.accountPage))
	mux.HandleFunc("POST /portal/account/password", h.site.Changing(h.changePassword))
	mux.HandleFunc("POST /portal/account/totp", h.site.Changing(h.beginTOTP))
	mux.HandleFunc("POST /portal/account/totp/confirm", h.site.Changing(h.confirmTOTP))
	mux.HandleFunc("POST /portal/sign-out", h.site.SignOut)
	// Activity: payouts, orders (and their funding proofs), conversions, collections.
	mux.HandleFunc("GET /portal/payouts", h.site.SignedIn(serveList(h, listPage[payouts.Payout, tambala.PayoutFilter]{title: "Payouts (/v1)", nav: "payouts",
		tmpl: "payouts", path: "/portal/payouts", statuses: payoutStatuses, filter: payoutFilter, list: v1Payouts})))
	mux.HandleFunc("GET /portal/payouts/{id}", h.site.SignedIn(detail(h, "Payout", "payouts", "payout", "/portal/payouts", v1Payout)))
	mux.HandleFunc("GET /portal/v2/payouts", h.site.SignedIn(serveList(h, listPage[tambala.PayoutV2, tambala.PayoutFilter]{title: "Payouts (/v2)", nav: "payouts",
		tmpl: "payouts_v2", path: "/portal/v2/payouts", v2: true, statuses: payoutStatuses, filter: payoutFilter, list: (*tambala.Client).Payouts})))
	mux.HandleFunc("GET /portal/v2/payouts/{id}", h.site.SignedIn(detail(h, "Payout (/v2)", "payouts", "payout_v2", "/portal/v2/payouts", (*tambala.Client).Payout)))
	mux.HandleFunc("GET /portal/orders", h.site.SignedIn(serveList(h, listPage[orders.Order, tambala.OrderFilter]{title: "Orders", nav: "orders",
		tmpl: "orders", path: "/portal/orders", v2: true, statuses: orderStatuses, filter: orderFilter, list: (*tambala.Client).Orders})))
	mux.HandleFunc("GET /portal/orders/{id}", h.site.SignedIn(h.order))
	mux.Handle("POST /portal/orders/{id}/proof", h.site.Upload(tambala.GateOf(engine).MaxProofBytes()+proofFormSlack, h.uploadProof))
	mux.HandleFunc("GET /portal/conversions", h.site.SignedIn(serveList(h, listPage[tambala.Conversion, money.AssetCode]{title: "Conversions", nav: "conversions",
		tmpl: "conversions", path: "/portal/conversions", field: "asset", v2: true, filter: assetFilter,
		list: func(c *tambala.Client, ctx context.Context, pg tambala.PageRequest, asset money.AssetCode) (tambala.Page[tambala.Conversion], error) {
			return c.Conversions(ctx, pg, tambala.ConversionFilter{Asset: asset})
		}})))
	mux.HandleFunc("GET /portal/conversions/{id}", h.site.SignedIn(detail(h, "Conversion", "conversions", "conversion", "/portal/conversions", (*tambala.Client).Conversion)))
	mux.HandleFunc("GET /portal/collections", h.site.SignedIn(serveList(h, listPage[tambala.Collection, struct{}]{title: "Collections (/v1)", nav: "collections",
		tmpl: "collections", path: "/portal/collections", filter: noFilter,
		list: func(c *tambala.Client, ctx context.Context, pg tambala.PageRequest, _ struct{}) (tambala.Page[tambala.Collection], error) {
			return c.V1().Collections(ctx, pg)
		}})))
	mux.HandleFunc("GET /portal/collections/{id}", h.site.SignedIn(detail(h, "Collection", "collections", "collection", "/portal/collections", v1Collection)))
	mux.HandleFunc("GET /portal/v2/collections", h.site.SignedIn(serveList(h, listPage[tambala.CollectionV2, money.AssetCode]{title: "Collections (/v2)", nav: "collections",
		tmpl: "collections_v2", path: "/portal/v2/collections", field: "asset", v2: true, filter: assetFilter,
		list: func(c *tambala.Client, ctx context.Context, pg tambala.PageRequest, asset money.AssetCode) (tambala.Page[tambala.CollectionV2], error) {
			return c.Collections(ctx, pg, tambala.CollectionV2Filter{Asset: asset})
		}})))
	mux.HandleFunc("GET /portal/v2/collections/{id}", h.site.SignedIn(detail(h, "Collection (/v2)", "collections", "collection_v2", "/portal/v2/collections", (*tambala.Client).Collection)))
	mux.HandleFunc("GET /portal/statement", h.site.SignedIn(h.statement))
	mux.HandleFunc("GET /portal/statement.csv", h.site.SignedIn(h.statementCSV))
	mux.HandleFunc("/portal/", h.site.NotFound)
	h.handler = http.NewCrossOriginProtection().Handler(mux)
	h.site.Tracer, h.site.Routes = webui.TracerOf(engine, "github.com/tambalapay/tambala/adapters/portal"), mux
	return h
}

// ServeHTTP serves a request under /portal/ with the portal's headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.site.Serve(h.handler, w, r)
}

// view is what every page template is given; session a signed-in
// request (adapters/internal/webui's).
type (
	view    = webui.View
	session = webui.Session
)
