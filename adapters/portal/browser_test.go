package portal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala/internal/browsertest"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/portal"
	"github.com/tambalapay/tambala/money"
)

// browser is the one Chromium of the test binary (TestMain).
var browser *browsertest.Browser

func TestMain(m *testing.M) {
	browser = browsertest.Start()
	code := m.Run()
	browser.Close()
	os.Exit(code)
}

// tab opens a tab of the browser for t (browsertest.Browser.Tab).
func tab(t *testing.T) context.Context { return browser.Tab(t) }

func do1(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	browsertest.Do(t, ctx, what, steps...)
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return browsertest.Text(t, ctx, sel)
}

// ping calls /v1/ping with key through the public API handler.
func ping(t *testing.T, base, key string) int {
	t.Helper()
	r, _ := http.NewRequest("GET", base+"/v1/ping", nil)
	r.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestBrowserAdminJourney walks an invited admin through the portal in
// Chromium: accepting the invitation, signing in, the balances, a key
// created (read once) and revoked, the allowlist shutting out the API,
// the audit trail of it all, and signing out.
func TestBrowserAdminJourney(t *testing.T) {
	ctx := tab(t)
	f := newFixture(t, "")
	e := f.engine
	org, err := e.Operator().CreateOrganization(f.ctx, tambala.NewOrganization{Name: "Journey Ltd", V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{{Asset: "MWK", Operations: []string{tambala.OpPayout}}, {Asset: "USDT", Operations: []string{tambala.OpPayout}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Operator().Fund(f.ctx, org.ID, money.FromInt(money.MWK, 250_000), "opening"); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", httpapi.New(e, nil))
	mux.Handle("/portal/", portal.New(e, &portal.Options{InsecureCookies: true}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	// The operator invites; the invitee opens the link and sets a password.
	inv, err := e.People().InviteUser(f.ctx, tambala.InviteUser{Org: org.ID, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	do1(t, ctx, "accept", chromedp.Navigate(srv.URL+"/portal/invitations/accept?token="+url.QueryEscape(inv.Token)),
		chromedp.WaitVisible(chromedp.ID("password")),
		chromedp.SendKeys(chromedp.ID("password"), password), chromedp.SendKeys(chromedp.ID("confirm"), password),
		chromedp.Click(chromedp.ID("set-password")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	if s := text(t, ctx, ".notice"); !strings.Contains(s, "password is set") {
		t.Errorf("after accepting: %q", s)
	}

	// Sign in: the overview shows the balances.
	do1(t, ctx, "sign in", chromedp.SendKeys(chromedp.ID("email"), "ada@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), password), chromedp.Click(chromedp.ID("sign-in")),
		chromedp.WaitVisible(chromedp.ID("balance-v1")))
	if s := text(t, ctx, "#balance-v1 tbody"); !strings.Contains(s, "250000.00") {
		t.Errorf("/v1 balance: %q", s)
	}
	if s := text(t, ctx, "#balances tbody"); !strings.Contains(s, "MWK") || !strings.Contains(s, "USDT") {
		t.Errorf("balances: %q", s)
	}
	// The pictures (issue #37): each asset's balance over 30 days and the
	// payouts per day by outcome, each named for screen readers.
	browsertest.CheckCharts(t, ctx, "portal overview", "chart-balance-MWK", "chart-balance-USDT",
		"chart-payouts-succeeded", "chart-payouts-failed")

	// Create a key: the full key is shown once, the list shows its prefix.
	do1(t, ctx, "create a key", chromedp.Click(chromedp.CSS(`nav a[href="/portal/keys"]`)),
		chromedp.WaitVisible(chromedp.ID("create-key")), chromedp.Click(chromedp.ID("create-key")),
		chromedp.WaitVisible(chromedp.ID("full-key")))
	full := strings.TrimSpace(text(t, ctx, "#full-key"))
	if len(full) < 20 {
		t.Fatalf("full key %q", full)
	}
	// The copy button is un-hidden by the portal's script, which the CSP lets run.
	do1(t, ctx, "copy button", chromedp.WaitVisible(chromedp.ID("copy-key")))
	if got := ping(t, srv.URL, full); got != http.StatusOK {
		t.Fatalf("the new key: ping %d", got)
	}
	do1(t, ctx, "back to the keys", chromedp.Click(chromedp.CSS(`main a[href="/portal/keys"]`)), chromedp.WaitVisible(chromedp.ID("keys")))
	list, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.ID("keys")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(list, full) || !strings.Contains(list, full[:16]) {
		t.Errorf("the list should show the prefix %q only: %s", full[:16], list)
	}

	// Revoke it after the confirmation page.
	do1(t, ctx, "revoke", chromedp.Click(chromedp.CSS(`a[href$="/revoke"]`)), chromedp.WaitVisible(chromedp.ID("confirm-revoke")))
	if s := text(t, ctx, "#revoke-prefix"); s != full[:16] {
		t.Errorf("confirming the revocation of %q", s)
	}
	do1(t, ctx, "confirm revoke", chromedp.Click(chromedp.ID("confirm-revoke")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	if s := text(t, ctx, ".notice"); !strings.Contains(s, "revoked") {
		t.Errorf("after revoking: %q", s)
	}
	if got := ping(t, srv.URL, full); got != http.StatusUnauthorized {
		t.Errorf("a revoked key: ping %d", got)
	}

	// The allowlist: a documentation address only; an API call from
	// 127.0.0.1 is refused.
	other, _, err := e.Operator().CreateKey(f.ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := ping(t, srv.URL, other); got != http.StatusOK {
		t.Fatalf("before the allowlist: ping %d", got)
	}
	do1(t, ctx, "allowlist", chromedp.Click(chromedp.CSS(`nav a[href="/portal/allowlist"]`)),
		chromedp.WaitVisible(chromedp.ID("addresses")), chromedp.SetValue(chromedp.ID("addresses"), "192.0.2.10"),
		chromedp.Click(chromedp.ID("save-allowlist")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	if got := ping(t, srv.URL, other); got != http.StatusForbidden {
		t.Errorf("from 127.0.0.1 outside the allowlist: ping %d", got)
	}

	// The audit trail lists it all, newest first.
	do1(t, ctx, "audit", chromedp.Click(chromedp.CSS(`nav a[href="/portal/audit"]`)), chromedp.WaitVisible(chromedp.ID("audit")))
	trail := text(t, ctx, "#audit tbody")
	last := -1
	for _, action := range []string{"org.allowlist_changed", "key.revoked", "key.created", "user.signed_in", "invitation.accepted"} {
		i := strings.Index(trail[last+1:], action)
		if i < 0 {
			t.Errorf("audit trail lacks %s after position %d: %s", action, last, trail)
			break
		}
		last += 1 + i
	}
	if !strings.Contains(trail, "127.0.0.1") {
		t.Errorf("audit trail lacks the client address: %s", trail)
	}

	// Sign out: the pages are closed again.
	do1(t, ctx, "sign out", chromedp.Click(chromedp.ID("sign-out")), chromedp.WaitVisible(chromedp.ID("sign-in")),
		chromedp.Navigate(srv.URL+"/portal/keys"), chromedp.WaitVisible(chromedp.ID("sign-in")))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(loc, "/portal/sign-in") {
		t.Errorf("after signing out, the keys page went to %q (%v)", loc, err)
	}
}
