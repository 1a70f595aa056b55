package console

import (
	"html/template"
	"net/http"
	"strconv"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/internal/webui"
	"github.com/tambalapay/tambala/internal/chart"
	"github.com/tambalapay/tambala/payouts"
)

// homeData is the home page's: its charts, drawn, and the count of
// dead-lettered deliveries, the operator's alert, as text (a number is read,
// not looked at).
type homeData struct {
	Charts []template.HTML
	Dead   int64
}

// ageChart is a chart of open items by age.
func ageChart(id, title, unit string, a tambala.AgeBuckets) chart.Chart {
	c := chart.Chart{ID: id, Title: title, Unit: unit}
	for i, n := range a {
		c.Points = append(c.Points, chart.Point{Label: tambala.AgeLabels[i], Value: strconv.Itoa(n)})
	}
	return c
}

// home is the console's first page: pictures of what waits on the operator.
func (h *Handler) home(w http.ResponseWriter, r *http.Request, s webui.Session) {
	v := s.View("Home", "home")
	op, ok := h.operator(w, r, s, v)
	if !ok {
		return
	}
	hm, err := op.BackOffice().Home(r.Context())
	if err != nil {
		h.fail(w, v, err)
		return
	}
	rails := chart.Chart{ID: "chart-rails-today", Title: "Payouts accepted today (" + hm.Today + " UTC) per rail", Unit: "payouts"}
	for _, rail := range []payouts.Rail{payouts.Bank, payouts.Momo, payouts.Wallet} {
		rails.Points = append(rails.Points, chart.Point{Label: string(rail), Value: strconv.FormatInt(hm.RailsToday[rail], 10)})
	}
	d := homeData{Dead: hm.DeadLettered}
	for _, c := range []chart.Chart{
		ageChart("chart-desk-ages", "Desk queue by age", "orders", hm.DeskQueue),
		ageChart("chart-inflight-ages", "Payouts in flight by age", "payouts", hm.InFlight),
		rails,
	} {
		svg, err := chart.Bar(c)
		if err != nil {
			h.fail(w, v, err)
			return
		}
		d.Charts = append(d.Charts, svg)
	}
	v.Data = d
	h.site.Render(w, http.StatusOK, "home", v)
}
