package portal

import (
	"fmt"
	"html/template"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/apikeys"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/chart"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
)

// auditPageSize is how many audit entries a page shows.
const auditPageSize = 25

// overviewData is the overview page's: the /v1 balance, and every enabled
// asset's when the organization has /v2 access.
type overviewData struct {
	V1  ledger.Balance
	V2  bool
	All []ledger.Balance
	// Charts are drawn: per asset the available balance over the last
	// tambala.ChartDays days, then the payouts per day by outcome.
	Charts []template.HTML
}

func (h *Handler) overview(w http.ResponseWriter, r *http.Request, s session) {
	v := s.View("Overview", "overview")
	p, err := h.portal.Principal(r.Context(), s.Token)
	if err != nil {
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	c := h.engine.Client(p)
	var d overviewData
	if d.V1, err = c.V1().Balance(r.Context()); err != nil {
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	// An organization without /v2 access sees its /v1 balance alone.
	if tambala.GateOf(h.engine).Admitted(p, tambala.APIv2) == nil {
		if all, err := c.Balances(r.Context()); err == nil {
			d.V2, d.All = true, all
		} else {
			v.Error = h.site.Friendly(err)
		}
	}
	assets := []money.AssetCode{d.V1.Asset.Code}
	if d.V2 {
		assets = assets[:0]
		for _, b := range d.All {
			assets = append(assets, b.Asset.Code)
		}
	}
	ov, err := c.Overview(r.Context(), assets)
	if err != nil {
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	if d.Charts, err = overviewCharts(assets, ov); err != nil {
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	v.Data = d
	h.site.Render(w, http.StatusOK, "overview", v)
}

// overviewCharts draws the overview's charts: a line per asset, bars per
// outcome. Days are labelled month-day; the tables give the full day.
func overviewCharts(assets []money.AssetCode, ov tambala.OrgOverview) ([]template.HTML, error) {
	var out []template.HTML
	series := func(id, title, unit string, days []tambala.DayValue, draw func(chart.Chart) (template.HTML, error)) error {
		c := chart.Chart{ID: id, Title: title, Unit: unit}
		for _, d := range days {
			c.Points = append(c.Points, chart.Point{Label: d.Day[5:], Value: d.Value})
		}
		svg, err := draw(c)
		out = append(out, svg)
		return err
	}
	n := strconv.Itoa(tambala.ChartDays)
	for _, a := range assets {
		if err := series("chart-balance-"+string(a), string(a)+" available at each day's close, last "+n+" days (UTC)", string(a),
			ov.Balances[a], chart.Line); err != nil {
			return nil, err
		}
	}
	if err := series("chart-payouts-succeeded", "Payouts succeeded per day, last "+n+" days (UTC)", "payouts", ov.Succeeded, chart.Bar); err != nil {
		return nil, err
	}
	if err := series("chart-payouts-failed", "Payouts failed per day, last "+n+" days (UTC)", "payouts", ov.Failed, chart.Bar); err != nil {
		return nil, err
	}
	return out, nil
}

// keysData is the keys page's.
type keysData struct {
	Keys []tambala.APIKey
	Full bool
	Max  int
}

func (h *Handler) keysView(r *http.Request, s session) (view, int) {
	v := s.View("API keys", "keys")
	a, err := h.portal.Admin(r.Context(), s.Token)
	if err != nil {
		v.Error = h.site.Friendly(err)
		return v, webui.StatusOf(err)
	}
	keys, err := a.Keys(r.Context())
	if err != nil {
		v.Error = h.site.Friendly(err)
		return v, webui.StatusOf(err)
	}
	v.Data = keysData{Keys: keys, Full: apikeys.AtCap(apikeys.CountActive(keys), h.maxKeys), Max: h.maxKeys}
	return v, http.StatusOK
}

func (h *Handler) keys(w http.ResponseWriter, r *http.Request, s session) {
	v, status := h.keysView(r, s)
	if v.Data == nil {
		h.site.Render(w, status, "message", v)
		return
	}
	h.site.Render(w, status, "keys", v)
}

func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, s session) {
	a, err := h.portal.Admin(r.Context(), s.Token)
	var full string
	var key tambala.APIKey
	if err == nil {
		full, key, err = a.CreateKey(r.Context())
	}
	if err != nil {
		v, _ := h.keysView(r, s)
		v.Error = h.site.Friendly(err)
		if v.Data == nil {
			h.site.Render(w, webui.StatusOf(err), "message", v)
			return
		}
		h.site.Render(w, webui.StatusOf(err), "keys", v)
		return
	}
	v := s.View("Your new API key", "keys")
	v.Script = true
	v.Data = struct{ Full, Prefix string }{full, key.Prefix}
	h.site.Render(w, http.StatusOK, "key_created", v)
}

// findKey returns the organization's key id (a key id or prefix).
func (h *Handler) findKey(r *http.Request, s session, id string) (tambala.APIKey, error) {
	a, err := h.portal.Admin(r.Context(), s.Token)
	if err != nil {
		return tambala.APIKey{}, err
	}
	keys, err := a.Keys(r.Context())
	if err != nil {
		return tambala.APIKey{}, err
	}
	for _, k := range keys {
		if k.ID == id && k.Active() {
			return k, nil
		}
	}
	return tambala.APIKey{}, errcode.Newf(errcode.NotFound, "No active key of your organization has this id.")
}

func (h *Handler) revokePage(w http.ResponseWriter, r *http.Request, s session) {
	k, err := h.findKey(r, s, r.PathValue("id"))
	if err != nil {
		v := s.View("Revoke a key", "keys")
		v.Error, v.Data = h.site.Friendly(err), "/portal/keys"
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	v := s.View("Revoke a key", "keys")
	v.Data = k
	h.site.Render(w, http.StatusOK, "revoke", v)
}

func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, s session) {
	a, err := h.portal.Admin(r.Context(), s.Token)
	var k tambala.APIKey
	if err == nil {
		k, err = a.RevokeKey(r.Context(), r.PathValue("id"))
	}
	if err != nil {
		v := s.View("Revoke a key", "keys")
		v.Error, v.Data = h.site.Friendly(err), "/portal/keys"
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	v, status := h.keysView(r, s)
	v.Notice = "The key " + k.Prefix + " is revoked."
	if v.Data == nil {
		h.site.Render(w, status, "message", v)
		return
	}
	h.site.Render(w, status, "keys", v)
}

func (h *Handler) allowlistPage(w http.ResponseWriter, r *http.Request, s session) {
	v := s.View("IP allowlist", "allowlist")
	a, err := h.portal.Admin(r.Context(), s.Token)
	var org tambala.Organization
	if err == nil {
		org, err = a.Organization(r.Context())
	}
	if err != nil {
		v.Error = h.site.Friendly(err)
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	lines := make([]string, len(org.Allowlist))
	for i, a := range org.Allowlist {
		lines[i] = a.String()
	}
	v.Form = map[string]string{"addresses": strings.Join(lines, "\n")}
	h.site.Render(w, http.StatusOK, "allowlist", v)
}

// parseAllowlist reads exact addresses, one a line (blank lines skipped):
// no ranges, no zones.
func parseAllowlist(text string) ([]netip.Addr, string) {
	var out []netip.Addr
	var bad []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		a, err := netip.ParseAddr(line)
		if err != nil || a.Zone() != "" {
			if len(bad) < 5 {
				bad = append(bad, fmt.Sprintf("line %d (%q)", i+1, line))
			}
			continue
		}
		out = append(out, a.Unmap())
	}
	if len(bad) > 0 {
		return nil, "Not an exact IPv4 or IPv6 address: " + strings.Join(bad, ", ") + "."
	}
	return out, ""
}

func (h *Handler) saveAllowlist(w http.ResponseWriter, r *http.Request, s session) {
	text := r.PostFormValue("addresses")
	v := s.View("IP allowlist", "allowlist")
	v.Form = map[string]string{"addresses": text}
	addrs, problem := parseAllowlist(text)
	if problem != "" {
		v.Errors = map[string]string{"addresses": problem}
		h.site.Render(w, http.StatusUnprocessableEntity, "allowlist", v)
		return
	}
	a, err := h.portal.Admin(r.Context(), s.Token)
	var org tambala.Organization
	if err == nil {
		org, err = a.SetAllowlist(r.Context(), addrs)
	}
	if err != nil {
		if errcode.Of(err) == errcode.ValidationError {
			v.Errors = map[string]string{"addresses": errcode.Message(err)}
		} else {
			v.Error = h.site.Friendly(err)
		}
		h.site.Render(w, webui.StatusOf(err), "allowlist", v)
		return
	}
	lines := make([]string, len(org.Allowlist))
	for i, a := range org.Allowlist {
		lines[i] = a.String()
	}
	v.Form["addresses"] = strings.Join(lines, "\n")
	if len(lines) == 0 {
		v.Notice = "Saved: your keys work from every address."
	} else {
		v.Notice = fmt.Sprintf("Saved: your keys work from %d addresses only.", len(lines))
	}
	h.site.Render(w, http.StatusOK, "allowlist", v)
}

func (h *Handler) audit(w http.ResponseWriter, r *http.Request, s session) {
	v := s.View("Audit trail", "audit")
	page, err := h.portal.AuditTrail(r.Context(), s.Token,
		tambala.PageRequest{Limit: auditPageSize, BeforeID: r.URL.Query().Get("before")})
	if err != nil {
		v.Error, v.Data = h.site.Friendly(err), "/portal/audit"
		h.site.Render(w, webui.StatusOf(err), "message", v)
		return
	}
	v.Data = page
	h.site.Render(w, http.StatusOK, "audit", v)
}
