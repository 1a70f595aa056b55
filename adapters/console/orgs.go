package console

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
)

type orgsData struct {
	Orgs []tambala.Organization
}

func (h *Handler) orgs(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v := s.View("Organizations", "orgs")
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return
	}
	all, err := op.Organizations(r.Context())
	if err != nil {
		h.fail(w, v, err)
		return
	}
	v.Data = orgsData{Orgs: all}
	h.site.Render(w, http.StatusOK, "orgs", v)
}

// orgData is an organization's page.
type orgData struct {
	Org tambala.Organization
	// Limits are the payout limits in force; LimitsSet says whether the
	// organization has its own.
	Limits    tambala.PayoutLimits
	LimitsSet bool
	Balances  []ledger.Balance
	// BalancesErr says why the balances could not be read.
	BalancesErr string
	Users       []tambala.User
	// FundAssets are the assets a funding may be in.
	FundAssets []string
	Statuses   []tambala.OrgStatus
	V2Accesses []tambala.V2Access
	Ops        bool
}

// orgView is organization id's page, its forms filled from it.
func (h *Handler) orgView(w http.ResponseWriter, r *http.Request, s webui.Session) (webui.View, bool) {
	v := s.View("Organization", "orgs")
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return v, false
	}
	o, err := op.Organization(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	v.Title = o.Name
	d := orgData{Org: o, Limits: tambala.DefaultPayoutLimits(), Ops: may(s, accounts.StaffOperations),
		Statuses:   []tambala.OrgStatus{tambala.OrgActive, tambala.OrgSuspended},
		V2Accesses: []tambala.V2Access{tambala.V2OnboardingIncomplete, tambala.V2Enabled, tambala.V2AccessSuspended}}
	if o.PayoutLimits != nil {
		d.LimitsSet = true
		l := *o.PayoutLimits
		if l.MaxPerPayoutMWK.IsSet() && !l.MaxPerPayoutMWK.IsZero() {
			d.Limits.MaxPerPayoutMWK = l.MaxPerPayoutMWK
		}
		if l.DailyVolumeMWK.IsSet() && !l.DailyVolumeMWK.IsZero() {
			d.Limits.DailyVolumeMWK = l.DailyVolumeMWK
		}
		if l.HourlyCount != 0 {
			d.Limits.HourlyCount = l.HourlyCount
		}
		v.Form["limits.max_per_payout"] = amountText(l.MaxPerPayoutMWK)
		v.Form["limits.daily_volume"] = amountText(l.DailyVolumeMWK)
		if l.HourlyCount != 0 {
			v.Form["limits.hourly_count"] = strconv.Itoa(l.HourlyCount)
		}
	}
	if o.BalanceFloorMWK.IsSet() {
		v.Form["floor.amount"] = o.BalanceFloorMWK.String()
	}
	v.Form["status.status"] = string(o.Status)
	v.Form["v2.access"] = string(o.V2Access)
	d.FundAssets = []string{string(money.MWK.Code)}
	for _, a := range o.Assets {
		if !slices.Contains(d.FundAssets, string(a.Asset)) {
			d.FundAssets = append(d.FundAssets, string(a.Asset))
		}
	}
	d.Balances, d.BalancesErr = h.balances(r, op, o.ID)
	if acc, err := h.portal.People(r.Context(), s.Token); err == nil {
		d.Users, _ = acc.Users(r.Context(), o.ID)
	}
	v.Data = d
	return v, true
}

// balances reads an organization's balances through the staff face
// (Operator.OrgBalances, which the admin API's balances route calls
// too): MWK and every asset it has enabled,
// whatever its status or the pause switches.
func (h *Handler) balances(r *http.Request, op *tambala.Operator, org string) ([]ledger.Balance, string) {
	all, err := op.OrgBalances(r.Context(), org)
	if err != nil {
		return nil, h.site.Friendly(err)
	}
	return all, ""
}

// pendingNotice tells that approval id waits for a second staff member.
func (h *Handler) pendingNotice(r *http.Request, s webui.Session, id string) string {
	// Only an approval the engine knows is named: the id in the address
	// is not echoed.
	op, err := h.portal.Operator(r.Context(), s.Token)
	if err != nil {
		return ""
	}
	a, err := op.Approvals().Get(r.Context(), id)
	if err != nil {
		return ""
	}
	if a.Kind == approvals.ThresholdChange {
		return "The change of the " + string(a.Amount.Asset().Code) + " threshold (" + a.Details["from"] + " -> " + a.Details["threshold"] +
			") waits for a second staff member's approval (approval " + a.ID + "); the threshold in force is unchanged."
	}
	return "The " + strings.ReplaceAll(string(a.Kind), "_", " ") + " of " + a.Amount.String() + " " + string(a.Amount.Asset().Code) +
		" waits for a second staff member's approval (approval " + a.ID + ")."
}

