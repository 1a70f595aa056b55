package browsertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// pdfViewer is the URL of Chromium's built-in PDF viewer, an extension
// that Chromium runs in a frame of its own wherever it shows a PDF.
const pdfViewer = "chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/"

// pdfPages is the number of pages the viewer's toolbar shows, 0 until
// the document is loaded.
const pdfPages = `(() => {
	const v = document.querySelector("pdf-viewer");
	const tb = v && v.shadowRoot && v.shadowRoot.querySelector("viewer-toolbar");
	const ps = tb && tb.shadowRoot && tb.shadowRoot.querySelector("viewer-page-selector");
	return (ps && ps.docLength) || 0;
})()`

// PDFPages waits until Chromium's PDF viewer shows a document in the tab
// of ctx (the page itself, or a frame of it) and returns its number of
// pages. Where the tab shows no PDF (Chromium refuses one in a frame with
// the sandbox attribute, for one) it fails t when ctx ends.
func PDFPages(t testing.TB, ctx context.Context) int {
	t.Helper()
	viewer := findPDFViewer(t, ctx)
	fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(viewer), chromedp.WithDetachOnCancel())
	defer cancel()
	for {
		n, err := chromedp.Run(fctx, chromedp.Evaluate[int](pdfPages))
		if err != nil {
			t.Fatalf("reading the PDF viewer: %v", err)
		}
		if n > 0 {
			return n
		}
		if err := chromedp.Do(ctx, chromedp.Sleep(100*time.Millisecond)); err != nil {
			t.Fatalf("the PDF viewer shows no document: %v", err)
		}
	}
}

// findPDFViewer waits for the frame of the PDF viewer in the tab of ctx.
func findPDFViewer(t testing.TB, ctx context.Context) target.ID {
	t.Helper()
	tab := chromedp.FromContext(ctx).Target.TargetID
	for {
		infos, err := chromedp.CallBrowser(ctx, target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			t.Fatalf("listing the frames: %v", err)
		}
		parent := map[target.ID]target.ID{}
		for _, i := range infos.TargetInfos {
			parent[i.TargetID] = i.ParentID
		}
		under := func(id target.ID) bool {
			for range len(parent) {
				if id = parent[id]; id == tab {
					return true
				}
			}
			return false
		}
		for _, i := range infos.TargetInfos {
			if i.Type == "iframe" && strings.HasPrefix(i.URL, pdfViewer) && under(i.TargetID) {
				return i.TargetID
			}
		}
		if err := chromedp.Do(ctx, chromedp.Sleep(100*time.Millisecond)); err != nil {
			t.Fatalf("no PDF viewer in the tab: %v", err)
		}
	}
}
