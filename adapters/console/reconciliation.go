package console

import (
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/reconcile"
)

// reconRails are the rails whose settlement files the page imports.
var reconRails = []payouts.Rail{payouts.Bank, payouts.Momo, payouts.Wallet}

// uploadSlack is room in an import's body for its form fields and part
// headers, beyond the file itself.
const uploadSlack = 16 << 10

// reconciliationRoutes adds the reconciliation page: the imports of each
// rail with the gaps in their numbers, the import of a settlement file
// (a multipart upload, webui's Site.Upload), an import's five groups, the
// bulk resolution of the payouts in flight it settles (after a
// confirmation step) and a line marked explained.
func (h *Handler) reconciliationRoutes(mux *http.ServeMux, s *webui.Site) {
	s.AddPages(layout(s, opsFuncs, template.FuncMap{
		"groupName": func(g reconcile.Group) string { return groupNames[g] },
	}), templates, "reconciliation")
	mux.HandleFunc("GET /console/reconciliation", s.SignedIn(h.reconciliation))
	mux.Handle("POST /console/reconciliation/import", s.Upload(tambala.MaxSettlementFile+uploadSlack, h.importSettlement))
	mux.HandleFunc("GET /console/reconciliation/{id}", s.SignedIn(h.settlement))
	mux.HandleFunc("POST /console/reconciliation/{id}/resolve", s.Changing(h.resolveSettled))
	mux.HandleFunc("POST /console/reconciliation/{id}/lines/{line}/explain", s.Changing(h.explainLine))
}

// railImports is one rail's imports and the gaps in their numbers.
type railImports struct {
	Rail              payouts.Rail
	Imports           []tambala.SettlementImport
	Missing, Repeated []int
}

// reconData is the reconciliation page's data: the list of imports, or
// one import's report; Confirm lists the payouts a bulk resolution is
// about to resolve, for the staff to confirm.
type reconData struct {
	Ops     bool
	Rails   []railImports
	Report  *tambala.SettlementReport
	Groups  []reconcile.Group
	Confirm []string
	Reason  string
}

// groupNames are the groups as the page names them.
var groupNames = map[reconcile.Group]string{
	reconcile.Matched:       "Matched",
	reconcile.AmountDiffers: "Amount differs",
	reconcile.StatusDiffers: "Status differs",
	reconcile.FileOnly:      "In the file, not in tambala",
	reconcile.TambalaOnly:   "In tambala, not in the file",
}

func (h *Handler) reconView(w http.ResponseWriter, r *http.Request, s webui.Session, id string) (webui.View, *tambala.BackOffice, bool) {
	v := s.View("Reconciliation", "reconciliation")
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return v, nil, false
	}
	rc := op.BackOffice()
	d := reconData{Ops: may(s, accounts.StaffOperations), Groups: reconcile.Groups}
	if id == "" {
		for _, rail := range reconRails {
			list, missing, repeated, err := rc.Imports(r.Context(), rail)
			if err != nil {
				h.fail(w, v, err)
				return v, nil, false
			}
			d.Rails = append(d.Rails, railImports{Rail: rail, Imports: list, Missing: missing, Repeated: repeated})
		}
	} else {
		rep, err := rc.Report(r.Context(), id)
		if err != nil {
			h.fail(w, v, err)
			return v, nil, false
		}
		d.Report = &rep
	}
	v.Data = d
	return v, rc, true
}

func (h *Handler) reconciliation(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, _, ok := h.reconView(w, r, s, "")
	if !ok {
		return
	}
	h.site.Render(w, http.StatusOK, "reconciliation", v)
}

func (h *Handler) settlement(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, _, ok := h.reconView(w, r, s, r.PathValue("id"))
	if !ok {
		return
	}
	q := r.URL.Query()
	switch {
	case q.Get("repeated") == "1":
		v.Notice = "This file was imported before: nothing changed, here is its import."
	case q.Has("resolved"):
		v.Notice = fmt.Sprintf("%s payouts resolved; %s waiting for a second staff member's approval (see Approvals); %s refused.",
			q.Get("resolved"), q.Get("pending"), q.Get("refused"))
	case q.Get("done") == "explain":
		v.Notice = "The line is marked explained."
	case q.Get("done") == "import":
		v.Notice = "The file is imported."
	}
	h.site.Render(w, http.StatusOK, "reconciliation", v)
}

