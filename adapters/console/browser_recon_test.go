package console_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// TestBrowserReconciliation: an operations user imports a momo
// settlement file, sees its lines matched to the two payouts in flight
// and a stranger line in the file only, resolves both payouts in bulk
// after confirming, and marks the stranger line explained; the payouts
// read succeeded and the import, the bulk and the explanation are
// audited under the user.
func TestBrowserReconciliation(t *testing.T) {
	ctx := privateTab(t)
	v := newManualEnv(t, &receiver{})
	secret := v.staff(t, "ops@operator.example", accounts.StaffOperations)
	var ids []string
	for i, amount := range []int64{5000, 700} {
		cr, err := v.engine.Client(v.p).V1().CreatePayout(v.ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, amount),
			Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Chikondi Banda"}},
			tambala.Idempotency{Key: "payout-" + string(rune('a'+i))})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, cr.Resource.ID)
	}
	if _, err := v.engine.Work().ProcessPayouts(v.ctx); err != nil { // submitted to the manual rail: pending
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "airtel-2026-11-21.csv")
	csv := "reference,amount,currency,status,time,file_number\n" +
		ids[0] + ",5000.00,MWK,settled,2026-11-21T12:00:00Z,12\n" +
		ids[1] + ",700,MWK,settled,2026-11-21T12:05:00Z,12\n" +
		"AIRTEL-REFUND-9,40,MWK,settled,2026-11-21T12:10:00Z,12\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := v.server(t)
	v.signInPages(t, ctx, srv.URL, "ops@operator.example", secret)
	do1(t, ctx, "the reconciliation page", chromedp.Click(chromedp.CSS(`nav a[href="/console/reconciliation"]`)),
		chromedp.WaitVisible(chromedp.ID("form-import")))
	do1(t, ctx, "import", chromedp.SetValue(chromedp.ID("import-rail"), "momo"),
		chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{file}), chromedp.Click(chromedp.ID("do-import")),
		chromedp.WaitVisible(chromedp.ID("group-matched")))
	if s := text(t, ctx, "p.notice"); !strings.Contains(s, "imported") {
		t.Errorf("after the import: %q", s)
	}
	matched := text(t, ctx, "#group-matched tbody")
	if !strings.Contains(matched, ids[0]) || !strings.Contains(matched, ids[1]) {
		t.Errorf("the matched group: %q", matched)
	}
	if s := text(t, ctx, "#group-file_only tbody"); !strings.Contains(s, "AIRTEL-REFUND-9") {
		t.Errorf("the file-only group: %q", s)
	}
	do1(t, ctx, "pick both", chromedp.Click(byID("pick-"+ids[0])), chromedp.Click(byID("pick-"+ids[1])),
		chromedp.SendKeys(chromedp.ID("resolve-reason"), "Airtel statement 12"), chromedp.Click(chromedp.ID("do-resolve")),
		chromedp.WaitVisible(chromedp.ID("form-confirm")))
	for _, id := range ids {
		p, err := v.engine.Client(v.p).V1().Payout(v.ctx, id)
		if err != nil || p.Status != payouts.Pending {
			t.Fatalf("resolved before the confirmation: %+v %v", p, err)
		}
	}
	do1(t, ctx, "confirm", chromedp.Click(chromedp.ID("do-confirm")), chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if s := text(t, ctx, "p.notice"); !strings.Contains(s, "2 payouts resolved; 0 waiting") {
		t.Errorf("after the bulk resolution: %q", s)
	}
	for _, id := range ids {
		p, err := v.engine.Client(v.p).V1().Payout(v.ctx, id)
		if err != nil || p.Status != payouts.Succeeded {
			t.Fatalf("the payout after the bulk: %+v %v", p, err)
		}
	}
	do1(t, ctx, "explain", chromedp.SendKeys(chromedp.ID("explain-4-reason"), "A refund Airtel owes us, claimed by email."),
		chromedp.Click(chromedp.ID("do-explain-4")), chromedp.WaitNotPresent(chromedp.ID("form-explain-4")))
	if s := text(t, ctx, "p.notice"); !strings.Contains(s, "marked explained") {
		t.Errorf("after explaining: %q", s)
	}
	if s := text(t, ctx, "#line-4"); !strings.Contains(s, "A refund Airtel owes us") {
		t.Errorf("the explained line: %q", s)
	}
	for _, a := range []tambala.AuditAction{tambala.AuditSettlementImported, tambala.AuditSettlementResolved, tambala.AuditSettlementExplained} {
		page, err := v.engine.People().AuditTrail(v.ctx, tambala.PageRequest{Limit: 5}, tambala.AuditFilter{Action: a})
		if err != nil || len(page.Items) != 1 || page.Items[0].Actor.Email != "ops@operator.example" {
			t.Errorf("the %s entries: %+v %v", a, page.Items, err)
		}
	}
}
