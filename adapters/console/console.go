package console

import (
	"embed"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/errcode"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var staticFS embed.FS

// ContentSecurityPolicy is the policy of every page: the console's own
// style sheet only, no script, never framed; frames of its own origin
// only (the proof).
const ContentSecurityPolicy = "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self' data:; " +
	"frame-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"

// ProofSecurityPolicy is the policy of a funding proof: a sandbox (no
// script, an opaque origin) that the console's own pages alone may frame.
// Chromium's PDF viewer shows a PDF under it, framed or on its own, where
// it refuses one in a frame with the sandbox attribute.
const ProofSecurityPolicy = "sandbox; default-src 'none'; img-src 'self'; frame-ancestors 'self'"

// Cookie names: the __Host- prefix needs Secure and Path=/. They differ
// from the portal's, so one browser holds both sessions.
const (
	SecureCookieName   = "__Host-tambala_console"
	InsecureCookieName = "tambala_console"
)

// Options configure the console (webui's, shared with the portal). The
// zero value serves over HTTPS; with InsecureCookies the plain-HTTP
// cookie is tambala_console, Path /console.
type Options = webui.Options

// Handler serves the console's pages under /console/.
type Handler struct {
	engine *tambala.Engine
	portal *tambala.Sessions
	opts   Options
	site   *webui.Site
	mux    http.Handler
}

// pageNames are the console's pages (but the operations pages): webui's
// shared ones and its own.
var pageNames = append(slices.Clip(webui.SharedPages), "home", "desk", "order", "corridors")

// wording is what the shared pages say on the console.
var wording = webui.Wording{Name: "console",
	SignIn:   "The operator's staff sign in here.",
	Enrol:    "Every staff user signs in with a second factor.",
	Accept:   "finish setting up your staff account; you then sign in here and enrol an authenticator app",
	Continue: "/console/desk", ContinueTo: "the desk", ContinueID: "continue"}

// errNotStaff refuses an organization's user.
var errNotStaff = errcode.Newf(errcode.Forbidden,
	"This console is for the operator's staff. Organization admins sign in to the portal.")

// New returns the console's handler over engine, serving /console/; o may
// be nil.
func New(engine *tambala.Engine, o *Options) *Handler {
	h := &Handler{engine: engine, portal: engine.StaffSessions()}
	if o != nil {
		h.opts = *o
	}
	if h.opts.Now == nil {
		h.opts.Now = time.Now
	}
	h.site = &webui.Site{Portal: h.portal, Prefix: "/console", Home: "/console/home", Words: wording,
		SecureCookie: SecureCookieName, InsecureCookie: InsecureCookieName, InsecureCookies: h.opts.InsecureCookies,
		CSP: ContentSecurityPolicy, StaticPrefix: "/console/static/", ClientAddr: h.opts.ClientAddr,
		Logger: h.opts.Logger, LogPrefix: "console: ", Pages: parsePages(),
		Admit: func(u tambala.User) error {
			if len(u.StaffRoles) == 0 {
				return errNotStaff
			}
			return nil
		}}
	s := h.site
	mux := http.NewServeMux()
	mux.Handle("GET /console/static/{file}", s.Static(webui.Sub(staticFS, "static")))
	mux.HandleFunc("GET /console/sign-in", s.SignInPage)
	mux.HandleFunc("POST /console/sign-in", s.SignIn)
	mux.HandleFunc("GET /console/second-factor", s.SecondFactorPage)
	mux.HandleFunc("POST /console/second-factor", s.SecondFactor)
	mux.HandleFunc("GET /console/enrol", s.EnrolPage)
	mux.HandleFunc("POST /console/enrol", s.Enrol)
	mux.HandleFunc("POST /console/sign-out", s.SignOut)
	mux.HandleFunc("GET /console/invitations/accept", s.AcceptPage)
	mux.HandleFunc("POST /console/invitations/accept", s.Accept)
	mux.HandleFunc("GET /console/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console/home", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /console/home", s.SignedIn(h.home))
	mux.HandleFunc("GET /console/desk", s.SignedIn(h.desk))
	mux.HandleFunc("GET /console/orders/{id}", s.SignedIn(h.order))
	mux.HandleFunc("GET /console/orders/{id}/proof", s.SignedIn(h.proof))
	mux.HandleFunc("GET /console/orders/{id}/proof/download", s.SignedIn(h.proofDownload))
	mux.HandleFunc("POST /console/orders/{id}/moves/{move}", s.Changing(h.move))
	mux.HandleFunc("GET /console/corridors", s.SignedIn(h.corridors))
	mux.HandleFunc("POST /console/corridors/{asset}", s.Changing(h.setCorridor))
	mux.HandleFunc("POST /console/limits/{asset}/{op}", s.Changing(h.setLimits))
	h.operationsRoutes(mux, s)
	h.reconciliationRoutes(mux, s)
	mux.HandleFunc("/console/", s.NotFound)
	h.mux = http.NewCrossOriginProtection().Handler(mux)
	h.site.Tracer, h.site.Routes = webui.TracerOf(engine, "github.com/tambalapay/tambala/adapters/console"), mux
	return h
}

// parsePages parses the console's pages (but the operations pages) over
// the layout.
func parsePages() map[string]*template.Template {
	s := &webui.Site{Prefix: "/console", Words: wording}
	s.AddPages(layout(s), templates, pageNames...)
	return s.Pages
}

// templates are the console's own templates.
var templates = webui.Sub(templateFS, "templates")

// layout is s's layout with the console's header and funcs; more funcs
// add to them, and parts.html with its sub-templates.
func layout(s *webui.Site, more ...template.FuncMap) *template.Template {
	if len(more) == 0 {
		return s.Layout(templates, []string{"layout.html"}, funcs)
	}
	return s.Layout(templates, []string{"layout.html", "parts.html"}, append([]template.FuncMap{funcs}, more...)...)
}

// ServeHTTP serves a request under /console/ with the console's headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.site.Serve(h.mux, w, r)
}

// may reports whether the signed-in user holds role (the forms shown;
// the engine checks again).
func may(s webui.Session, role accounts.StaffRole) bool {
	return slices.Contains(s.User.StaffRoles, role)
}

// operator is the session's Operator face, or a page saying why not.
func (h *Handler) operator(w http.ResponseWriter, r *http.Request, s webui.Session, v webui.View) (*tambala.Operator, bool) {
	op, err := h.portal.Operator(r.Context(), s.Token)
	if err != nil {
		h.fail(w, v, err)
		return nil, false
	}
	return op, true
}

// fail renders the message page with the engine's error.
func (h *Handler) fail(w http.ResponseWriter, v webui.View, err error) {
	v.Error = h.site.Friendly(err)
	h.site.Render(w, webui.StatusOf(err), "message", v)
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"visible": Visible,
	"typed":   Typed,
	"flagged": Flagged,
	"deref":   func(t *time.Time) time.Time { return *t },
	"split":   func(s string) []string { return strings.SplitN(s+".", ".", 3) },
	"args": func(v webui.View, move string, rest ...string) formArgs {
		a := formArgs{V: v, Move: move}
		if len(rest) > 0 {
			a.Label = rest[0]
		}
		if len(rest) > 1 {
			a.Text = rest[1]
		}
		return a
	},
}

// formArgs are a sub-template's: the page's view, a move (or field) name,
// its label and text.
type formArgs struct {
	V                 webui.View
	Move, Label, Text string
}

// age is d as the desk reads it: "3 h 12 min", "2 d 4 h", "7 min".
func age(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	m := int(d / time.Minute)
	days, hours, mins := m/(24*60), m/60%24, m%60
	switch {
	case days > 0:
		return strconv.Itoa(days) + " d " + strconv.Itoa(hours) + " h"
	case hours > 0:
		return strconv.Itoa(hours) + " h " + strconv.Itoa(mins) + " min"
	default:
		return strconv.Itoa(mins) + " min"
	}
}
