package webui

import (
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tambalapay/tambala/errcode"
)

func TestCookies(t *testing.T) {
	s := &Site{Prefix: "/console", SecureCookie: "__Host-x", InsecureCookie: "x"}
	for _, c := range []struct {
		insecure, tls bool
		name, path    string
		secure        bool
	}{
		{false, false, "__Host-x", "/", true},
		{false, true, "__Host-x", "/", true},
		{true, false, "x", "/console", false},
		{true, true, "__Host-x", "/", true},
	} {
		s.InsecureCookies = c.insecure
		r := httptest.NewRequest("GET", "/console/", nil)
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		s.SetSession(w, r, "tok")
		got := w.Result().Cookies()
		if len(got) != 1 {
			t.Fatalf("%+v: %v", c, got)
		}
		k := got[0]
		if k.Name != c.name || k.Path != c.path || k.Secure != c.secure || !k.HttpOnly || k.SameSite != http.SameSiteStrictMode || k.MaxAge != 0 {
			t.Errorf("%+v: %+v", c, k)
		}
		r.AddCookie(k)
		if s.Token(r) != "tok" {
			t.Errorf("%+v: token %q", c, s.Token(r))
		}
		w = httptest.NewRecorder()
		s.ClearSession(w, r)
		if k := w.Result().Cookies()[0]; k.Name != c.name || k.MaxAge >= 0 || k.Value != "" {
			t.Errorf("%+v: cleared %+v", c, k)
		}
	}
}

func TestServeHeaders(t *testing.T) {
	s := &Site{CSP: "default-src 'self'", StaticPrefix: "/p/static/"}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	for path, store := range map[string]string{"/p/": "no-store", "/p/static/a.css": ""} {
		w := httptest.NewRecorder()
		s.Serve(next, w, httptest.NewRequest("GET", path, nil))
		h := w.Header()
		if h.Get("Content-Security-Policy") != s.CSP || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("Cache-Control") != store {
			t.Errorf("%s: %v", path, h)
		}
	}
}

func TestStatusOf(t *testing.T) {
	for code, want := range map[errcode.Code]int{errcode.ValidationError: 422, errcode.Unauthorized: 401,
		errcode.Forbidden: 403, errcode.NotFound: 404, errcode.Conflict: 409, errcode.RateLimited: 429} {
		if got := StatusOf(errcode.New(code)); got != want {
			t.Errorf("%s: %d, want %d", code, got, want)
		}
	}
	if got := StatusOf(errors.New("disk")); got != 500 {
		t.Errorf("an uncoded error: %d", got)
	}
	if msg := (&Site{}).Friendly(errors.New("disk on fire")); msg == "disk on fire" {
		t.Error("an uncoded error's text reached the page")
	}
}
