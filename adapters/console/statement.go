package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/statementcsv"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// The statement page of an organization (the staff's read, every role):
// its ledger lines in one asset over a period, paged, and the same lines
// as a CSV download (adapters/internal/statementcsv).

// statementPageSize is how many lines a statement page shows.
const statementPageSize = 50

// statementData is the statement page's.
type statementData struct {
	Org       tambala.Organization
	Statement *tambala.Statement
	Next      string // the next page's URL, "" for none
	CSV       string // the download's URL, "" before an asset is chosen
}

// statementRoutes adds the statement page and its download.
func (h *Handler) statementRoutes(mux *http.ServeMux, s *webui.Site) {
	s.AddPages(layout(s, opsFuncs), templates, "statement")
	mux.HandleFunc("GET /console/orgs/{id}/statement", s.SignedIn(h.statement))
	mux.HandleFunc("GET /console/orgs/{id}/statement.csv", s.SignedIn(h.statementCSV))
}

// statementQuery is the statement routes' view, with the asset and period
// of r read into its form; false after it marked a field wrong.
func statementQuery(r *http.Request, s webui.Session) (webui.View, tambala.StatementRequest, bool) {
	v := s.View("Statement", "orgs")
	q := r.URL.Query()
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	for _, k := range []string{"asset", "from", "to"} {
		v.Form["statement."+k] = strings.TrimSpace(q.Get(k))
	}
	req := tambala.StatementRequest{Asset: money.AssetCode(strings.ToUpper(v.Form["statement.asset"]))}
	from, to, field, msg := statementcsv.ParsePeriod(v.Form["statement.from"], v.Form["statement.to"])
	if field != "" {
		v.Errors["statement."+field] = msg
		return v, req, false
	}
	req.From, req.To = from, to
	return v, req, true
}

func (h *Handler) statement(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, req, ok := statementQuery(r, s)
	op, opOK := h.operator(w, r, s, v)
	if !opOK {
		return
	}
	o, err := op.Organization(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, v, err)
		return
	}
	v.Title = "Statement of " + o.Name
	d := statementData{Org: o}
	v.Data = d
	if !ok {
		h.site.Render(w, http.StatusUnprocessableEntity, "statement", v)
		return
	}
	if req.Asset == "" {
		h.site.Render(w, http.StatusOK, "statement", v)
		return
	}
	st, err := op.BackOffice().OrgStatement(r.Context(), o.ID, req, tambala.PageRequest{Limit: statementPageSize, BeforeID: r.URL.Query().Get("before")})
	if err != nil {
		h.statementFailed(w, v, err)
		return
	}
	d.Statement = &st
	base := "/console/orgs/" + url.PathEscape(o.ID) + "/statement"
	q := url.Values{}
	for _, k := range []string{"asset", "from", "to"} {
		if x := v.Form["statement."+k]; x != "" {
			q.Set(k, x)
		}
	}
	d.CSV = base + ".csv?" + q.Encode()
	if st.Lines.HasMore {
		q.Set("before", st.Lines.NextBeforeID)
		d.Next = base + "?" + q.Encode()
	}
	v.Data = d
	h.site.Render(w, http.StatusOK, "statement", v)
}

// statementFailed shows an asset or cursor the engine refused beside the
// asset field, anything else as the message page.
func (h *Handler) statementFailed(w http.ResponseWriter, v webui.View, err error) {
	switch errcode.Of(err) {
	case errcode.UnsupportedAsset, errcode.ValidationError:
		v.Errors["statement.asset"] = errcode.Message(err)
		h.site.Render(w, http.StatusUnprocessableEntity, "statement", v)
	default:
		h.fail(w, v, err)
	}
}

// statementCSV streams the statement's lines as CSV, page by page.
func (h *Handler) statementCSV(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, req, ok := statementQuery(r, s)
	op, opOK := h.operator(w, r, s, v)
	if !opOK {
		return
	}
	org := r.PathValue("id")
	read := func(ctx context.Context, pg tambala.PageRequest) (tambala.Statement, error) {
		return op.BackOffice().OrgStatement(ctx, org, req, pg)
	}
	if !ok {
		v.Error = "The period is not valid: " + strings.Join(mapValues(v.Errors), " ")
		h.site.Render(w, http.StatusUnprocessableEntity, "message", v)
		return
	}
	// The first read answers the rules (the role, the asset) before
	// anything is sent.
	if _, err := read(r.Context(), tambala.PageRequest{Limit: 1}); err != nil {
		h.fail(w, v, err)
		return
	}
	w.Header().Set("Content-Type", statementcsv.ContentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+statementcsv.FileName(org, string(req.Asset))+`"`)
	w.Header().Set("Cache-Control", "no-store")
	_ = statementcsv.Write(r.Context(), flushWriter{w}, read) // the status is sent: a failure cuts the body short
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// flushWriter flushes the response after each page of a download.
type flushWriter struct{ http.ResponseWriter }

func (f flushWriter) Flush() { _ = http.NewResponseController(f.ResponseWriter).Flush() }