// parseAmount reads an optional amount of asset from field name of the
// form; "" leaves the zero Amount.
func parseAmount(asset money.Asset, name string, r *http.Request, form, problems map[string]string) money.Amount {
	s := strings.TrimSpace(r.PostFormValue(name))
	form[name] = s
	if s == "" {
		return money.Amount{}
	}
	a, err := money.Parse(asset, s)
	if err != nil {
		problems[name] = errcode.Message(err)
	}
	return a
}

// orgChange makes one of the organization page's changes: status, v2,
// limits, floor or fund.
func (h *Handler) orgChange(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.orgView(w, r, s)
	if !ok {
		return
	}
	id := v.Data.(orgData).Org.ID
	name := r.PathValue("form")
	form, problems := map[string]string{}, map[string]string{}
	var change func(*tambala.Operator) error
	switch name {
	case "status":
		st := tambala.OrgStatus(r.PostFormValue("status"))
		form["status"] = string(st)
		change = func(op *tambala.Operator) error {
			return discard(op.SetOrganizationStatus(r.Context(), id, st))
		}
	case "v2":
		a := tambala.V2Access(r.PostFormValue("access"))
		form["access"] = string(a)
		change = func(op *tambala.Operator) error {
			return discard(op.SetV2Access(r.Context(), id, a))
		}
	case "limits":
		var l tambala.PayoutLimits
		l.MaxPerPayoutMWK = parseAmount(money.MWK, "max_per_payout", r, form, problems)
		l.DailyVolumeMWK = parseAmount(money.MWK, "daily_volume", r, form, problems)
		if c := strings.TrimSpace(r.PostFormValue("hourly_count")); c != "" {
			form["hourly_count"] = c
			n, err := strconv.Atoi(c)
			if err != nil || n < 0 {
				problems["hourly_count"] = "Enter a whole number of payouts, 0 or more."
			}
			l.HourlyCount = n
		}
		change = func(op *tambala.Operator) error {
			return discard(op.SetPayoutLimits(r.Context(), id, l))
		}
	case "floor":
		f := parseAmount(money.MWK, "amount", r, form, problems)
		change = func(op *tambala.Operator) error {
			return discard(op.SetBalanceFloor(r.Context(), id, f))
		}
	case "fund":
		code := r.PostFormValue("asset")
		form["asset"] = code
		ref := strings.TrimSpace(r.PostFormValue("ref"))
		form["ref"] = ref
		if ref == "" {
			problems["ref"] = "Enter the funding's reference: what it is for, as the transfer shows it."
		}
		var amount money.Amount
		asset, err := h.engine.Settings().Asset(money.AssetCode(code))
		if err != nil {
			problems["asset"] = errcode.Message(err)
			form["amount"] = strings.TrimSpace(r.PostFormValue("amount"))
		} else {
			amount = parseAmount(asset, "amount", r, form, problems)
			if form["amount"] == "" {
				problems["amount"] = "Enter the amount to credit."
			}
		}
		var pending *tambala.ApprovalPendingError
		change = func(op *tambala.Operator) error {
			err := op.Fund(r.Context(), id, amount, ref)
			if errors.As(err, &pending) {
				http.Redirect(w, r, "/console/orgs/"+url.PathEscape(id)+"?pending="+url.QueryEscape(pending.Approval.ID), http.StatusSeeOther)
				return errHandled
			}
			return err
		}
	default:
		h.site.NotFound(w, r)
		return
	}
	if len(problems) > 0 {
		h.again(w, v, "org", name, form, problems, nil)
		return
	}
	op, err := h.portal.Operator(r.Context(), s.Token)
	if err == nil {
		err = change(op)
	}
	switch {
	case errors.Is(err, errHandled):
	case err == nil:
		http.Redirect(w, r, "/console/orgs/"+url.PathEscape(id)+"?done="+name, http.StatusSeeOther)
	default:
		h.again(w, v, "org", name, form, problems, err)
	}
}

// errHandled says a change answered the request itself.
var errHandled = errors.New("console: answered")

// orgUserChange ends an organization's user's sessions, disables or
// enables them, or resets their TOTP (the operations role; the engine
// checks it).
func (h *Handler) orgUserChange(w http.ResponseWriter, r *http.Request, s webui.Session) {
	org, id, change := r.PathValue("id"), r.PathValue("user"), r.PathValue("change")
	acc, err := h.portal.People(r.Context(), s.Token)
	if err == nil {
		var u tambala.User
		if u, err = acc.User(r.Context(), id); err == nil && u.Org != org {
			h.site.NotFound(w, r)
			return
		}
	}
	if err == nil {
		var known bool
		switch known, err = userChange(r.Context(), acc, id, change); {
		case known:
		case change == "reset-totp":
			err = discard(acc.ResetTOTP(r.Context(), id))
		default:
			h.site.NotFound(w, r)
			return
		}
	}
	if err != nil {
		v := s.View("Organization", "orgs")
		v.Error, v.Data = h.site.Friendly(err), "/console/orgs/"+url.PathEscape(org)
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	http.Redirect(w, r, "/console/orgs/"+url.PathEscape(org)+"?done="+change, http.StatusSeeOther)
}
