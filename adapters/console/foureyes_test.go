package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/money"
)

// TestThresholdRemovalWaits: an operations-only staff member saves the
// MWK threshold empty on the approvals page, then funds 7,000.00 MWK on
// the organization's page: the removal waits as a pending approval (the
// page names it), the threshold stays in force, the funding waits too,
// and the balance does not rise.
func TestThresholdRemovalWaits(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	if err := v.engine.Operator().Approvals().SetThreshold(v.ctx, "MWK", money.FromInt(money.MWK, 1000)); err != nil {
		t.Fatal(err)
	}
	a := v.staff(t, "ann@operator.example", accounts.StaffOperations)
	tok := v.signIn(t, "ann@operator.example", a)
	before := v.available(t, "MWK").String()

	w := do(h, "POST", "/console/thresholds", tok, url.Values{"csrf": {accounts.CSRFToken(tok)}, "asset": {"MWK"}, "amount": {""}})
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/console/approvals?pending=") {
		t.Fatalf("saving the threshold empty: %d %q", w.Code, w.Header().Get("Location"))
	}
	page := do(h, "GET", w.Header().Get("Location"), tok, nil).Body.String()
	if !strings.Contains(page, "The change of the MWK threshold (1000.00 -&gt; none) waits for a second staff member&#39;s approval") {
		t.Errorf("the pending notice: %s", page)
	}
	if !strings.Contains(page, `<tr id="threshold-MWK"><td>MWK</td><td>1000.00</td></tr>`) {
		t.Errorf("the threshold in force is not shown as 1000.00: %s", page)
	}
	if !strings.Contains(page, "<td>every organization</td>\n<td>threshold 1000.00 -&gt; none MWK</td>") {
		t.Errorf("the pending change's row: %s", page)
	}
	w = do(h, "POST", "/console/orgs/"+v.org.ID+"/fund", tok, url.Values{"csrf": {accounts.CSRFToken(tok)},
		"amount": {"7000.00"}, "asset": {"MWK"}, "ref": {"after removal"}})
	if w.Code != http.StatusSeeOther || !strings.Contains(w.Header().Get("Location"), "?pending=") {
		t.Fatalf("funding after the removal: %d %q", w.Code, w.Header().Get("Location"))
	}
	if got := v.available(t, "MWK").String(); got != before {
		t.Errorf("the balance rose from %s to %s with no approval", before, got)
	}
	pend, err := v.engine.Operator().Approvals().List(v.ctx, approvals.Pending, tambala.PageRequest{Limit: 10})
	if err != nil || len(pend.Items) != 2 {
		t.Fatalf("pending: %+v %v", pend, err)
	}
}

// TestStaffConfirm: a staff member whose password the admin token reset
// shows as suspended on the staff page; another staff admin confirms
// them there, and they no longer are.
func TestStaffConfirm(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	adm := v.staff(t, "root@operator.example", accounts.StaffAdmin)
	admTok := v.signIn(t, "root@operator.example", adm)
	v.staff(t, "ann@operator.example", accounts.StaffOperations)
	users, err := v.engine.People().Users(v.ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var ann, root tambala.User
	for _, u := range users {
		switch u.Email {
		case "ann@operator.example":
			ann = u
		case "root@operator.example":
			root = u
		}
	}
	if !ann.ApprovalsSuspended {
		t.Fatal("invited by the token with a staff admin active: not suspended")
	}
	page := do(h, "GET", "/console/staff", admTok, nil).Body.String()
	if !strings.Contains(page, `id="do-confirm-`+ann.ID+`"`) || !strings.Contains(page, "suspended until another staff admin confirms them") {
		t.Fatalf("the staff page: %s", page)
	}
	if strings.Contains(page, `id="do-confirm-`+root.ID+`"`) {
		t.Error("a Confirm button for oneself")
	}
	w := do(h, "POST", "/console/staff/"+ann.ID+"/confirm", admTok, url.Values{"csrf": {accounts.CSRFToken(admTok)}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("confirming: %d %s", w.Code, w.Body.String())
	}
	if u, err := v.engine.People().User(v.ctx, ann.ID); err != nil || u.ApprovalsSuspended {
		t.Errorf("after confirming: %+v %v", u, err)
	}
	// A staff admin's own roles: forbidden, on the page.
	w = do(h, "POST", "/console/staff/"+root.ID+"/roles", admTok, url.Values{"csrf": {accounts.CSRFToken(admTok)}, "role": {"admin", "operations"}})
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "Another staff admin must change your roles.") {
		t.Errorf("granting oneself operations: %d", w.Code)
	}
}

// TestBrowserThresholdRemovalWaits is TestThresholdRemovalWaits in the
// browser, as the issue found it: an operations-only user opens the
// approvals page, saves the MWK threshold empty, then funds 7,000.00 MWK
// on the organization's page; the balance does not rise.
func TestBrowserThresholdRemovalWaits(t *testing.T) {
	tab := privateTab(t)
	v := newEnv(t)
	if err := v.engine.Operator().Approvals().SetThreshold(v.ctx, "MWK", money.FromInt(money.MWK, 1000)); err != nil {
		t.Fatal(err)
	}
	secret := v.staff(t, "ops@operator.example", accounts.StaffOperations)
	srv := v.server(t)
	v.signInPages(t, tab, srv.URL, "ops@operator.example", secret)
	before := v.available(t, "MWK").String()

	do1(t, tab, "the approvals", chromedp.Click(chromedp.CSS(`nav a[href="/console/approvals"]`)), chromedp.WaitVisible(chromedp.ID("form-threshold")))
	do1(t, tab, "save the threshold empty", chromedp.SetValue(chromedp.ID("threshold-asset"), "MWK"), chromedp.Click(chromedp.ID("do-threshold")),
		chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if s := text(t, tab, "p.notice"); !strings.Contains(s, "waits for a second staff member's approval") {
		t.Errorf("the notice after saving the threshold empty: %q", s)
	}
	if s := text(t, tab, "#threshold-MWK"); !strings.Contains(s, "1000.00") {
		t.Errorf("the MWK threshold shown: %q", s)
	}
	do1(t, tab, "the organization", chromedp.Navigate(srv.URL+"/console/orgs/"+v.org.ID), chromedp.WaitVisible(chromedp.ID("form-fund")))
	do1(t, tab, "fund", chromedp.SendKeys(chromedp.ID("fund-amount"), "7000.00"), chromedp.SetValue(chromedp.ID("fund-asset"), "MWK"),
		chromedp.SendKeys(chromedp.ID("fund-ref"), "after removal"), chromedp.Click(chromedp.ID("do-fund")),
		chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if s := text(t, tab, "p.notice"); !strings.Contains(s, "waits for a second staff member's approval") {
		t.Errorf("the notice after funding: %q", s)
	}
	if got := v.available(t, "MWK").String(); got != before {
		t.Errorf("the balance rose from %s to %s with no approval", before, got)
	}
}
