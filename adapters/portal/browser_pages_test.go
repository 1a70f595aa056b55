package portal_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/portal"
	"github.com/tambalapay/tambala/internal/browsertest"
	"github.com/tambalapay/tambala/money"
)

// TestBrowserEveryPage opens every page of the portal in Chromium at
// 1280 px, as the organization admin (the portal's one role), with data
// in every list: payouts, orders, conversions and collections of both
// APIs, a key, a webhook endpoint and its delivery; the pages before a
// session (invitation, sign-in, second factor, enrolment) and after a
// form (a key created, a webhook secret, TOTP set up, recovery codes)
// are opened on their way. Each page is screenshot, scrolls not
// sideways, and labels every form control.
func TestBrowserEveryPage(t *testing.T) {
	ctx := browser.PrivateTab(t)
	dir := browsertest.ShotDir(t)
	browsertest.Viewport(t, ctx)
	a := newActivity(t, "ada.admin.with.a.long.address@acme-payments.example")
	bo, err := a.engine.People().InviteUser(a.ctx, tambala.InviteUser{Org: a.org.ID, Email: "bo@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(portal.New(a.engine, &portal.Options{InsecureCookies: true}))
	t.Cleanup(srv.Close)
	check := func(path string) {
		t.Helper()
		do1(t, ctx, path, chromedp.Navigate(srv.URL+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
		browsertest.CheckPage(t, ctx, dir, path)
	}
	here := func(name string) {
		t.Helper()
		browsertest.CheckPage(t, ctx, dir, name)
	}

	check("/portal/invitations/accept?token=" + url.QueryEscape(bo.Token))
	check("/portal/sign-in")
	do1(t, ctx, "sign in", chromedp.SendKeys(chromedp.ID("email"), a.email), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("balance-v1")))

	// Forms whose answer is a page of its own.
	do1(t, ctx, "create a key", chromedp.Navigate(srv.URL+"/portal/keys"), chromedp.WaitVisible(chromedp.ID("create-key")),
		chromedp.Click(chromedp.ID("create-key")), chromedp.WaitVisible(chromedp.ID("full-key")))
	here("/portal/keys-created")
	do1(t, ctx, "set the webhook", chromedp.Navigate(srv.URL+"/portal/webhook"), chromedp.WaitVisible(chromedp.ID("url")),
		chromedp.SendKeys(chromedp.ID("url"), "https://hooks.acme-payments.example/tambala/events"),
		chromedp.Click(chromedp.ID("save-webhook")), chromedp.WaitVisible(chromedp.CSS(".secret")))
	here("/portal/webhook-set")
	if _, err := a.engine.Operator().RecordCollection(a.ctx, a.org.ID, tambala.NewCollection{Amount: money.FromInt(money.MWK, 3000),
		SourceCustomerName: "Grace Phiri", SourceAccountNumber: "0999123457", RTPReferenceNumber: "RTP-2"}); err != nil {
		t.Fatal(err) // an event, and so a delivery, to the endpoint
	}
	do1(t, ctx, "begin TOTP", chromedp.Navigate(srv.URL+"/portal/account"), chromedp.WaitVisible(chromedp.ID("begin-totp")),
		chromedp.Click(chromedp.ID("begin-totp")), chromedp.WaitVisible(chromedp.ID("totp-secret")))
	here("/portal/account-totp")
	secret := text(t, ctx, "#totp-secret")
	code, err := accounts.TOTPCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	do1(t, ctx, "confirm TOTP", chromedp.SendKeys(chromedp.ID("code"), code), chromedp.Click(chromedp.ID("confirm-totp")),
		chromedp.WaitVisible(chromedp.ID("recovery-codes")))
	here("/portal/recovery")

	do1(t, ctx, "keys", chromedp.Navigate(srv.URL+"/portal/keys"), chromedp.WaitVisible(chromedp.ID("keys")))
	revoke, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#keys a[href$="/revoke"]').getAttribute("href")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		"/portal/", "/portal/keys", revoke, "/portal/allowlist", "/portal/audit", "/portal/webhook", "/portal/deliveries",
		"/portal/floor", "/portal/account",
		"/portal/payouts", "/portal/payouts/" + a.payout.ID, "/portal/v2/payouts", "/portal/v2/payouts/" + a.payoutV2.ID,
		"/portal/orders", "/portal/orders/" + a.toBank.ID, "/portal/orders/" + a.fromBank.ID,
		"/portal/conversions", "/portal/conversions/" + a.conv.ID,
		"/portal/collections", "/portal/collections/" + a.col.ID, "/portal/v2/collections", "/portal/v2/collections/" + a.colV2.ID,
	} {
		check(path)
	}
	// Sign out is on the line of the brand.
	tops, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[document.getElementById("sign-out").getBoundingClientRect().top,
		document.querySelector("header .brand").getBoundingClientRect().bottom]`))
	if err != nil {
		t.Fatal(err)
	}
	if tops[0] >= tops[1] {
		t.Errorf("Sign out wraps below the brand's line: its top %v, the brand's bottom %v", tops[0], tops[1])
	}
	if s := text(t, ctx, "main"); !strings.Contains(s, "USDT") {
		t.Errorf("the last page shows no collection: %q", s)
	}

	// The second factor: sign out and in again.
	do1(t, ctx, "sign out", chromedp.Click(chromedp.ID("sign-out")), chromedp.WaitVisible(chromedp.ID("email")))
	do1(t, ctx, "sign in again", chromedp.SendKeys(chromedp.ID("email"), a.email), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("verify")))
	here("/portal/second-factor")

	// Enrolment: a new user of an organization that requires TOTP.
	if err := a.engine.People().SetTOTPRequired(a.ctx, a.org.ID, true); err != nil {
		t.Fatal(err)
	}
	other := browser.PrivateTab(t)
	browsertest.Viewport(t, other)
	do1(t, other, "accept", chromedp.Navigate(srv.URL+"/portal/invitations/accept?token="+url.QueryEscape(bo.Token)),
		chromedp.WaitVisible(chromedp.ID("password")), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.SendKeys(chromedp.ID("confirm"), password), chromedp.Click(chromedp.ID("set-password")), chromedp.WaitVisible(chromedp.ID("email")))
	do1(t, other, "first sign-in", chromedp.SendKeys(chromedp.ID("email"), "bo@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), password), chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("totp-secret")))
	browsertest.CheckPage(t, other, dir, "/portal/enrol")
	do1(t, other, "the used link", chromedp.Navigate(srv.URL+"/portal/invitations/accept?token="+url.QueryEscape(bo.Token)),
		chromedp.WaitVisible(chromedp.ID("page-error")))
	if s := text(t, other, "#page-error"); !strings.Contains(s, "already accepted") {
		t.Errorf("the used link says %q", s)
	}
	browsertest.CheckPage(t, other, dir, "/portal/invitations/accept-used")
}
