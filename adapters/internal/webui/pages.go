package webui

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"time"
)

// The pages every face serves alike, the layout around every page (its
// head and the page's title, notice and error) and the base of the
// style sheet.
var (
	//go:embed templates/*.html
	sharedTemplates embed.FS
	//go:embed static/base.css
	baseCSS []byte
)

// SharedPages are the pages of the sign-in flow and the message page,
// which webui holds for every face: AddPages parses them from here.
var SharedPages = []string{"signin", "second", "enrol", "recovery", "accept", "message"}

// Options configure a face (the portal, the console). The zero value
// serves over HTTPS.
type Options struct {
	// ClientAddr returns the caller's address, for sign-in throttling
	// and the audit trail. Default: the connection's remote address. A
	// host behind a reverse proxy supplies its own, trusting only its
	// proxy's header.
	ClientAddr func(*http.Request) netip.Addr
	// InsecureCookies lets the session cookie go over plain HTTP (named
	// without the __Host- prefix, Path the face's prefix, not Secure) on
	// requests without TLS. Set it only for a sandbox listening on
	// loopback.
	InsecureCookies bool
	// Logger receives the engine failures the pages hide. Default: none.
	Logger *slog.Logger
	// Now is the time the pages measure ages and legal moves at (the
	// console's desk). Default: time.Now.
	Now func() time.Time
}

// Wording is what the shared pages say differently on each face. The
// sentences are the face's own constant text, shown as written
// (template.HTML: an apostrophe stays one).
type Wording struct {
	// Name follows "tambala" in the brand and in every page's title
	// ("portal").
	Name string
	// SignIn is a line above the sign-in form, "" for none.
	SignIn template.HTML
	// Enrol is the enrolment page's first sentence: why a second factor.
	Enrol template.HTML
	// Accept ends the invitation page's sentence "Choose a password of
	// at least N characters to …".
	Accept template.HTML
	// Continue is where the recovery codes' page goes on, ContinueTo what
	// its link names there ("the overview") and ContinueID the link's id,
	// "" for none.
	Continue, ContinueTo, ContinueID string
}

// Funcs are the helpers of every face's templates: duration (Duration)
// and when (a time in UTC to the minute).
var Funcs = template.FuncMap{
	"duration": Duration,
	"when":     When,
}

// When is t as the pages show a time to the minute: "2026-11-21 12:00 UTC".
func When(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// Layout is the face's layout: webui's (the head with the face's style
// sheet, the brand, the title, notice and error around the page's
// "content") with the face's own files of own parsed over it, which
// define "nav" (the signed-in header: the links, the user and the
// sign-out form) and may define "foot" (before </body>) and
// sub-templates. The helpers are Funcs, prefix and words (the Site's
// Prefix and Words as they are now), and funcs.
func (s *Site) Layout(own fs.FS, files []string, funcs ...template.FuncMap) *template.Template {
	prefix, words := s.Prefix, s.Words
	t := template.New("layout.html").Funcs(Funcs).Funcs(template.FuncMap{
		"prefix": func() string { return prefix },
		"words":  func() Wording { return words },
	})
	for _, f := range funcs {
		t = t.Funcs(f)
	}
	t = template.Must(t.ParseFS(sharedTemplates, "templates/layout.html"))
	if len(files) > 0 {
		t = template.Must(t.ParseFS(own, files...))
	}
	return t
}

// AddPages parses each page of names over a clone of layout into Pages: a
// shared page (SharedPages) from webui, any other from own's name.html.
func (s *Site) AddPages(layout *template.Template, own fs.FS, names ...string) {
	if s.Pages == nil {
		s.Pages = map[string]*template.Template{}
	}
	for _, name := range names {
		t := template.Must(layout.Clone())
		if slices.Contains(SharedPages, name) {
			t = template.Must(t.ParseFS(sharedTemplates, "templates/"+name+".html"))
		} else {
			t = template.Must(t.ParseFS(own, name+".html"))
		}
		s.Pages[name] = t
	}
}

// Sub is the folder dir of f (a face's embedded templates or static
// files); it panics on a dir fs.Sub refuses.
func Sub(f fs.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return s
}

// Static serves the face's static files of own under StaticPrefix, which
// a browser may cache but must check (no-cache); style.css is webui's base
// sheet followed by own's style.css.
func (s *Site) Static(own fs.FS) http.Handler {
	css, err := fs.ReadFile(own, "style.css")
	if err != nil {
		panic(err)
	}
	css = append(slices.Clip(baseCSS), css...)
	files := http.StripPrefix(s.StaticPrefix, http.FileServerFS(own))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		if r.URL.Path == s.StaticPrefix+"style.css" {
			http.ServeContent(w, r, "style.css", time.Time{}, bytes.NewReader(css))
			return
		}
		files.ServeHTTP(w, r)
	})
}
