package portal_test

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala/adapters/portal"
)

// TestBrowserActivity signs in in Chromium, opens a from-bank order
// awaiting funds from the orders list, uploads a small PDF as its funding
// proof and sees it received, then opens the collections list and sees
// the payer's name as text.
func TestBrowserActivity(t *testing.T) {
	ctx := tab(t)
	start := time.Now()
	a := newActivity(t, "ada@example.com")
	srv := httptest.NewServer(portal.New(a.engine, &portal.Options{InsecureCookies: true}))
	t.Cleanup(srv.Close)
	pdf := filepath.Join(t.TempDir(), "proof.pdf")
	if err := os.WriteFile(pdf, proofPDF, 0o600); err != nil {
		t.Fatal(err)
	}

	do1(t, ctx, "sign in", chromedp.Navigate(srv.URL+"/portal/sign-in"), chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), a.email), chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.ID("sign-in")), chromedp.WaitVisible(chromedp.ID("balance-v1")))

	// The orders list, filtered to those awaiting funds, leads to the order.
	do1(t, ctx, "orders", chromedp.Click(chromedp.CSS(`nav a[href="/portal/orders"]`)), chromedp.WaitVisible(chromedp.ID("orders")),
		chromedp.SetValue(chromedp.ID("status"), "awaiting_funds"), chromedp.Click(chromedp.ID("filter")),
		chromedp.WaitReady(chromedp.CSS(`#status option[value="awaiting_funds"][selected]`)), chromedp.WaitVisible(chromedp.ID("orders")))
	if s := text(t, ctx, "#orders tbody"); !strings.Contains(s, a.fromBank.ID) || strings.Contains(s, a.toBank.ID) {
		t.Errorf("orders awaiting funds: %q", s)
	}
	do1(t, ctx, "open the order", chromedp.Click(chromedp.CSS(`a[href="/portal/orders/`+a.fromBank.ID+`"]`)),
		chromedp.WaitVisible(chromedp.ID("funding")))
	if s := text(t, ctx, "#funding-reference"); s != a.fromBank.Funding.Reference {
		t.Errorf("funding reference %q", s)
	}

	// Upload the proof: received.
	do1(t, ctx, "upload", chromedp.SetUploadFiles(chromedp.ID("proof-file"), []string{pdf}),
		chromedp.Click(chromedp.ID("upload-proof")), chromedp.WaitVisible(chromedp.ID("proof")))
	if s := text(t, ctx, ".notice"); !strings.Contains(s, "proof was received") {
		t.Errorf("after the upload: %q", s)
	}
	if s := text(t, ctx, "#proof-review"); s != "received" {
		t.Errorf("proof review %q", s)
	}
	if s := text(t, ctx, "#order #status"); s != "proof_submitted" {
		t.Errorf("order status %q", s)
	}
	if o, err := a.engine.Operator().Desk().Order(a.ctx, a.fromBank.ID); err != nil || o.Proof == nil || o.Proof.ContentType != "application/pdf" {
		t.Errorf("stored proof: %+v %v", o.Proof, err)
	}

	// The collections list shows the payer's name as text.
	do1(t, ctx, "collections", chromedp.Click(chromedp.CSS(`nav a[href="/portal/collections"]`)), chromedp.WaitVisible(chromedp.ID("collections")))
	if s := text(t, ctx, "#collections td.payer"); s != payerName {
		t.Errorf("payer name %q", s)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#collections script").length`))
	if err != nil || n != 0 {
		t.Errorf("script elements in the list: %d (%v)", n, err)
	}
	t.Logf("browser activity test: %s", time.Since(start).Round(time.Millisecond))
}
