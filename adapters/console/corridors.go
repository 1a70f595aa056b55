package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

// corridorRow is a corridor with who set it last.
type corridorRow struct {
	Corridor quotes.Corridor
	Code     string
	Last     *tambala.AuditEntry
}

// limitRow is the limits of one /v2 operation in one asset.
type limitRow struct {
	Key, Asset, Op string
	Limits         quotes.Limits
}

type corridorsData struct {
	Rows   []corridorRow
	Limits []limitRow
	Desk   bool
}

// limitOps are the operations with asset limits.
var limitOps = []string{tambala.OpConvert, tambala.OpPayout}

// lastSet finds the newest corridor.set entry of each asset in codes.
func (h *Handler) lastSet(r *http.Request, s webui.Session, codes []string) map[string]*tambala.AuditEntry {
	out := map[string]*tambala.AuditEntry{}
	acc, err := h.portal.People(r.Context(), s.Token)
	if err != nil {
		return out
	}
	pg := tambala.PageRequest{Limit: tambala.MaxPageSize}
	for range historyPages {
		page, err := acc.AuditTrail(r.Context(), pg, tambala.AuditFilter{})
		if err != nil {
			return out
		}
		for i, e := range page.Items {
			if e.Action == tambala.AuditCorridorSet && out[e.Target] == nil {
				out[e.Target] = &page.Items[i]
			}
		}
		if len(out) >= len(codes) || !page.HasMore {
			break
		}
		pg.BeforeID = page.NextBeforeID
	}
	return out
}

// corridorsView is the corridors page, its forms filled from the corridors.
func (h *Handler) corridorsView(w http.ResponseWriter, r *http.Request, s webui.Session) (webui.View, bool) {
	v := s.View("Corridors", "corridors")
	v.Errors, v.Form = map[string]string{}, map[string]string{}
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return v, false
	}
	all, err := op.Desk().Corridors(r.Context())
	if err != nil {
		h.fail(w, v, err)
		return v, false
	}
	d := corridorsData{Desk: may(s, accounts.StaffDesk)}
	codes := make([]string, len(all))
	for i, c := range all {
		codes[i] = string(c.Asset.Code)
	}
	last := h.lastSet(r, s, codes)
	for _, c := range all {
		code := string(c.Asset.Code)
		d.Rows = append(d.Rows, corridorRow{Corridor: c, Code: code, Last: last[code]})
		v.Form[code+".rate_off_ramp"] = rateText(c.RateOffRamp)
		v.Form[code+".rate_on_ramp"] = rateText(c.RateOnRamp)
		v.Form[code+".min"] = amountText(c.Min)
		v.Form[code+".max"] = amountText(c.Max)
		if c.Open {
			v.Form[code+".open"] = "yes"
		}
	}
	for _, code := range h.engine.Settings().Assets().Codes() {
		for _, opName := range limitOps {
			l, err := op.Desk().AssetLimits(r.Context(), code, opName)
			if err != nil {
				h.fail(w, v, err)
				return v, false
			}
			key := string(code) + "-" + opName
			d.Limits = append(d.Limits, limitRow{Key: key, Asset: string(code), Op: opName, Limits: l})
			v.Form[key+".min"], v.Form[key+".max"] = amountText(l.Min), amountText(l.Max)
		}
	}
	v.Data = d
	return v, true
}

func rateText(r money.Rate) string {
	if r.IsZero() {
		return ""
	}
	return r.String()
}

func amountText(a money.Amount) string {
	if !a.IsSet() || a.IsZero() {
		return ""
	}
	return a.String()
}

func (h *Handler) corridors(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.corridorsView(w, r, s)
	if !ok {
		return
	}
	if a := r.URL.Query().Get("saved"); a != "" {
		v.Notice = "The " + a + " corridor is saved."
	}
	if k := r.URL.Query().Get("limits"); k != "" {
		v.Notice = "The " + k + " limits are saved."
	}
	h.site.Render(w, http.StatusOK, "corridors", v)
}

