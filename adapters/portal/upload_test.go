package portal_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/portal"
)

// zeros reads n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > z.n {
		p = p[:z.n]
	}
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}

// counting counts the bytes read through it.
type counting struct {
	r io.Reader
	n atomic.Int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// multipartBody is a multipart form: the fields (in order), then a file
// part named file of contentType whose content is head then size zero
// bytes; it returns the body, its length and its Content-Type.
func multipartBody(fields [][2]string, file, contentType string, head []byte, size int64) (io.Reader, int64, string) {
	var pre bytes.Buffer
	mw := multipart.NewWriter(&pre)
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	hd := textproto.MIMEHeader{}
	hd.Set("Content-Disposition", `form-data; name="`+file+`"; filename="proof.bin"`)
	hd.Set("Content-Type", contentType)
	_, _ = mw.CreatePart(hd)
	pre.Write(head)
	post := "\r\n--" + mw.Boundary() + "--\r\n"
	n := int64(pre.Len()) + size + int64(len(post))
	return io.MultiReader(&pre, &zeros{n: size}, strings.NewReader(post)), n, mw.FormDataContentType()
}

// TestProofUploadWritesNoTempFile is issue #33's disk fill: multipart
// bodies over a MiB sent to the portal, by a bogus cookie and by a
// genuine session, through a real server, leave no file in the temporary
// directory, even after the server stops; nor does a large multipart body
// sent to the sign-in form or to another form.
func TestProofUploadWritesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	a := newActivity(t, "ada@example.com")
	tok := a.signIn(t)
	mux := http.NewServeMux()
	mux.Handle("/portal/", a.handler())
	srv := httptest.NewServer(mux)
	client := &http.Client{
		Transport: &http.Transport{ExpectContinueTimeout: time.Minute},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	// post sends a multipart body as a browser would send a large one
	// (Expect: 100-continue) and returns the status, 0 when the server
	// ended the exchange before an answer.
	post := func(path, cookie string, body io.Reader, n int64, ct string) int {
		t.Helper()
		r, err := http.NewRequest("POST", srv.URL+path, body)
		if err != nil {
			t.Fatal(err)
		}
		r.ContentLength = n
		r.Header.Set("Content-Type", ct)
		r.Header.Set("Expect", "100-continue")
		if cookie != "" {
			r.AddCookie(&http.Cookie{Name: portal.InsecureCookieName, Value: cookie})
		}
		res, err := client.Do(r)
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	proofPath := "/portal/orders/" + a.fromBank.ID + "/proof"
	// The repro: a bogus cookie and a 9 MB file, six times.
	for range 6 {
		body, n, ct := multipartBody(nil, "proof", "application/pdf", nil, 9_000_000)
		if st := post(proofPath, "bogus", body, n, ct); st != 0 && st != http.StatusSeeOther {
			t.Errorf("bogus cookie: %d", st)
		}
	}
	// Large multipart bodies to forms that take no file.
	body, n, ct := multipartBody([][2]string{{"email", "ada@example.com"}}, "password", "text/plain", nil, 40<<20)
	if st := post("/portal/sign-in", "", body, n, ct); st != 0 && st != http.StatusRequestEntityTooLarge {
		t.Errorf("sign-in: %d", st)
	}
	body, n, ct = multipartBody([][2]string{{"csrf", accounts.CSRFToken(tok)}, {"name", "k"}}, "x", "text/plain", nil, 40<<20)
	if st := post("/portal/keys", tok, body, n, ct); st != 0 && st != http.StatusRequestEntityTooLarge {
		t.Errorf("keys: %d", st)
	}
	// A genuine 3 MB proof: received.
	body, n, ct = multipartBody([][2]string{{"csrf", accounts.CSRFToken(tok)}}, "proof", "application/pdf", proofPDF, 3_000_000)
	if st := post(proofPath, tok, body, n, ct); st != http.StatusSeeOther {
		t.Fatalf("genuine upload: %d", st)
	}
	o, err := a.engine.Operator().Desk().Order(a.ctx, a.fromBank.ID)
	if err != nil || o.Proof == nil || o.Proof.Size != int64(len(proofPDF))+3_000_000 {
		t.Fatalf("stored proof: %+v %v", o.Proof, err)
	}
	srv.Close()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		info, _ := e.Info()
		t.Errorf("left in TMPDIR: %s (%d bytes)", e.Name(), info.Size())
	}
}

// TestProofUploadUnreadBeforeSession: a proof form's body is not read
// before the session is checked (a bogus or missing cookie: not a byte),
// nor past its first field before the CSRF token is; an ordinary form's
// body is read no further than its cap (webui.MaxFormBytes, 64 KiB).
func TestProofUploadUnreadBeforeSession(t *testing.T) {
	a := newActivity(t, "ada@example.com")
	h, tok := a.handler(), a.signIn(t)
	send := func(path, cookie string, body io.Reader, n int64, ct string) (*httptest.ResponseRecorder, int64) {
		t.Helper()
		c := &counting{r: body}
		r := httptest.NewRequest("POST", path, c)
		r.ContentLength = n
		r.Header.Set("Content-Type", ct)
		if cookie != "" {
			r.AddCookie(&http.Cookie{Name: portal.InsecureCookieName, Value: cookie})
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w, c.n.Load()
	}
	proofPath := "/portal/orders/" + a.fromBank.ID + "/proof"
	for _, cookie := range []string{"bogus", ""} {
		body, n, ct := multipartBody(nil, "proof", "application/pdf", proofPDF, 9_000_000)
		w, read := send(proofPath, cookie, body, n, ct)
		if w.Code != http.StatusSeeOther || !strings.HasSuffix(w.Header().Get("Location"), "/portal/sign-in") {
			t.Errorf("cookie %q: %d %q", cookie, w.Code, w.Header().Get("Location"))
		}
		if read != 0 {
			t.Errorf("cookie %q: %d bytes of the body read before the session was checked", cookie, read)
		}
	}
	// A genuine session with a wrong CSRF token: refused after the first
	// field, the file unread.
	body, n, ct := multipartBody([][2]string{{"csrf", "wrong"}}, "proof", "application/pdf", proofPDF, 9_000_000)
	w, read := send(proofPath, tok, body, n, ct)
	if w.Code != http.StatusForbidden {
		t.Errorf("wrong CSRF token: %d", w.Code)
	}
	if read > 64<<10 {
		t.Errorf("wrong CSRF token: %d bytes read", read)
	}
	// The file before the CSRF token: refused, the file unread.
	body, n, ct = multipartBody(nil, "proof", "application/pdf", proofPDF, 9_000_000)
	if w, read = send(proofPath, tok, body, n, ct); w.Code != http.StatusForbidden || read > 64<<10 {
		t.Errorf("no CSRF token before the file: %d, %d bytes read", w.Code, read)
	}
	if o, _ := a.engine.Operator().Desk().Order(a.ctx, a.fromBank.ID); o.Proof != nil {
		t.Fatalf("a refused upload stored a proof: %+v", o.Proof)
	}
	// A body declared over the cap: the order page says so, the file unread.
	body, n, ct = multipartBody([][2]string{{"csrf", accounts.CSRFToken(tok)}}, "proof", "application/pdf", proofPDF, tambala.GateOf(a.engine).MaxProofBytes()+1<<20)
	if w, read = send(proofPath, tok, body, n, ct); w.Code != http.StatusRequestEntityTooLarge || read > 64<<10 {
		t.Errorf("declared too large: %d, %d bytes read", w.Code, read)
	}
	contains(t, "declared too large", w.Body.String(), `id="proof-error"`, "too large")
	// A body whose length is not declared, going over the cap: read to
	// the cap and refused as too large.
	body, _, ct = multipartBody([][2]string{{"csrf", accounts.CSRFToken(tok)}}, "proof", "application/pdf", proofPDF, 3*tambala.GateOf(a.engine).MaxProofBytes())
	if w, read = send(proofPath, tok, body, -1, ct); w.Code != http.StatusRequestEntityTooLarge || read > tambala.GateOf(a.engine).MaxProofBytes()+2<<20 {
		t.Errorf("undeclared too large: %d, %d bytes read", w.Code, read)
	}

	// Ordinary forms: a body declared over the cap is not read; one
	// whose length is not declared is read no further than the cap, and
	// refused (its CSRF token unread).
	form := "csrf=" + accounts.CSRFToken(tok) + "&name=" + strings.Repeat("k", 1<<20)
	w, read = send("/portal/sign-in", "", strings.NewReader(form), int64(len(form)), "application/x-www-form-urlencoded")
	if w.Code != http.StatusRequestEntityTooLarge || read != 0 {
		t.Errorf("a large sign-in form: %d, %d bytes read", w.Code, read)
	}
	w, read = send("/portal/keys", tok, strings.NewReader(form), -1, "application/x-www-form-urlencoded")
	if w.Code != http.StatusForbidden || read > 64<<10+1 {
		t.Errorf("a large form of unknown length: %d, %d bytes read", w.Code, read)
	}
	// A multipart body to a form that takes no file: refused unread.
	body, n, ct = multipartBody([][2]string{{"csrf", accounts.CSRFToken(tok)}}, "x", "text/plain", nil, 10)
	if w, read = send("/portal/keys", tok, body, n, ct); w.Code != http.StatusUnsupportedMediaType || read != 0 {
		t.Errorf("a multipart key form: %d, %d bytes read", w.Code, read)
	}
}
