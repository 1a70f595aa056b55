package console

import (
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/webui"
)

// opsPages are the operations pages (organizations, approvals,
// operations, audit trail, staff), parsed over the layout with parts.html.
var opsPages = []string{"orgs", "org", "approvals", "operations", "audit", "staff"}

// opsFuncs are the operations pages' own helpers.
var opsFuncs = template.FuncMap{
	// dash turns a form key ("fund.amount") into an element id.
	"dash": func(s string) string { return strings.ReplaceAll(s, ".", "-") },
	// field is the name of a form key: the part after its first dot.
	"field": func(s string) string {
		if _, after, ok := strings.Cut(s, "."); ok {
			return after
		}
		return s
	},
	"party":    party,
	"modeName": modeName,
	"feeText":  feeText,
}

// operationsRoutes adds the operations pages to the console: the
// organizations, the approvals, the operations (pause switches, rails,
// the manual rail's queue, dead deliveries), the audit trail and the
// staff.
func (h *Handler) operationsRoutes(mux *http.ServeMux, s *webui.Site) {
	s.AddPages(layout(s, opsFuncs), templates, opsPages...)

	mux.HandleFunc("GET /console/orgs", s.SignedIn(h.orgs))
	mux.HandleFunc("GET /console/orgs/{id}", s.SignedIn(h.show(h.orgView, "org", true)))
	mux.HandleFunc("POST /console/orgs/{id}/{form}", s.Changing(h.orgChange))
	mux.HandleFunc("POST /console/orgs/{id}/users/{user}/{change}", s.Changing(h.orgUserChange))
	h.statementRoutes(mux, s)

	mux.HandleFunc("GET /console/approvals", s.SignedIn(h.show(h.approvalsView, "approvals", true)))
	mux.HandleFunc("POST /console/approvals/{id}/{decision}", s.Changing(h.decide))
	mux.HandleFunc("POST /console/thresholds", s.Changing(h.setThreshold))

	mux.HandleFunc("GET /console/operations", s.SignedIn(h.show(h.operationsView, "operations", false)))
	mux.HandleFunc("POST /console/operations/pause/{api}", s.Changing(h.setPause))
	mux.HandleFunc("POST /console/operations/rails/{rail}", s.Changing(h.setRail))
	mux.HandleFunc("POST /console/operations/payouts/{id}/resolve", s.Changing(h.resolve))
	mux.HandleFunc("POST /console/operations/deliveries/{org}/{id}/redeliver", s.Changing(h.redeliver))

	mux.HandleFunc("GET /console/audit", s.SignedIn(h.audit))

	mux.HandleFunc("GET /console/staff", s.SignedIn(h.show(h.staffView, "staff", false)))
	mux.HandleFunc("POST /console/staff/invite", s.Changing(h.invite))
	mux.HandleFunc("POST /console/staff/{id}/{change}", s.Changing(h.staffChange))
}

// again renders page v once more after a form named form failed: the
// values sent back into its fields, the problems beside them, and the
// engine's error (when err is set) above the form, and on the page too
// when it is forbidden.
func (h *Handler) again(w http.ResponseWriter, v webui.View, page, form string, values, problems map[string]string, err error) {
	status := http.StatusUnprocessableEntity
	if v.Errors == nil {
		v.Errors = map[string]string{}
	}
	if v.Form == nil {
		v.Form = map[string]string{}
	}
	if err != nil {
		status = webui.StatusOf(err)
		v.Errors[form+".form"] = h.site.Friendly(err)
		if status == http.StatusForbidden {
			v.Error = v.Errors[form+".form"]
		}
	}
	for k, val := range values {
		v.Form[form+"."+k] = val
	}
	for k, p := range problems {
		v.Errors[form+"."+k] = p
	}
	h.site.Render(w, status, page, v)
}

// show renders a staff page built by view, with the notice of the change
// just made (?done=) or, where pending says the page may name one, of the
// approval the change waits for (?pending=).
func (h *Handler) show(view func(http.ResponseWriter, *http.Request, webui.Session) (webui.View, bool), page string,
	pending bool) func(http.ResponseWriter, *http.Request, webui.Session) {
	return func(w http.ResponseWriter, r *http.Request, s webui.Session) {
		v, ok := view(w, r, s)
		if !ok {
			return
		}
		v.Notice = notice(r)
		if id := r.URL.Query().Get("pending"); pending && id != "" {
			v.Notice = h.pendingNotice(r, s, id)
		}
		h.site.Render(w, http.StatusOK, page, v)
	}
}

// discard is the error of a change whose result the page does not show.
func discard[T any](_ T, err error) error { return err }

// notices are the texts a page shows after a change (?done=key).
var notices = map[string]string{
	"status":       "The organization's status is saved.",
	"v2":           "The organization's /v2 access is saved.",
	"limits":       "The payout limits are saved.",
	"floor":        "The balance floor is saved.",
	"fund":         "The funding is credited.",
	"approve":      "The approval is approved and its money moved.",
	"reject":       "The approval is rejected; nothing moved.",
	"threshold":    "The threshold is saved.",
	"pause":        "The pause switch is saved.",
	"rail":         "The rail switch is saved.",
	"resolve":      "The payout's outcome is recorded.",
	"redeliver":    "The delivery is queued to be sent again.",
	"roles":        "The staff roles are saved.",
	"end-sessions": "The user's sessions are ended.",
	"disable":      "The user is disabled and signed out.",
	"enable":       "The user may sign in again.",
	"reset-totp":   "The user's two-factor sign-in is reset: they enrol again at their next sign-in.",
	"confirm":      "The staff member is confirmed: they approve again.",
}

// notice is the notice of ?done= on r, "" for none.
func notice(r *http.Request) string { return notices[r.URL.Query().Get("done")] }

// run makes call with the session's Operator face, then sends the browser
// to next; a move or change that waits for a second staff member sends it
// to the approvals page, which names the pending approval; on an error it
// renders page v again, the form named name with its values and problems
// and the engine's error (again).
func (h *Handler) run(w http.ResponseWriter, r *http.Request, s webui.Session, v webui.View, page, name string,
	values, problems map[string]string, next string, call func(*tambala.Operator) error) {
	op, err := h.portal.Operator(r.Context(), s.Token)
	if err == nil {
		err = call(op)
	}
	var pending *tambala.ApprovalPendingError
	if errors.As(err, &pending) {
		http.Redirect(w, r, "/console/approvals?pending="+url.QueryEscape(pending.Approval.ID), http.StatusSeeOther)
		return
	}
	if err != nil {
		h.again(w, v, page, name, values, problems, err)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}
