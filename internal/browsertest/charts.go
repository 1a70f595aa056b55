package browsertest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
)

// CheckCharts checks, on the page loaded in ctx, that each chart id is a
// figure holding an svg with role img, a non-empty accessible name (its
// aria-label), a title, and a text table of its values; name says which
// page, for the messages.
func CheckCharts(t testing.TB, ctx context.Context, name string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		q, _ := json.Marshal("#" + id)
		js := `(() => { const f = document.querySelector(` + string(q) + `); if (!f) return "missing";
  const s = f.querySelector('svg[role="img"]'); if (!s) return "no svg[role=img]";
  const l = (s.getAttribute("aria-label") || "").trim(); if (!l) return "no aria-label";
  const ti = s.querySelector("title"); if (!ti || !ti.textContent.trim()) return "no title";
  if (!f.querySelector("table tbody tr")) return "no text table";
  const r = s.getBoundingClientRect(); if (r.width < 100 || r.height < 30) return "drawn " + r.width + "x" + r.height;
  return "ok:" + l; })()`
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: chart %s: %v", name, id, err)
		}
		if len(got) < 3 || got[:3] != "ok:" {
			t.Errorf("%s: chart %s: %s", name, id, got)
		}
	}
}
