package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/statementcsv"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// statementLineJSON is one statement line on the admin API.
type statementLineJSON struct {
	EntryID        string       `json:"entry_id"`
	BookedAt       time.Time    `json:"booked_at"`
	Kind           string       `json:"kind"`
	ResourceID     string       `json:"resource_id"`
	Available      money.Amount `json:"available_change"`
	Held           money.Amount `json:"held_change"`
	AvailableAfter money.Amount `json:"available_after"`
	HeldAfter      money.Amount `json:"held_after"`
}

// orgStatement is GET /admin/orgs/{org}/statement?asset=&from=&to=: one
// page of the organization's statement (Operator.BackOffice().OrgStatement) as JSON
// (limit, before_id as on every list), or with format=csv every line of
// the period as a CSV download (adapters/internal/statementcsv), streamed.
func (a *Admin) orgStatement(w http.ResponseWriter, r *http.Request) {
	org, q := r.PathValue("org"), r.URL.Query()
	from, to, field, msg := statementcsv.ParsePeriod(q.Get("from"), q.Get("to"))
	if field != "" {
		writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "%s: %s", field, msg))
		return
	}
	req := tambala.StatementRequest{Asset: money.AssetCode(q.Get("asset")), From: from, To: to}
	op := a.engine.Operator()
	switch q.Get("format") {
	case "", "json":
	case "csv":
		read := func(ctx context.Context, pg tambala.PageRequest) (tambala.Statement, error) {
			return op.BackOffice().OrgStatement(ctx, org, req, pg)
		}
		if _, err := read(r.Context(), tambala.PageRequest{Limit: 1}); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		w.Header().Set("Content-Type", statementcsv.ContentType)
		w.Header().Set("Content-Disposition", `attachment; filename="`+statementcsv.FileName(org, string(req.Asset))+`"`)
		w.WriteHeader(http.StatusOK)
		_ = statementcsv.Write(r.Context(), flushingWriter{w}, read) // the status is sent: a failure cuts the body short
		return
	default:
		writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "format must be json or csv"))
		return
	}
	page, err := parsePage(q.Get("limit"), q.Get("before_id"))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	st, err := op.BackOffice().OrgStatement(r.Context(), org, req, page)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	lines := make([]statementLineJSON, len(st.Lines.Items))
	for i, l := range st.Lines.Items {
		lines[i] = statementLineJSON{EntryID: l.EntryID, BookedAt: l.At, Kind: string(l.Kind), ResourceID: l.ResourceID,
			Available: l.Available, Held: l.Held, AvailableAfter: l.AvailableAfter, HeldAfter: l.HeldAfter}
	}
	out := pageJSON("lines", lines, st.Lines.HasMore, st.Lines.NextBeforeID)
	out["org_id"], out["asset"], out["columns"] = org, string(st.Asset.Code), statementcsv.Version
	out["opening"] = map[string]money.Amount{"available": st.OpeningAvailable, "held": st.OpeningHeld}
	out["closing"] = map[string]money.Amount{"available": st.ClosingAvailable, "held": st.ClosingHeld}
	if !from.IsZero() {
		out["from"] = from
	}
	if !to.IsZero() {
		out["to"] = to
	}
	a.reply(w, r, http.StatusOK, out, nil)
}

// flushingWriter flushes the response after each page of a download.
type flushingWriter struct{ http.ResponseWriter }

func (f flushingWriter) Flush() { _ = http.NewResponseController(f.ResponseWriter).Flush() }
