package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// decidedPage is how many decided approvals a page shows.
const decidedPage = 50

// approvalRow is an approval as the page shows it.
type approvalRow struct {
	A       tambala.Approval
	OrgName string
	// Decide says the signed-in user may approve and reject it: they hold
	// its role and did not ask for it.
	Decide bool
	// Own says the signed-in user asked for it.
	Own bool
	// Change is, for a threshold change, what it changes ("1000.00 MWK ->
	// none"), shown in place of the amount.
	Change string
}

type thresholdRow struct {
	Asset  string
	Amount money.Amount
}

type approvalsData struct {
	Pending, Decided []approvalRow
	Older            string // the next page of decided ones, "" for none
	Thresholds       []thresholdRow
	Assets           []string
	Ops              bool
}

// party is how the page names a requester or decider.
func party(p approvals.Party) string {
	if p.Kind == approvals.Automation {
		return "automation"
	}
	return p.Email
}

func (h *Handler) approvalsView(w http.ResponseWriter, r *http.Request, s webui.Session) (webui.View, bool) {
	v := s.View("Approvals", "approvals")
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return v, false
	}
	ap := op.Approvals()
	names := orgNames(r, op)
	row := func(a tambala.Approval) approvalRow {
		own := a.RequestedBy.Kind == approvals.Staff && a.RequestedBy.UserID == s.User.ID
		rw := approvalRow{A: a, OrgName: names[a.Org], Own: own,
			Decide: a.Status == approvals.Pending && !own && may(s, accounts.StaffRole(a.Role))}
		if rw.OrgName == "" {
			rw.OrgName = a.Org
		}
		if a.Kind == approvals.ThresholdChange {
			rw.Change = "threshold " + a.Details["from"] + " -> " + a.Details["threshold"] + " " + string(a.Amount.Asset().Code)
		}
		return rw
	}
	var d approvalsData
	// Every pending one, oldest pages first read newest first.
	pg := tambala.PageRequest{Limit: tambala.MaxPageSize}
	for range historyPages {
		page, err := ap.List(r.Context(), approvals.Pending, pg)
		if err != nil {
			h.fail(w, v, err)
			return v, false
		}
		for _, a := range page.Items {
			d.Pending = append(d.Pending, row(a))
		}
		if !page.HasMore {
			break
		}
		pg.BeforeID = page.NextBeforeID
	}
	// The decided ones, newest first, a page at a time.
	pg = tambala.PageRequest{Limit: decidedPage, BeforeID: r.URL.Query().Get("before")}
	for range historyPages {
		page, err := ap.List(r.Context(), "", pg)
		if err != nil {
			h.fail(w, v, err)
			return v, false
		}
		for _, a := range page.Items {
			if a.Status != approvals.Pending && len(d.Decided) < decidedPage {
				d.Decided = append(d.Decided, row(a))
			}
		}
		if len(d.Decided) >= decidedPage || !page.HasMore {
			break
		}
		pg.BeforeID = page.NextBeforeID
	}
	if len(d.Decided) == decidedPage {
		d.Older = "/console/approvals?before=" + url.QueryEscape(d.Decided[decidedPage-1].A.ID)
	}
	ts, err := ap.Thresholds(r.Context())
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	for code, t := range ts {
		d.Thresholds = append(d.Thresholds, thresholdRow{Asset: string(code), Amount: t})
	}
	slices.SortFunc(d.Thresholds, func(a, b thresholdRow) int { return strings.Compare(a.Asset, b.Asset) })
	for code := range h.engine.Settings().Assets() {
		d.Assets = append(d.Assets, string(code))
	}
	slices.Sort(d.Assets)
	d.Ops = may(s, accounts.StaffOperations)
	v.Data = d
	return v, true
}

// decide approves or rejects an approval.
func (h *Handler) decide(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.approvalsView(w, r, s)
	if !ok {
		return
	}
	id, decision := r.PathValue("id"), r.PathValue("decision")
	form, problems := map[string]string{}, map[string]string{}
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	switch decision {
	case "approve":
	case "reject":
		form["reason"] = reason
		if reason == "" {
			problems["reason"] = "Enter why it is rejected."
		}
	default:
		h.site.NotFound(w, r)
		return
	}
	if len(problems) > 0 {
		h.again(w, v, "approvals", id, form, problems, nil)
		return
	}
	h.run(w, r, s, v, "approvals", id, form, problems, "/console/approvals?done="+decision, func(op *tambala.Operator) error {
		if decision == "approve" {
			return discard(op.Approvals().Approve(r.Context(), id))
		}
		return discard(op.Approvals().Reject(r.Context(), id, reason))
	})
}

// setThreshold sets or removes an asset's threshold: removing or raising
// it waits for a second staff member (the engine decides), and the page
// then names the pending approval.
func (h *Handler) setThreshold(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.approvalsView(w, r, s)
	if !ok {
		return
	}
	form, problems := map[string]string{}, map[string]string{}
	code := r.PostFormValue("asset")
	form["asset"] = code
	var amount money.Amount
	asset, err := h.engine.Settings().Asset(money.AssetCode(code))
	if err != nil {
		problems["asset"] = errcode.Message(err)
	} else {
		amount = parseAmount(asset, "amount", r, form, problems)
	}
	if len(problems) > 0 {
		h.again(w, v, "approvals", "threshold", form, problems, nil)
		return
	}
	h.run(w, r, s, v, "approvals", "threshold", form, problems, "/console/approvals?done=threshold", func(op *tambala.Operator) error {
		return op.Approvals().SetThreshold(r.Context(), asset.Code, amount)
	})
}
