package webui

import (
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// TestSharedPages: a face's shared pages carry its prefix and wording in
// webui's layout around its own nav, and its style sheet is webui's base
// followed by its own.
func TestSharedPages(t *testing.T) {
	own := fstest.MapFS{
		"layout.html": {Data: []byte(`{{define "nav"}}<nav>N</nav>{{end}}`)},
		"home.html":   {Data: []byte(`{{define "content"}}<p>{{when .Data}}</p>{{end}}`)},
		"style.css":   {Data: []byte("main { color: red; }\n")},
	}
	s := &Site{Prefix: "/face", StaticPrefix: "/face/static/",
		Words: Wording{Name: "face", SignIn: "Staff's door.", Continue: "/face/", ContinueTo: "the start"}}
	s.AddPages(s.Layout(own, []string{"layout.html"}), own, append(SharedPages, "home")...)
	w := httptest.NewRecorder()
	s.Render(w, 200, "signin", View{Title: "Sign in", Email: "a@example.com"})
	body := w.Body.String()
	for _, want := range []string{`<title>Sign in · tambala face</title>`, `href="/face/static/style.css"`,
		"<span class=\"brand\">tambala face</span>\n\n<nav>N</nav>\n\n</header>", `<p>Staff's door.</p>`,
		`action="/face/sign-in"`, "</main>\n</body>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the sign-in page lacks %q:\n%s", want, body)
		}
	}
	w = httptest.NewRecorder()
	s.Render(w, 200, "recovery", View{Title: "Recovery codes"})
	if body := w.Body.String(); !strings.Contains(body, `<p><a href="/face/">Continue to the start</a></p>`) {
		t.Errorf("the recovery page's link:\n%s", body)
	}
	w = httptest.NewRecorder()
	s.Static(own).ServeHTTP(w, httptest.NewRequest("GET", "/face/static/style.css", nil))
	if css := w.Body.String(); !strings.HasPrefix(css, string(baseCSS)) || !strings.HasSuffix(css, "main { color: red; }\n") ||
		w.Header().Get("Cache-Control") != "no-cache" || w.Header().Get("Content-Type") != "text/css; charset=utf-8" {
		t.Errorf("style.css: %v\n%s", w.Header(), css)
	}
}
