package console_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/console"
	"github.com/tambalapay/tambala/internal/browsertest"
	"github.com/tambalapay/tambala/orders"
)

// onePagePDF is a valid one-page PDF that says text, with its cross
// reference table, written by hand.
func onePagePDF(text string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	stream := "BT /F1 24 Tf 72 720 Td (" + text + ") Tj ET"
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>")
	obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// smallPNG is a valid 40×20 PNG.
func smallPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		img.Set(x, 10, color.Black)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// proofOrder is a from-bank order awaiting the review of a proof of
// contentType with content.
func (v *env) proofOrder(t *testing.T, contentType string, content []byte) orders.Order {
	t.Helper()
	o := v.fromBank(t)
	if _, err := v.engine.Operator().Desk().MoveOrder(v.ctx, o.ID, orders.Instructions{BankName: "Standard Bank", AccountName: "Desk Ltd", AccountNumber: "9100"}); err != nil {
		t.Fatal(err)
	}
	o, err := v.engine.Client(v.p).UploadProof(v.ctx, o.ID, tambala.ProofUpload{ContentType: contentType, Content: bytes.NewReader(content)})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestProofViewAndDownload is issue #33's invisible PDF proof: the order
// page links the proof to open on its own and to download; a PDF is
// framed without the sandbox attribute (which stops Chromium's PDF
// viewer), an image with it; every way of serving the proof carries its
// checked media type, nosniff and the sandbox policy.
func TestProofViewAndDownload(t *testing.T) {
	v := newEnv(t)
	token := v.signIn(t, "desk@operator.example", v.staff(t, "desk@operator.example", accounts.StaffDesk))
	h := v.handler()
	pdfBytes, pngBytes := onePagePDF("Paid 18000 MWK"), smallPNG(t)
	for _, c := range []struct {
		mt, ext, frame string
		content        []byte
	}{
		{"application/pdf", ".pdf", `<iframe class="proof" src="/console/orders/%s/proof"`, pdfBytes},
		{"image/png", ".png", `<iframe class="proof" sandbox src="/console/orders/%s/proof"`, pngBytes},
	} {
		o := v.proofOrder(t, c.mt, c.content)
		page := do(h, "GET", "/console/orders/"+o.ID, token, nil).Body.String()
		for _, want := range []string{fmt.Sprintf(c.frame, o.ID),
			`<a id="proof-open" href="/console/orders/` + o.ID + `/proof">`,
			`<a id="proof-download" href="/console/orders/` + o.ID + `/proof/download" download>`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the order page lacks %s", c.mt, want)
			}
		}
		for path, disposition := range map[string]string{
			"/console/orders/" + o.ID + "/proof":          "inline",
			"/console/orders/" + o.ID + "/proof/download": `attachment; filename=proof-` + o.ID + c.ext,
		} {
			w := do(h, "GET", path, token, nil)
			if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), c.content) {
				t.Fatalf("%s: %d", path, w.Code)
			}
			hd := w.Header()
			for k, want := range map[string]string{"Content-Type": c.mt, "X-Content-Type-Options": "nosniff",
				"Content-Disposition": disposition, "Content-Security-Policy": console.ProofSecurityPolicy,
				"Cache-Control": "no-store", "X-Frame-Options": "SAMEORIGIN"} {
				if hd.Get(k) != want {
					t.Errorf("%s %s: %q, want %q", path, k, hd.Get(k), want)
				}
			}
			if !strings.HasPrefix(console.ProofSecurityPolicy, "sandbox;") {
				t.Errorf("the proof's policy is no sandbox: %q", console.ProofSecurityPolicy)
			}
			if w := do(h, "GET", path, "", nil); w.Code != http.StatusSeeOther {
				t.Errorf("%s without a session: %d", path, w.Code)
			}
		}
	}
}

// TestBrowserProofVisible is issue #33's invisible PDF proof, in
// Chromium: a desk clerk sees a real PDF proof in Chromium's PDF viewer,
// framed on the order page and opened on its own, and a PNG proof opened
// on its own.
func TestBrowserProofVisible(t *testing.T) {
	ctx := tab(t)
	v := newEnv(t)
	const email = "clerk@operator.example"
	secret := v.staff(t, email, accounts.StaffDesk)
	pdfOrder := v.proofOrder(t, "application/pdf", onePagePDF("Paid 18000 MWK"))
	pngOrder := v.proofOrder(t, "image/png", smallPNG(t))
	srv := v.server(t)
	v.signInPages(t, ctx, srv.URL, email, secret)

	do1(t, ctx, "open the order", chromedp.Navigate(srv.URL+"/console/orders/"+pdfOrder.ID), chromedp.WaitVisible(chromedp.CSS("iframe.proof")))
	if n := browsertest.PDFPages(t, ctx); n != 1 {
		t.Errorf("the framed PDF shows %d pages", n)
	}
	follow(t, ctx, "proof-open")
	if top, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.contentType + " " + location.pathname`)); err != nil ||
		top != "application/pdf /console/orders/"+pdfOrder.ID+"/proof" {
		t.Fatalf("the proof opened on its own: %q (%v)", top, err)
	}
	if n := browsertest.PDFPages(t, ctx); n != 1 {
		t.Errorf("the PDF opened on its own shows %d pages", n)
	}

	do1(t, ctx, "open the PNG order", chromedp.Navigate(srv.URL+"/console/orders/"+pngOrder.ID), chromedp.WaitVisible(chromedp.ID("proof-open")))
	follow(t, ctx, "proof-open")
	size, err := chromedp.Run(ctx, chromedp.Poll[string](`document.contentType === "image/png" && document.images.length === 1 && document.images[0].complete && document.images[0].naturalWidth + "x" + document.images[0].naturalHeight`))
	if err != nil || size != "40x20" {
		t.Errorf("the PNG opened on its own: %q (%v)", size, err)
	}
}

// follow goes where the link of id leads, as a click on it does (the
// console has no script), and waits for the page to load.
func follow(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById(`+strconv.Quote(id)+`).href`))
	if err != nil || href == "" {
		t.Fatalf("the link %s: %q (%v)", id, href, err)
	}
	do1(t, ctx, "follow "+id, chromedp.Navigate(href))
}
