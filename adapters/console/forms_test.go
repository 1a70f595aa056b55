package console_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/console"
	"github.com/tambalapay/tambala/orders"
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

// TestFormsWriteNoTempFile is issue #33's disk fill on the console: a
// large multipart body sent to the sign-in form, or by a signed-in clerk
// to a move's form, through a real server, leaves no file in the
// temporary directory, and changes nothing.
func TestFormsWriteNoTempFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	v := newEnv(t)
	token := v.signIn(t, "clerk@operator.example", v.staff(t, "clerk@operator.example", accounts.StaffDesk))
	o := v.toBank(t, "Chikondi Banda")
	srv := v.server(t)
	client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, fields [][2]string) int {
		t.Helper()
		var pre bytes.Buffer
		mw := multipart.NewWriter(&pre)
		for _, f := range fields {
			_ = mw.WriteField(f[0], f[1])
		}
		_, _ = mw.CreateFormFile("file", "big.bin")
		post := "\r\n--" + mw.Boundary() + "--\r\n"
		const size = 40 << 20
		r, err := http.NewRequest("POST", srv.URL+path, io.MultiReader(&pre, &zeros{n: size}, strings.NewReader(post)))
		if err != nil {
			t.Fatal(err)
		}
		r.ContentLength = int64(pre.Len()) + size + int64(len(post))
		r.Header.Set("Content-Type", mw.FormDataContentType())
		r.Header.Set("Expect", "100-continue")
		r.AddCookie(&http.Cookie{Name: console.InsecureCookieName, Value: token})
		res, err := client.Do(r)
		if err != nil {
			return 0 // the server ended the exchange unread
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	if st := post("/console/sign-in", [][2]string{{"email", "clerk@operator.example"}, {"password", password}}); st != 0 && st != http.StatusRequestEntityTooLarge {
		t.Errorf("sign-in: %d", st)
	}
	if st := post("/console/orders/"+o.ID+"/moves/processing", [][2]string{{"csrf", accounts.CSRFToken(token)}, {"confirm", "yes"}}); st != 0 && st != http.StatusRequestEntityTooLarge {
		t.Errorf("a move: %d", st)
	}
	srv.Close()
	if st := v.status(t, o.ID); st != orders.Accepted {
		t.Errorf("a refused form moved the order: %s", st)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		info, _ := e.Info()
		t.Errorf("left in TMPDIR: %s (%d bytes)", e.Name(), info.Size())
	}
}
