package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Width is the viewport width the pages are checked at: a laptop's.
const Width = 1280

// ShotDir is where CheckPage writes the screenshots of t: the folder
// named by TAMBALA_SCREENSHOTS when it is set (to look at them after the
// run), else a temporary one.
func ShotDir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("TAMBALA_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// Viewport sets the tab's viewport to Width × 800.
func Viewport(t testing.TB, ctx context.Context) {
	t.Helper()
	Do(t, ctx, "viewport", chromedp.EmulateViewport(Width, 800))
}

// overflowJS names the elements (at most five) that reach past the
// viewport's right edge when the page scrolls sideways, "" when it
// does not.
const overflowJS = `(() => {
	const d = document.documentElement;
	if (d.scrollWidth <= d.clientWidth) return "";
	const out = [];
	for (const e of document.body.querySelectorAll("*")) {
		const r = e.getBoundingClientRect();
		if (r.right > d.clientWidth + 0.5 && out.length < 5) out.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + String(e.className).replace(/ /g, ".") : "") + " right=" + Math.round(r.right));
	}
	return "scrollWidth " + d.scrollWidth + " > clientWidth " + d.clientWidth + ": " + out.join(", ");
})()`

// unlabelledJS lists the form controls (input but hidden, submit,
// button, reset and image; select; textarea) with no label: none of a
// label[for], a wrapping label, aria-label, or aria-labelledby naming
// elements of the page with text.
const unlabelledJS = `[...document.querySelectorAll("input, select, textarea")].filter(e => {
	const type = (e.getAttribute("type") || "").toLowerCase();
	if (e.tagName === "INPUT" && ["hidden", "submit", "button", "reset", "image"].includes(type)) return false;
	if (e.labels && [...e.labels].some(l => l.textContent.trim() !== "")) return false;
	if ((e.getAttribute("aria-label") || "").trim() !== "") return false;
	const by = (e.getAttribute("aria-labelledby") || "").trim();
	if (by !== "" && by.split(/\s+/).every(id => { const l = document.getElementById(id); return l && l.textContent.trim() !== ""; })) return false;
	return true;
}).map(e => e.outerHTML.slice(0, 160))`

// CheckPage checks the page shown in ctx, as named: it takes a full
// screenshot to dir/name.png (to look at), and fails t when the page
// scrolls sideways at its viewport's width or a form control has no
// label.
func CheckPage(t testing.TB, ctx context.Context, dir, name string) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("%s: screenshot: %v", name, err)
	}
	file := filepath.Join(dir, strings.NewReplacer("/", "_", "?", "_", "=", "_", "&", "_").Replace(strings.Trim(name, "/"))+".png")
	if err := os.WriteFile(file, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if over, err := chromedp.Run(ctx, chromedp.Evaluate[string](overflowJS)); err != nil {
		t.Fatalf("%s: %v", name, err)
	} else if over != "" {
		t.Errorf("%s scrolls sideways at %d px (screenshot %s): %s", name, Width, file, over)
	}
	bad, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](unlabelledJS))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, b := range bad {
		t.Errorf("%s: a form control without a label: %s", name, b)
	}
}
