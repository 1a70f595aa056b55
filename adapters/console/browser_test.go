package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala/internal/browsertest"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/orders"
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

// server serves the console of v on a loopback listener.
func (v *env) server(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/console/", v.handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// signInPages signs email in through the console's pages, with the TOTP
// code of secret, and waits for the desk.
func (v *env) signInPages(t *testing.T, ctx context.Context, base, email, secret string) {
	t.Helper()
	do1(t, ctx, "sign in", chromedp.Navigate(base+"/console/"), chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), email), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("code")))
	do1(t, ctx, "second factor", chromedp.SendKeys(chromedp.ID("code"), v.code(t, secret)),
		chromedp.Click(chromedp.ID("verify")), chromedp.WaitVisible(chromedp.ID("chart-desk-ages")))
	// Home is the first page after sign-in (issue #37); the desk is a click away.
	do1(t, ctx, "desk", chromedp.Click(chromedp.CSS(`nav a[href="/console/desk"]`)), chromedp.WaitVisible(chromedp.ID("queue-accepted")))
	if s := text(t, ctx, "#signed-in-as"); s != email {
		t.Errorf("signed in as %q", s)
	}
}

// move makes the move named name on the order page shown, ticking "I
// confirm", and waits for the page after it.
func move(t *testing.T, ctx context.Context, name string, fields ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	steps := append(fields, chromedp.Click(chromedp.ID("confirm-"+name)), chromedp.Click(chromedp.ID("do-"+name)),
		chromedp.WaitVisible(chromedp.ID("moved-"+name)))
	do1(t, ctx, name, steps...)
}

