package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/webhooks"
)

// deliveryPages bounds the pages of deliveries read per organization for
// the dead ones (each of tambala.MaxPageSize).
const deliveryPages = 5

// inFlightShown bounds the payouts in flight the page lists.
const inFlightShown = 200

type pauseRow struct {
	API  tambala.API
	Mode tambala.PauseMode
}

type railRow struct {
	Rail     payouts.Rail
	Disabled bool
	// Last is the newest change of the switch, nil when never changed.
	Last *tambala.AuditEntry
}

type inFlightRow struct {
	P       tambala.InFlightPayout
	OrgName string
}

type deadRow struct {
	D       tambala.DeliveryView
	Org     string
	OrgName string
}

type operationsData struct {
	Pauses   []pauseRow
	Modes    []tambala.PauseMode
	Rails    []railRow
	InFlight []inFlightRow
	Failures []payouts.FailureCode
	Orgs     []tambala.Organization
	// DeadOrg is the organization the dead deliveries are of, "" for all.
	DeadOrg     string
	Dead        []deadRow
	DeadPartial bool // more deliveries than were read
	Ops         bool
}

// modeName is how the page names a pause mode.
func modeName(m tambala.PauseMode) string {
	if m == tambala.Live {
		return "live"
	}
	return string(m)
}

// railState is a rail's switch (Operator.Rails) and its newest change
// in the audit trail, who switched it and when.
func (h *Handler) railState(r *http.Request, acc *tambala.People, rails tambala.Rails, rail payouts.Rail) railRow {
	row := railRow{Rail: rail, Disabled: (rail == payouts.Bank && rails.BankDisabled) || (rail == payouts.Momo && rails.MomoDisabled)}
	page, err := acc.AuditTrail(r.Context(), tambala.PageRequest{Limit: 1},
		tambala.AuditFilter{Action: tambala.AuditRailChanged, Target: string(rail)})
	if err == nil && len(page.Items) > 0 {
		row.Last = &page.Items[0]
	}
	return row
}

func (h *Handler) operationsView(w http.ResponseWriter, r *http.Request, s webui.Session) (webui.View, bool) {
	v := s.View("Operations", "operations")
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return v, false
	}
	d := operationsData{Ops: may(s, accounts.StaffOperations),
		Modes:    []tambala.PauseMode{tambala.Live, tambala.Maintenance, tambala.Incident},
		Failures: []payouts.FailureCode{payouts.RecipientAccountInvalid, payouts.Declined, payouts.ProviderUnavailable, payouts.TemporarilyUnavailable}}
	ps, err := op.PauseState(r.Context())
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	for _, api := range []tambala.API{tambala.APIv1, tambala.APIv2} {
		d.Pauses = append(d.Pauses, pauseRow{API: api, Mode: ps.Of(api)})
		v.Form["pause-"+string(api)+".mode"] = string(ps.Of(api))
	}
	acc, err := h.portal.People(r.Context(), s.Token)
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	rails, err := op.Rails(r.Context())
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	for _, rail := range []payouts.Rail{payouts.Bank, payouts.Momo} {
		d.Rails = append(d.Rails, h.railState(r, acc, rails, rail))
	}
	if d.Orgs, err = op.Organizations(r.Context()); err != nil {
		h.fail(w, v, err)
		return v, false
	}
	names := map[string]string{}
	for _, o := range d.Orgs {
		names[o.ID] = o.Name
	}
	inflight, err := op.BackOffice().PayoutsInFlight(r.Context(), tambala.InFlightFilter{Limit: inFlightShown})
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	for _, p := range inflight {
		d.InFlight = append(d.InFlight, inFlightRow{P: p, OrgName: names[p.Payout.Org]})
	}
	d.DeadOrg = r.URL.Query().Get("org")
	for _, o := range d.Orgs {
		if d.DeadOrg != "" && o.ID != d.DeadOrg {
			continue
		}
		pg := tambala.PageRequest{Limit: tambala.MaxPageSize}
		for i := range deliveryPages {
			page, err := op.Deliveries(r.Context(), o.ID, pg)
			if err != nil {
				h.fail(w, v, err)
				return v, false
			}
			for _, dv := range page.Items {
				if dv.State == webhooks.Dead {
					d.Dead = append(d.Dead, deadRow{D: dv, Org: o.ID, OrgName: o.Name})
				}
			}
			if !page.HasMore {
				break
			}
			if i == deliveryPages-1 {
				d.DeadPartial = true
			}
			pg.BeforeID = page.NextBeforeID
		}
	}
	v.Data = d
	return v, true
}

