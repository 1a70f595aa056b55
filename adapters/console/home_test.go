package console_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala/accounts"
)

// TestHome: the console's first page draws the desk queue by age, the
// payouts in flight by age and today's payouts per rail, each an
// svg[role=img] with its name and a table of its values, and says whether
// any delivery is dead-lettered; /console/ leads to it.
func TestHome(t *testing.T) {
	v := newEnv(t)
	v.toBank(t, "Chikondi Banda")
	v.clock.Add(2 * time.Hour)
	v.fromBank(t)
	secret := v.staff(t, "support@operator.example", accounts.StaffSupport)
	token := v.signIn(t, "support@operator.example", secret)
	h := v.handler()
	if w := do(h, "GET", "/console/", token, nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/home" {
		t.Fatalf("/console/: %d %q", w.Code, w.Header().Get("Location"))
	}
	w := do(h, "GET", "/console/home", token, nil)
	if w.Code != http.StatusOK {
		t.Fatalf("home: %d", w.Code)
	}
	body := w.Body.String()
	for _, want := range []string{
		`id="chart-desk-ages"`, `role="img" aria-label="Desk queue by age"`,
		`id="chart-inflight-ages"`, `role="img" aria-label="Payouts in flight by age"`,
		`id="chart-rails-today"`, `role="img" aria-label="Payouts accepted today (2026-11-21 UTC) per rail"`,
		// one order under an hour old, one two hours old
		`<tbody><tr><th scope="row">&lt; 1 h</th><td>1</td></tr><tr><th scope="row">1–24 h</th><td>1</td></tr>`,
		`id="dead-letters">No webhook delivery is dead-lettered.`,
		`<a href="/console/home" aria-current="page">Home</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("home lacks %s", want)
		}
	}
	if strings.Contains(body, "style=") || strings.Contains(body, "<script") {
		t.Errorf("home has inline style or script, which the CSP blocks")
	}
}
