package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser is the one Chromium of a test binary, or the reason there is
// none.
type Browser struct {
	ctx    context.Context
	err    error
	cancel func()
}

// Start starts headless Chromium with a fresh profile, found on PATH as
// chromium, chromium-browser or google-chrome. A browser that cannot start
// is kept as its reason (Tab skips or fails with it).
func Start() *Browser {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		return &Browser{err: fmt.Errorf("no Chromium on PATH (apt-get install -y chromium)")}
	}
	dir, err := os.MkdirTemp("", "tambala-chromium-")
	if err != nil {
		return &Browser{err: err}
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.UserDataDir(dir), chromedp.Headless,
		chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true))
	ctx, cancelCtx := chromedp.NewContext(alloc)
	cancel := func() {
		cancelCtx()
		cancelAlloc()
		os.RemoveAll(dir)
	}
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		cancel()
		return &Browser{err: fmt.Errorf("starting %s: %w", path, err)}
	}
	return &Browser{ctx: ctx, cancel: cancel}
}

// Close stops the browser.
func (b *Browser) Close() {
	if b.cancel != nil {
		b.cancel()
	}
}

// Tab opens a tab of the browser for t, with a time limit of a minute;
// without a browser t skips, or fails when CI is set.
func (b *Browser) Tab(t testing.TB) context.Context {
	t.Helper()
	return b.tab(t)
}

// PrivateTab is a Tab in a browser context of its own (its own cookies),
// for two people signed in at once.
func (b *Browser) PrivateTab(t testing.TB) context.Context {
	t.Helper()
	return b.tab(t, chromedp.WithNewBrowserContext())
}

func (b *Browser) tab(t testing.TB, opts ...chromedp.ContextOption) context.Context {
	t.Helper()
	if b.ctx == nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("browser tests need Chromium in CI: %v", b.err)
		}
		t.Skipf("skipping the browser test: %v", b.err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx, opts...)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(tcancel)
	return tctx
}

// Do runs steps in ctx, failing t with what on an error.
func Do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Text is the text of the element sel matches.
func Text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}