// parseCorridor reads the form of the corridor of asset; problems by
// field.
func parseCorridor(asset money.Asset, r *http.Request) (quotes.Corridor, map[string]string, map[string]string) {
	c := quotes.Corridor{Asset: asset, Open: r.PostFormValue("open") == "yes"}
	form, problems := map[string]string{}, map[string]string{}
	if c.Open {
		form["open"] = "yes"
	}
	for _, f := range []struct {
		name string
		to   *money.Rate
	}{{"rate_off_ramp", &c.RateOffRamp}, {"rate_on_ramp", &c.RateOnRamp}} {
		s := strings.TrimSpace(r.PostFormValue(f.name))
		form[f.name] = s
		if s == "" {
			continue // closes the direction
		}
		rate, err := money.ParseRate(s)
		if err != nil {
			problems[f.name] = errcode.Message(err)
			continue
		}
		*f.to = rate
	}
	for _, f := range []struct {
		name     string
		to       *money.Amount
		required bool
	}{{"min", &c.Min, true}, {"max", &c.Max, false}} {
		s := strings.TrimSpace(r.PostFormValue(f.name))
		form[f.name] = s
		if s == "" {
			if f.required {
				problems[f.name] = "Enter the smallest order, in " + string(asset.Code) + "."
			}
			continue
		}
		a, err := money.Parse(asset, s)
		if err != nil {
			problems[f.name] = errcode.Message(err)
			continue
		}
		*f.to = a
	}
	return c, form, problems
}

func (h *Handler) setCorridor(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.corridorsView(w, r, s)
	if !ok {
		return
	}
	code := r.PathValue("asset")
	var asset money.Asset
	found := false
	for _, row := range v.Data.(corridorsData).Rows {
		if row.Code == code {
			asset, found = row.Corridor.Asset, true
		}
	}
	if !found {
		h.site.NotFound(w, r)
		return
	}
	c, form, problems := parseCorridor(asset, r)
	for f, val := range form {
		v.Form[code+"."+f] = val
	}
	if form["open"] == "" {
		delete(v.Form, code+".open")
	}
	h.saveCorridors(w, r, s, v, code, problems, "/console/corridors?saved="+url.QueryEscape(code), func(op *tambala.Operator) error {
		return discard(op.Desk().SetCorridor(r.Context(), c))
	})
}

// saveCorridors runs save with the staff member's Operator when the form
// named key has no problems, then redirects to next; otherwise it shows
// the corridors page again with the problems, and the engine's error,
// beside that form (h.again).
func (h *Handler) saveCorridors(w http.ResponseWriter, r *http.Request, s webui.Session, v webui.View, key string,
	problems map[string]string, next string, save func(*tambala.Operator) error) {
	if len(problems) > 0 {
		h.again(w, v, "corridors", key, nil, problems, nil)
		return
	}
	op, err := h.portal.Operator(r.Context(), s.Token)
	if err == nil {
		err = save(op)
	}
	if err != nil {
		h.again(w, v, "corridors", key, nil, problems, err)
		return
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (h *Handler) setLimits(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v, ok := h.corridorsView(w, r, s)
	if !ok {
		return
	}
	code, opName := r.PathValue("asset"), r.PathValue("op")
	asset, found := h.engine.Settings().Assets().Lookup(money.AssetCode(code))
	if !found || (opName != tambala.OpConvert && opName != tambala.OpPayout) {
		h.site.NotFound(w, r)
		return
	}
	key := code + "-" + opName
	var l quotes.Limits
	problems := map[string]string{}
	for _, f := range []struct {
		name string
		to   *money.Amount
	}{{"min", &l.Min}, {"max", &l.Max}} {
		text := strings.TrimSpace(r.PostFormValue(f.name))
		v.Form[key+"."+f.name] = text
		if text == "" {
			continue // no bound
		}
		a, err := money.Parse(asset, text)
		if err != nil {
			problems[f.name] = errcode.Message(err)
			continue
		}
		*f.to = a
	}
	h.saveCorridors(w, r, s, v, key, problems, "/console/corridors?limits="+url.QueryEscape(key), func(op *tambala.Operator) error {
		return op.Desk().SetAssetLimits(r.Context(), asset.Code, opName, l)
	})
}
