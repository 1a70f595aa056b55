package portal_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/portal"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
)

// TestBrowserSettingsJourney walks an admin through the settings pages in
// Chromium: a webhook endpoint on a loopback receiver (plain http, allowed
// in the sandbox) whose secret is shown once, a simulated /v1 collection
// delivered by one dispatcher pass and seen on the deliveries page with
// its body, signature and status, the balance floor, and a new password
// that the next sign-in needs.
func TestBrowserSettingsJourney(t *testing.T) {
	ctx := tab(t)
	var mu sync.Mutex
	var gotBody, gotSig string
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		gotBody, gotSig = string(b), r.Header.Get("Signature")
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(receiver.Close)

	f := newSenderFixture(t, "ada@example.com", webhookhttp.NewSender(nil))
	e := f.engine
	mux := http.NewServeMux()
	mux.Handle("/", httpapi.New(e, nil))
	mux.Handle("/portal/", portal.New(e, &portal.Options{InsecureCookies: true}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	do1(t, ctx, "sign in", chromedp.Navigate(srv.URL+"/portal/sign-in"), chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), f.email), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("balance-v1")))

	// The webhook endpoint: a plain-http address off loopback is refused
	// beside the field; the loopback receiver is taken, its secret shown.
	do1(t, ctx, "webhook refused", chromedp.Click(chromedp.CSS(`nav a[href="/portal/webhook"]`)),
		chromedp.WaitVisible(chromedp.ID("no-endpoint")), chromedp.SetValue(chromedp.ID("url"), "http://hooks.example.com/x"),
		chromedp.Click(chromedp.ID("save-webhook")), chromedp.WaitVisible(chromedp.ID("url-error")))
	if s := text(t, ctx, "#url-error"); !strings.Contains(s, "https") {
		t.Errorf("url error: %q", s)
	}
	do1(t, ctx, "webhook set", chromedp.SetValue(chromedp.ID("url"), receiver.URL+"/hook"),
		chromedp.Click(chromedp.ID("save-webhook")), chromedp.WaitVisible(chromedp.ID("webhook-secret")),
		chromedp.WaitVisible(chromedp.ID("copy-secret")))
	secret := strings.TrimSpace(text(t, ctx, "#webhook-secret"))
	if !strings.HasPrefix(secret, "whsec_") {
		t.Errorf("secret %q", secret)
	}
	do1(t, ctx, "webhook page", chromedp.Click(chromedp.CSS(`main a[href="/portal/webhook"]`)), chromedp.WaitVisible(chromedp.ID("current-url")))
	if s := text(t, ctx, "#current-url"); s != receiver.URL+"/hook" {
		t.Errorf("current url %q", s)
	}
	if page, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html"))); strings.Contains(page, secret) {
		t.Error("the secret is shown again")
	}

	// A /v1 simulated collection through the public API, one dispatcher pass.
	key, _, err := e.Operator().CreateKey(f.ctx, f.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest("POST", srv.URL+"/v1/collections/simulate", strings.NewReader(`{"amount_mwk":"1000"}`))
	r.Header.Set("Authorization", "Bearer "+key)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Idempotency-Key", "browser-settings-1")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("simulate: %d", resp.StatusCode)
	}
	if n, err := e.Work().ProcessDeliveries(f.ctx); err != nil || n < 1 {
		t.Fatalf("ProcessDeliveries: %d %v", n, err)
	}
	mu.Lock()
	body, sig := gotBody, gotSig
	mu.Unlock()
	if body == "" || sig == "" {
		t.Fatal("the receiver got nothing")
	}
	do1(t, ctx, "deliveries", chromedp.Click(chromedp.CSS(`nav a[href="/portal/deliveries"]`)),
		chromedp.WaitVisible(chromedp.CSS(".delivery .attempts")))
	if s := text(t, ctx, ".delivery .attempts .status"); s != "202" {
		t.Errorf("attempt status %q", s)
	}
	shown, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(".delivery pre.body")))
	if err != nil || shown != body {
		t.Errorf("body shown %q, sent %q (%v)", shown, body, err)
	}
	if s := text(t, ctx, ".delivery .attempts code"); s != sig {
		t.Errorf("signature shown %q, sent %q", s, sig)
	}

	// The balance floor: an error beside the field, then saved.
	do1(t, ctx, "floor refused", chromedp.Click(chromedp.CSS(`nav a[href="/portal/floor"]`)), chromedp.WaitVisible(chromedp.ID("amount")),
		chromedp.SetValue(chromedp.ID("amount"), "12.345"), chromedp.Click(chromedp.ID("save-floor")),
		chromedp.WaitVisible(chromedp.ID("amount-error")))
	do1(t, ctx, "floor set", chromedp.SetValue(chromedp.ID("amount"), "75000"), chromedp.Click(chromedp.ID("save-floor")),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	if s := text(t, ctx, "#current-floor"); !strings.Contains(s, "75000.00") {
		t.Errorf("floor %q", s)
	}
	if org := f.orgNow(t, f.signIn(t)); org.BalanceFloorMWK.String() != "75000.00" {
		t.Errorf("the engine's floor %s", org.BalanceFloorMWK)
	}

	// A new password: the next sign-in needs it.
	const next = "a brand new password 1"
	do1(t, ctx, "change password", chromedp.Click(chromedp.CSS(`nav a[href="/portal/account"]`)), chromedp.WaitVisible(chromedp.ID("current")),
		chromedp.SendKeys(chromedp.ID("current"), password), chromedp.SendKeys(chromedp.ID("new"), next),
		chromedp.SendKeys(chromedp.ID("repeat"), next), chromedp.Click(chromedp.ID("change-password")),
		chromedp.WaitVisible(chromedp.CSS(".notice")))
	if s := text(t, ctx, ".notice"); !strings.Contains(s, "other sessions are signed out") {
		t.Errorf("after changing: %q", s)
	}
	do1(t, ctx, "sign out, old password", chromedp.Click(chromedp.ID("sign-out")), chromedp.WaitVisible(chromedp.ID("sign-in")),
		chromedp.SetValue(chromedp.ID("email"), f.email), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("password-error")))
	do1(t, ctx, "new password", chromedp.SetValue(chromedp.ID("email"), f.email), chromedp.SetValue(chromedp.ID("password"), next),
		chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("balance-v1")))
}