func (h *Handler) setPause(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.operationsView(w, r, s)
	if !ok {
		return
	}
	api := tambala.API(r.PathValue("api"))
	if api != tambala.APIv1 && api != tambala.APIv2 {
		h.site.NotFound(w, r)
		return
	}
	mode := tambala.PauseMode(r.PostFormValue("mode"))
	name := "pause-" + string(api)
	form := map[string]string{"mode": string(mode)}
	h.run(w, r, s, v, "operations", name, form, nil, "/console/operations?done=pause", func(op *tambala.Operator) error {
		return discard(op.SetPause(r.Context(), api, mode))
	})
}

func (h *Handler) setRail(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.operationsView(w, r, s)
	if !ok {
		return
	}
	rail := payouts.Rail(r.PathValue("rail"))
	if rail != payouts.Bank && rail != payouts.Momo {
		h.site.NotFound(w, r)
		return
	}
	disabled := r.PostFormValue("disabled") == "yes"
	h.run(w, r, s, v, "operations", "rail-"+string(rail), nil, nil, "/console/operations?done=rail", func(op *tambala.Operator) error {
		return discard(op.SetRailDisabled(r.Context(), rail, disabled))
	})
}

// resolve records the outcome of a payout in flight (the manual rail's
// queue).
func (h *Handler) resolve(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.operationsView(w, r, s)
	if !ok {
		return
	}
	id := r.PathValue("id")
	var p *tambala.InFlightPayout
	for i, row := range v.Data.(operationsData).InFlight {
		if row.P.Payout.ID == id {
			p = &v.Data.(operationsData).InFlight[i].P
		}
	}
	if p == nil {
		v.Error = "This payout is no longer in flight: its outcome is already recorded."
		h.site.Render(w, http.StatusConflict, "operations", v)
		return
	}
	form, problems := map[string]string{}, map[string]string{}
	res := tambala.Resolution{Outcome: payouts.Status(r.PostFormValue("outcome")),
		Reason: strings.TrimSpace(r.PostFormValue("reason")), Reference: strings.TrimSpace(r.PostFormValue("reference"))}
	form["outcome"], form["reason"], form["reference"] = string(res.Outcome), res.Reason, res.Reference
	switch res.Outcome {
	case payouts.Succeeded:
		fee := p.Payout.HeldFee
		asset := p.Payout.Amount.Asset()
		if fee.IsSet() {
			asset = fee.Asset()
		}
		res.Fee = parseAmount(asset, "fee", r, form, problems)
	case payouts.Failed:
		res.FailureCode = payouts.FailureCode(r.PostFormValue("failure_code"))
		form["failure_code"] = string(res.FailureCode)
		form["fee"] = strings.TrimSpace(r.PostFormValue("fee"))
		if res.FailureCode == "" {
			problems["failure_code"] = "Choose why it failed."
		}
	default:
		problems["outcome"] = "Choose succeeded or failed."
	}
	if res.Reason == "" {
		problems["reason"] = "Enter what you found."
	}
	if len(problems) > 0 {
		h.again(w, v, "operations", id, form, problems, nil)
		return
	}
	h.run(w, r, s, v, "operations", id, form, problems, "/console/operations?done=resolve", func(op *tambala.Operator) error {
		return discard(op.BackOffice().ResolvePayout(r.Context(), id, res))
	})
}

// redeliver sends a dead delivery again.
func (h *Handler) redeliver(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.operationsView(w, r, s)
	if !ok {
		return
	}
	org, id := r.PathValue("org"), r.PathValue("id")
	next := "/console/operations?done=redeliver"
	if q := r.PostFormValue("back"); q != "" {
		next += "&org=" + url.QueryEscape(q)
	}
	h.run(w, r, s, v, "operations", id, nil, nil, next, func(op *tambala.Operator) error {
		return discard(op.Redeliver(r.Context(), org, id))
	})
}

// feeText is a payout's fee held at accept, for the form's hint.
func feeText(a money.Amount) string {
	if !a.IsSet() {
		return ""
	}
	return a.String() + " " + string(a.Asset().Code)
}
