package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
)

// approvalRoutes are four-eyes through the admin token: the operator's
// automation reads approvals, rejects them and sets the thresholds (a
// removal or a raise answers 202 with a pending threshold_change once the
// store has staff); only a signed-in staff member approves (the console),
// never the token.
func (a *Admin) approvalRoutes() {
	a.handle("GET /admin/approvals", a.listApprovals)
	a.handle("GET /admin/approvals/{id}", a.getApproval)
	a.handleJSON("POST /admin/approvals/{id}/reject", a.rejectApproval)
	a.handle("GET /admin/approval-thresholds", a.approvalThresholds)
	a.handleJSON("PUT /admin/approval-thresholds/{asset}", a.setApprovalThreshold)
}

// listApprovals is GET /admin/approvals?status=&before_id=&limit=.
func (a *Admin) listApprovals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	status := approvals.Status(q.Get("status"))
	switch status {
	case "", approvals.Pending, approvals.Approved, approvals.Rejected:
	default:
		writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "status must be pending, approved or rejected."))
		return
	}
	page, err := parsePage(q.Get("limit"), q.Get("before_id"))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	res, err := a.engine.Operator().Approvals().List(r.Context(), status, page)
	items := make([]any, len(res.Items))
	for i, ap := range res.Items {
		items[i] = approvalJSON(ap)
	}
	a.reply(w, r, http.StatusOK, pageJSON("approvals", items, res.HasMore, res.NextBeforeID), err)
}

// getApproval is GET /admin/approvals/{id}.
func (a *Admin) getApproval(w http.ResponseWriter, r *http.Request) {
	ap, err := a.engine.Operator().Approvals().Get(r.Context(), r.PathValue("id"))
	a.reply(w, r, http.StatusOK, approvalJSON(ap), err)
}

// rejectApproval is POST /admin/approvals/{id}/reject with {"reason"}.
func (a *Admin) rejectApproval(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Reason string `json:"reason"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	ap, err := a.engine.Operator().Approvals().Reject(r.Context(), r.PathValue("id"), in.Reason)
	a.reply(w, r, http.StatusOK, approvalJSON(ap), err)
}

// approvalThresholds is GET /admin/approval-thresholds:
// {"thresholds":{"MWK":"1000.00",...}}, the assets that have one.
func (a *Admin) approvalThresholds(w http.ResponseWriter, r *http.Request) {
	th, err := a.engine.Operator().Approvals().Thresholds(r.Context())
	out := map[string]string{}
	for code, t := range th {
		out[string(code)] = t.String()
	}
	a.reply(w, r, http.StatusOK, map[string]any{"thresholds": out}, err)
}

// setApprovalThreshold is PUT /admin/approval-thresholds/{asset} with
// {"threshold": "1000.00"} or {"threshold": null} to remove it.
func (a *Admin) setApprovalThreshold(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Threshold json.RawMessage `json:"threshold"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	var text *string
	switch {
	case len(in.Threshold) == 0:
		writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "threshold is required: an amount, or null to remove it."))
		return
	case string(in.Threshold) != "null":
		var s string
		if err := json.Unmarshal(in.Threshold, &s); err != nil {
			writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "threshold must be an amount as a string, or null."))
			return
		}
		text = &s
	}
	code := money.AssetCode(r.PathValue("asset"))
	asset, err := a.engine.Settings().Asset(code)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	var t money.Amount
	if text != nil {
		if t, err = money.Parse(asset, *text); err != nil {
			writeError(w, r, a.log, err)
			return
		}
	}
	if err := a.engine.Operator().Approvals().SetThreshold(r.Context(), code, t); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	var shown *string
	if t.IsSet() {
		s := t.String()
		shown = &s
	}
	a.reply(w, r, http.StatusOK, map[string]any{"asset": asset.Code, "threshold": shown}, nil)
}

// approvalJSON is the one rendering of an approval: {"id","kind",
// "org_id","asset","amount","key","role","details","requested_by",
// "requested_at","status","decided_by","decided_at","reason"}; the
// decision's fields null while pending.
func approvalJSON(ap tambala.Approval) map[string]any {
	party := func(p approvals.Party) any {
		if p.Kind == "" {
			return nil
		}
		return map[string]any{"kind": p.Kind, "user_id": optional(p.UserID), "email": optional(p.Email)}
	}
	var decidedAt any
	if !ap.DecidedAt.IsZero() {
		decidedAt = render.Time(ap.DecidedAt)
	}
	details := ap.Details
	if details == nil {
		details = map[string]string{}
	}
	return map[string]any{"id": ap.ID, "kind": ap.Kind, "org_id": optional(ap.Org), "asset": ap.Amount.Asset().Code,
		"amount": ap.Amount.String(), "key": ap.Key, "role": ap.Role, "details": details,
		"requested_by": party(ap.RequestedBy), "requested_at": render.Time(ap.RequestedAt), "status": ap.Status,
		"decided_by": party(ap.DecidedBy), "decided_at": decidedAt, "reason": optional(ap.Reason)}
}

func optional(s string) any {
	if s == "" {
		return nil
	}
	return s
}
