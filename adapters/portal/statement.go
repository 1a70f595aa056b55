package portal

import (
	"context"
	"net/http"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/statementcsv"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// The statement page: the organization's ledger lines in one asset over a
// period, paged, with its opening and closing balances and a CSV download
// of the same lines (adapters/internal/statementcsv).

func init() { pageNames = append(pageNames, "statement") }

// statementData is the statement page's.
type statementData struct {
	Denied    string
	Statement *tambala.Statement
	Next      string // the next page's URL, "" for none
	CSV       string // the download's URL, "" before an asset is chosen
}

// statementRequest reads the page's asset and period; false after it
// marked a field wrong.
func statementRequest(v pageView) (tambala.StatementRequest, bool) {
	req := tambala.StatementRequest{Asset: money.AssetCode(strings.ToUpper(strings.TrimSpace(v.Form["asset"])))}
	from, to, field, msg := statementcsv.ParsePeriod(strings.TrimSpace(v.Form["from"]), strings.TrimSpace(v.Form["to"]))
	if field != "" {
		v.Errors[field] = msg
		return req, false
	}
	req.From, req.To = from, to
	return req, true
}

func (h *Handler) statement(w http.ResponseWriter, r *http.Request, s session) {
	v := h.newPageView(s, "Statement", "statement", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return
	}
	d := statementData{Denied: h.v2Denied(c)}
	v.Data = d
	if d.Denied != "" || v.Form["asset"] == "" {
		h.site.Render(w, http.StatusOK, "statement", v.view)
		return
	}
	req, ok := statementRequest(v)
	if !ok {
		h.site.Render(w, http.StatusUnprocessableEntity, "statement", v.view)
		return
	}
	st, err := c.Statement(r.Context(), req, pageRequest(r))
	if err != nil {
		h.statementFailed(w, v, err)
		return
	}
	d.Statement = &st
	d.Next = nextLink("/portal/statement", r.URL.Query(), st.Lines.HasMore, st.Lines.NextBeforeID)
	q := r.URL.Query()
	q.Del("before")
	d.CSV = "/portal/statement.csv?" + q.Encode()
	v.Data = d
	h.site.Render(w, http.StatusOK, "statement", v.view)
}

// statementCSV streams the statement's lines as CSV, page by page.
func (h *Handler) statementCSV(w http.ResponseWriter, r *http.Request, s session) {
	v := h.newPageView(s, "Statement", "statement", r)
	c, ok := h.client(w, r, v)
	if !ok {
		return
	}
	req, ok := statementRequest(v)
	if !ok {
		v.Data = statementData{}
		h.site.Render(w, http.StatusUnprocessableEntity, "statement", v.view)
		return
	}
	read := func(ctx context.Context, pg tambala.PageRequest) (tambala.Statement, error) {
		return c.Statement(ctx, req, pg)
	}
	// The first read answers the rules (the asset, /v2 access) before
	// anything is sent.
	if _, err := read(r.Context(), tambala.PageRequest{Limit: 1}); err != nil {
		h.statementFailed(w, v, err)
		return
	}
	w.Header().Set("Content-Type", statementcsv.ContentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+statementcsv.FileName(c.Principal().Org.ID, string(req.Asset))+`"`)
	w.Header().Set("Cache-Control", "no-store")
	if err := statementcsv.Write(r.Context(), flushWriter{w}, read); err != nil && h.opts.Logger != nil {
		h.opts.Logger.ErrorContext(r.Context(), "portal: statement download cut short", "error", err)
	}
}

// flushWriter flushes the response after each page.
type flushWriter struct{ http.ResponseWriter }

func (f flushWriter) Flush() { _ = http.NewResponseController(f.ResponseWriter).Flush() }

// statementFailed renders a statement's engine error: the /v2 rules as a
// short message, an asset or cursor the organization cannot read beside
// the asset field, anything else as the page's error.
func (h *Handler) statementFailed(w http.ResponseWriter, v pageView, err error) {
	switch errcode.Of(err) {
	case errcode.OnboardingIncomplete, errcode.Forbidden:
		v.Data = statementData{Denied: v2Message(err)}
		h.site.Render(w, http.StatusOK, "statement", v.view)
	case errcode.UnsupportedAsset, errcode.CorridorNotEnabled, errcode.ValidationError:
		v.Errors["asset"] = errcode.Message(err)
		v.Data = statementData{}
		h.site.Render(w, http.StatusUnprocessableEntity, "statement", v.view)
	default:
		v.Error, v.Data = h.site.Friendly(err), "/portal/"
		h.site.Render(w, webui.StatusOf(err), "message", v.view)
	}
}