// importSettlement takes the import form: the rail, then the file,
// read up to the engine's cap.
func (h *Handler) importSettlement(w http.ResponseWriter, r *http.Request, s webui.Session, u *webui.Upload) {
	v, rc, ok := h.reconView(w, r, s, "")
	if !ok {
		return
	}
	refuse := func(status int, msg string) {
		v.Errors["import.form"] = msg
		v.Form["import.rail"] = u.Fields["rail"]
		h.site.Render(w, status, "reconciliation", v)
	}
	if u.TooLarge {
		refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is too large: at most %d MB.", tambala.MaxSettlementFile>>20))
		return
	}
	if u.File == nil || u.File.FormName() != "file" {
		refuse(http.StatusUnprocessableEntity, "Choose the settlement file.")
		return
	}
	content, err := io.ReadAll(io.LimitReader(u, tambala.MaxSettlementFile+1))
	if failed := u.Failed(); failed != nil || err != nil {
		if webui.TooLong(failed) {
			refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is too large: at most %d MB.", tambala.MaxSettlementFile>>20))
			return
		}
		refuse(http.StatusBadRequest, "The upload could not be read: choose the file and send it again.")
		return
	}
	name := u.File.FileName()
	if name == "" {
		name = "settlement.csv"
	}
	imp, err := rc.Import(r.Context(), tambala.SettlementFile{Rail: payouts.Rail(u.Fields["rail"]), Name: name, Content: string(content)})
	if err != nil {
		refuse(webui.StatusOf(err), h.site.Friendly(err))
		return
	}
	next := "/console/reconciliation/" + url.PathEscape(imp.ID) + "?done=import"
	if imp.Repeated {
		next = "/console/reconciliation/" + url.PathEscape(imp.ID) + "?repeated=1"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// resolveSettled resolves the payouts ticked in the matched group: the
// first post shows what would be resolved, for the staff to confirm; only
// the second (confirm=yes) resolves.
func (h *Handler) resolveSettled(w http.ResponseWriter, r *http.Request, s webui.Session) {
	id := r.PathValue("id")
	v, rc, ok := h.reconView(w, r, s, id)
	if !ok {
		return
	}
	if err := r.ParseForm(); err != nil {
		h.site.Message(w, http.StatusBadRequest, "Reconciliation", "The form could not be read.", "/console/reconciliation")
		return
	}
	picked := r.PostForm["payout"]
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if len(picked) == 0 {
		v.Errors["resolve.form"] = "Tick the payouts the file settles."
		h.site.Render(w, http.StatusUnprocessableEntity, "reconciliation", v)
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		d := v.Data.(reconData)
		d.Confirm, d.Reason = picked, reason
		v.Data = d
		h.site.Render(w, http.StatusOK, "reconciliation", v)
		return
	}
	done, err := rc.ResolveMatched(r.Context(), id, tambala.BulkResolution{Payouts: picked, Reason: reason})
	if err != nil {
		v.Errors["resolve.form"] = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "reconciliation", v)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/console/reconciliation/%s?resolved=%d&pending=%d&refused=%d", url.PathEscape(id),
		len(done.Resolved), len(done.Pending), len(done.Refused)), http.StatusSeeOther)
}

// explainLine marks a line explained with the reason given.
func (h *Handler) explainLine(w http.ResponseWriter, r *http.Request, s webui.Session) {
	id := r.PathValue("id")
	v, rc, ok := h.reconView(w, r, s, id)
	if !ok {
		return
	}
	line, err := strconv.Atoi(r.PathValue("line"))
	if err != nil {
		h.site.NotFound(w, r)
		return
	}
	name := fmt.Sprintf("explain-%d", line)
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	v.Form[name+".reason"] = reason
	if reason == "" {
		v.Errors[name+".reason"] = "Say why this line is explained."
		h.site.Render(w, http.StatusUnprocessableEntity, "reconciliation", v)
		return
	}
	if err := rc.Explain(r.Context(), id, line, reason); err != nil {
		v.Errors[name+".form"] = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "reconciliation", v)
		return
	}
	http.Redirect(w, r, "/console/reconciliation/"+url.PathEscape(id)+"?done=explain", http.StatusSeeOther)
}