// TestBrowserDeskClerk walks a desk clerk through the console in
// Chromium: signing in with a TOTP code, a to-bank order from accepted to
// completed, and a from-bank order through the funding instructions, a
// proof rejected with a reason, a new proof, its confirmation and the
// completion; the history names the clerk.
func TestBrowserDeskClerk(t *testing.T) {
	ctx := tab(t)
	v := newEnv(t)
	const email = "clerk@operator.example"
	secret := v.staff(t, email, accounts.StaffDesk)
	to := v.toBank(t, "Chikondi Banda")
	from := v.fromBank(t)
	srv := v.server(t)
	v.signInPages(t, ctx, srv.URL, email, secret)

	// The to-bank order: processing, then complete.
	if s := text(t, ctx, "#queue-accepted tbody"); !strings.Contains(s, to.ID) || !strings.Contains(s, "Acme Ltd") {
		t.Errorf("the accepted queue: %q", s)
	}
	do1(t, ctx, "open the to-bank order", chromedp.Click(chromedp.CSS(`#queue-accepted a[href="/console/orders/`+to.ID+`"]`)),
		chromedp.WaitVisible(chromedp.ID("move-processing")))
	if s := text(t, ctx, "#beneficiary-name"); s != "Chikondi Banda" {
		t.Errorf("beneficiary %q", s)
	}
	move(t, ctx, "processing")
	move(t, ctx, "complete")
	if s := text(t, ctx, "#order-status"); s != "completed" {
		t.Errorf("to-bank status %q", s)
	}
	do1(t, ctx, "no moves left", chromedp.WaitVisible(chromedp.ID("no-moves")))
	if h := text(t, ctx, "#history tbody"); strings.Count(h, email) != 2 || !strings.Contains(h, "complete: status processing -> completed") {
		t.Errorf("to-bank history: %q", h)
	}

	// The from-bank order: the funding instructions.
	do1(t, ctx, "desk", chromedp.Click(chromedp.CSS(`nav a[href="/console/desk"]`)), chromedp.WaitVisible(chromedp.ID("queue-awaiting_instructions")))
	if s := text(t, ctx, "#queue-awaiting_instructions tbody"); !strings.Contains(s, from.ID) || !strings.Contains(s, "not set yet") {
		t.Errorf("the awaiting-instructions queue: %q", s)
	}
	do1(t, ctx, "open the from-bank order", chromedp.Click(chromedp.CSS(`a[href="/console/orders/`+from.ID+`"]`)),
		chromedp.WaitVisible(chromedp.ID("move-instructions")))
	move(t, ctx, "instructions", chromedp.SendKeys(chromedp.ID("bank_name"), "Standard Bank Malawi"),
		chromedp.SendKeys(chromedp.ID("account_name"), "Tambala Desk Ltd"), chromedp.SendKeys(chromedp.ID("account_number"), "9100000123"))
	if s := text(t, ctx, "#order-status"); s != "awaiting_funds" {
		t.Errorf("after the instructions: %q", s)
	}
	if s := text(t, ctx, "#funding"); !strings.Contains(s, "Standard Bank Malawi") || !strings.Contains(s, "18000.00") {
		t.Errorf("funding: %q", s)
	}

	// The organization uploads a proof; the clerk rejects it.
	first := v.upload(t, from.ID).Proof.ID
	do1(t, ctx, "reload", chromedp.Navigate(srv.URL+"/console/orders/"+from.ID), chromedp.WaitVisible(chromedp.ID("move-reject-proof")))
	if s := text(t, ctx, "#proof-id"); s != first {
		t.Errorf("proof shown %q, want %q", s, first)
	}
	framed, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("iframe.proof").getAttribute("src") + " " + document.querySelector("iframe.proof").hasAttribute("sandbox")`))
	if err != nil || framed != "/console/orders/"+from.ID+"/proof false" { // a PDF: sandboxed by its response's policy, not the attribute
		t.Errorf("proof frame %q (%v)", framed, err)
	}
	// Rejecting without a reason: the error beside the field.
	do1(t, ctx, "reject without a reason", chromedp.Click(chromedp.ID("confirm-reject-proof")), chromedp.Click(chromedp.ID("do-reject-proof")),
		chromedp.WaitVisible(chromedp.ID("reason-error")))
	move(t, ctx, "reject-proof", chromedp.SendKeys(chromedp.ID("reason"), "The amount is not legible."))
	if s := text(t, ctx, "#order-status"); s != "awaiting_funds" {
		t.Errorf("after the rejection: %q", s)
	}
	if s := text(t, ctx, "#proof-meta"); !strings.Contains(s, "The amount is not legible.") {
		t.Errorf("rejected proof: %q", s)
	}

	// A new proof: confirmed, then the order completes.
	second := v.upload(t, from.ID).Proof.ID
	do1(t, ctx, "reload", chromedp.Navigate(srv.URL+"/console/orders/"+from.ID), chromedp.WaitVisible(chromedp.ID("move-confirm-funds")))
	if s := text(t, ctx, "#proof-id"); s != second || second == first {
		t.Errorf("new proof shown %q (first %q)", s, first)
	}
	move(t, ctx, "confirm-funds")
	move(t, ctx, "complete")
	if s := text(t, ctx, "#order-status"); s != "completed" {
		t.Errorf("from-bank status %q", s)
	}
	h := text(t, ctx, "#history tbody")
	for _, want := range []string{"instructions: status awaiting_instructions -> awaiting_funds", "reject-proof", "confirm-funds", "complete: status funds_confirmed -> completed"} {
		if !strings.Contains(h, want) {
			t.Errorf("from-bank history lacks %q: %q", want, h)
		}
	}
	if strings.Count(h, email) != 4 {
		t.Errorf("from-bank history should name the clerk 4 times: %q", h)
	}
	if o, err := v.engine.Operator().Desk().Order(v.ctx, from.ID); err != nil || o.Status != orders.Completed {
		t.Errorf("the engine's order: %s %v", o.Status, err)
	}
}

// TestBrowserSupport: a support user reads the desk and an order page,
// with no button that changes anything.
func TestBrowserSupport(t *testing.T) {
	ctx := tab(t)
	v := newEnv(t)
	const email = "support@operator.example"
	secret := v.staff(t, email, accounts.StaffSupport)
	to := v.toBank(t, "Chikondi Banda")
	srv := v.server(t)
	v.signInPages(t, ctx, srv.URL, email, secret)
	if s := text(t, ctx, "#roles"); s != "(support)" {
		t.Errorf("roles %q", s)
	}
	do1(t, ctx, "open the order", chromedp.Click(chromedp.CSS(`a[href="/console/orders/`+to.ID+`"]`)),
		chromedp.WaitVisible(chromedp.ID("order-summary")))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main form, main button").length`))
	if err != nil || n != 0 {
		t.Errorf("a support user's order page has %d forms and buttons (%v)", n, err)
	}
	do1(t, ctx, "corridors", chromedp.Click(chromedp.CSS(`nav a[href="/console/corridors"]`)), chromedp.WaitVisible(chromedp.ID("corridors")))
	n, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main form, main button").length`))
	if err != nil || n != 0 {
		t.Errorf("a support user's corridors page has %d forms and buttons (%v)", n, err)
	}
	do1(t, ctx, "sign out", chromedp.Click(chromedp.ID("sign-out")), chromedp.WaitVisible(chromedp.ID("sign-in")))
}
