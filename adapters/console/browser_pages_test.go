package console_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/internal/browsertest"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

// TestBrowserEveryPage opens every page of the console in Chromium at
// 1280 px, with data in every list: a staff user with every role sees
// every signed-in page, and the pages before a session (sign-in, second
// factor, enrolment, an invitation) are opened on their way. Each page
// is screenshot, scrolls not sideways, and labels every form control.
// The desk names each order by its organization, client reference,
// beneficiary (or funding deadline) and amounts, with a group of the
// from-bank orders awaiting funds; Sign out stays on the header's line.
func TestBrowserEveryPage(t *testing.T) {
	ctx := privateTab(t)
	dir := browsertest.ShotDir(t)
	browsertest.Viewport(t, ctx)
	v := newEnv(t)
	all := []accounts.StaffRole{accounts.StaffAdmin, accounts.StaffDesk, accounts.StaffOperations, accounts.StaffSupport}
	secret := v.staff(t, "clerk.with.every.role@operator.example", all...)
	v.staff(t, "second@operator.example", accounts.StaffOperations)
	if err := v.engine.Operator().Approvals().SetThreshold(v.ctx, "USDT", money.FromInt(money.USDT, 100)); err != nil {
		t.Fatal(err)
	}
	_ = v.engine.Operator().Fund(v.ctx, v.org.ID, money.FromInt(money.USDT, 500), "big") // pending its approval
	to := v.toBank(t, "Chikondi Banda")
	v.toBank(t, "Grace Phiri")
	from := v.fromBank(t)
	waiting := v.fromBank(t)
	if _, err := v.engine.Operator().Desk().MoveOrder(v.ctx, waiting.ID, orders.Instructions{BankName: "Standard Bank", AccountName: "Desk Ltd", AccountNumber: "9100"}); err != nil {
		t.Fatal(err)
	}
	proof := v.fromBank(t)
	if _, err := v.engine.Operator().Desk().MoveOrder(v.ctx, proof.ID, orders.Instructions{BankName: "Standard Bank", AccountName: "Desk Ltd", AccountNumber: "9100"}); err != nil {
		t.Fatal(err)
	}
	v.upload(t, proof.ID)
	inv, err := v.engine.People().InviteUser(v.ctx, tambala.InviteUser{Email: "invited@operator.example", StaffRoles: []accounts.StaffRole{accounts.StaffDesk}})
	if err != nil {
		t.Fatal(err)
	}
	srv := v.server(t)

	check := func(path, wait string) {
		t.Helper()
		do1(t, ctx, path, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS(wait)))
		browsertest.CheckPage(t, ctx, dir, path)
	}
	check("/console/invitations/accept?token="+url.QueryEscape(inv.Token), "#password")
	check("/console/sign-in", "#email")
	do1(t, ctx, "sign in", chromedp.SendKeys(chromedp.ID("email"), "clerk.with.every.role@operator.example"),
		chromedp.SendKeys(chromedp.ID("password"), password), chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("code")))
	browsertest.CheckPage(t, ctx, dir, "console/second-factor")
	do1(t, ctx, "second factor", chromedp.SendKeys(chromedp.ID("code"), v.code(t, secret)),
		chromedp.Click(chromedp.ID("verify")), chromedp.WaitVisible(chromedp.ID("chart-desk-ages")))
	browsertest.CheckCharts(t, ctx, "console/home", "chart-desk-ages", "chart-inflight-ages", "chart-rails-today")
	for _, p := range []struct{ path, wait string }{
		{"/console/home", "#chart-desk-ages"}, {"/console/desk", "#queue-awaiting_funds"}, {"/console/orders/" + to.ID, "#order-summary"},
		{"/console/orders/" + from.ID, "#order-summary"}, {"/console/orders/" + proof.ID, "#order-summary"},
		{"/console/corridors", "#corridors"}, {"/console/orgs", "#orgs"}, {"/console/orgs/" + v.org.ID, "#org-summary"},
		{"/console/approvals", "#pending"}, {"/console/operations", "#inflight"}, {"/console/audit", "#audit"},
		{"/console/staff", "#staff"}, {"/console/desk?queue=accepted", "#queue-accepted"},
	} {
		check(p.path, p.wait)
	}

	// The desk as a clerk reads it.
	do1(t, ctx, "desk", chromedp.Navigate(srv.URL+"/console/desk"), chromedp.WaitVisible(chromedp.ID("queue-awaiting_funds")))
	row := text(t, ctx, "#queue-accepted tbody tr:last-child")
	for _, want := range []string{"Acme Ltd", to.ClientRef, "Chikondi Banda", "10.000000 USDT", to.To.String() + " MWK"} {
		if !strings.Contains(row, want) {
			t.Errorf("the accepted row %q lacks %q", row, want)
		}
	}
	funds := text(t, ctx, "#queue-awaiting_funds tbody")
	got, err := v.engine.Operator().Desk().Order(v.ctx, waiting.ID)
	if err != nil {
		t.Fatal(err)
	}
	deadline, ok := got.ExpiresAt()
	if !ok || !strings.Contains(funds, waiting.ClientRef) || !strings.Contains(funds, deadline.UTC().Format("2006-01-02 15:04 UTC")) ||
		!strings.Contains(funds, "18000.00 MWK") {
		t.Errorf("the awaiting-funds group %q lacks the order %s or its deadline", funds, waiting.ClientRef)
	}
	// Sign out is on the line of the header's first link.
	top, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[document.getElementById("sign-out").getBoundingClientRect().top,
		document.querySelector("header .brand").getBoundingClientRect().top,
		document.getElementById("sign-out").getBoundingClientRect().bottom]`))
	if err != nil {
		t.Fatal(err)
	}
	if top[0] > top[1]+top[2]-top[0] {
		t.Errorf("Sign out wraps below the header's first line: its top %v, the brand's %v", top[0], top[1])
	}

	// Enrolment: a new staff member's first sign-in.
	enrol := privateTab(t)
	browsertest.Viewport(t, enrol)
	do1(t, enrol, "accept", chromedp.Navigate(srv.URL+"/console/invitations/accept?token="+url.QueryEscape(inv.Token)),
		chromedp.WaitVisible(chromedp.ID("password")), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.SendKeys(chromedp.ID("confirm"), password), chromedp.Click(chromedp.ID("set-password")), chromedp.WaitVisible(chromedp.ID("email")))
	do1(t, enrol, "first sign-in", chromedp.SendKeys(chromedp.ID("email"), "invited@operator.example"),
		chromedp.SendKeys(chromedp.ID("password"), password), chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("code")))
	browsertest.CheckPage(t, enrol, dir, "console/enrol")
	do1(t, enrol, "the used link", chromedp.Navigate(srv.URL+"/console/invitations/accept?token="+url.QueryEscape(inv.Token)),
		chromedp.WaitVisible(chromedp.ID("page-error")))
	browsertest.CheckPage(t, enrol, dir, "console/invitations/accept-used")
}
