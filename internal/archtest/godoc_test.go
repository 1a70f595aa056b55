package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/tambalapay/tambala/errcode"
)

// The godoc of the library reads as a Go library's: a doc comment says
// what a Go call does, not which HTTP route or status stands for it. The
// HTTP binding (adapters/httpapi), the example hosts (examples/...) and
// the command that runs the server and talks to its admin API (cmd/...,
// the server in cmd/tambala/internal/server) are transports and may talk
// about routes and statuses; nothing else may.
// Error codes (service_unavailable, not_found, ...) are the engine's own
// and stay, as does "/v1" or "/v2" as the name of an API version.

// godocExempt reports whether the package at rel (relative to the module,
// "" for the root) is a transport whose godoc may name routes and statuses.
func godocExempt(rel string) bool {
	return rel == "adapters/httpapi" || strings.HasPrefix(rel, "adapters/httpapi/") ||
		rel == "examples" || strings.HasPrefix(rel, "examples/") ||
		strings.HasPrefix(rel, "cmd/")
}

// A status number stands alone: not part of a longer number, a decimal
// (1750.503), a power (10^12) or a path. status is any status; distinctive
// are the statuses an API's documentation names and amounts, sizes and
// years hardly ever are (400, 500 and 200 are left to the rules that need
// a status word or a code next to them).
const (
	alone       = `(?:^|[^\w.,^/+-])`
	status      = `[1-5]\d\d`
	distinctive = `(?:401|402|403|404|405|406|408|409|410|411|412|413|414|415|416|417|422|423|424|425|426|428|429|431|451|501|502|503|504|505)`
)

// amountAfter is what, right after a number, makes it an amount, a size or
// a count rather than a status: a decimal part, a currency or an asset
// code (MWK, USDT), a unit.
var amountAfter = regexp.MustCompile(`^(?:[.,]\d|\s*(?:[A-Z]{3,5}\b|%|[KMGT]i?B\b|(?:characters?|code points?|bytes?|bits?|digits?|ms|seconds?|minutes?|hours?|days?|rows?|items?|entries|times)\b))`)

// statusAfter is what, right after a number, leaves it standing alone as
// an outcome: the end of the comment, punctuation, or a word that starts
// a clause ("is 400 for", "(400 otherwise)"), not a noun it counts ("is
// 200 orders") or a currency ("is 500 MWK"). So a bare "is 100." reads as
// a status: give a limit its unit.
var statusAfter = regexp.MustCompile(`^(?:\s*$|[.,;:)/!?]|\s+(?:and|or|but|so|for|before|after|when|if|unless|until|otherwise|else|on|with|from|to|is|are|was|then|instead|in|at|by)\b)`)

// transportRule is one thing a doc comment may not say.
type transportRule struct {
	name string
	re   *regexp.Regexp
	// keep, when set, decides from the text right after a match whether
	// it stands (an amount or a count is let through).
	keep func(after string) bool
}

// notAmount keeps a match that amountAfter does not take for an amount.
func notAmount(after string) bool { return !amountAfter.MatchString(after) }

// transportRules are what a doc comment may not say. Each is matched
// against a whole comment group with its comment markers removed, so a
// phrase broken over two lines is still caught. There is no allow-list.
var transportRules = []transportRule{
	// "GET /v1/balance", "POST /v2/orders".
	{"an HTTP route", regexp.MustCompile(`\b(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\s+/\S*`), nil},
	// "/v2/orders/{id}/proofs/funding", "(/admin/v2/orgs)", "/files/...":
	// a path under one of the API's prefixes. "/v2" alone names a version
	// and passes; so do "/v1's rules" and a Go import path (pebble/v2/vfs).
	{"an HTTP path", regexp.MustCompile(`(?:^|[^\w./-])/(?:v1|v2|admin|files)/[\w{][\w{}./-]*`), nil},
	// "503 service_unavailable", "(402 insufficient_funds)": a status
	// before an error code of errcode.Table.
	{"an HTTP status before an error code", regexp.MustCompile(alone + status + `\s+(?:` + codeWords() + `)\b`), nil},
	// "404 Not Found", "429 Too Many Requests": a status and its reason
	// phrase (http.StatusText).
	{"an HTTP status and its reason phrase", regexp.MustCompile(alone + status + `\s+(?:` + reasonPhrases() + `)\b`), nil},
	// "(403)", "(400, 422)", "(409/404)", "(HTTP 404)", "(400 otherwise)":
	// a status opening a parenthesis ("(100 MWK)" is an amount).
	{"an HTTP status in parentheses", regexp.MustCompile(`\(\s*(?:HTTP\s+)?` + status + `\b`), statusAfter.MatchString},
	// "4xx", "a 5xx": a class of statuses.
	{"an HTTP status class", regexp.MustCompile(`\b[1-5][xX][xX]\b`), nil},
	// "status 409", "answers 404", "HTTP 429", "responds with 201": a
	// status named by a word that only a status goes with.
	{"an HTTP status after a status word", regexp.MustCompile(`(?i)\b(?:status(?:es)?|HTTP|answers?|answered|answering|respon(?:d|ds|ded|se|ses)|repl(?:y|ies|ied))\s+(?:(?:a|an|code|codes|of|is|with)\s+)*` + status + `\b`), notAmount},
	// "is a 400.", "returns 500 when", "with 400 before", "more is 400,":
	// a status as what a call comes to, when no noun follows it (an amount
	// or a count has one: "is a 500 MWK fee", "with 200 orders").
	{"an HTTP status as an outcome", regexp.MustCompile(`(?i)\b(?:is|are|was|be|gets?|got|returns?|returned|as|with|fails?\s+with|failed\s+with)\s+(?:(?:a|an)\s+)?` + status + `\b`), statusAfter.MatchString},
	// "404 for an unknown id", "is a 409", "with 503": a distinctive
	// status anywhere, unless an amount's currency or a unit follows.
	{"an HTTP status", regexp.MustCompile(alone + distinctive + `\b`), notAmount},
}

// codeWords is the alternation of every error code in errcode.Table.
func codeWords() string {
	var words []string
	for _, s := range errcode.Table {
		words = append(words, regexp.QuoteMeta(string(s.Code)))
	}
	return strings.Join(words, "|")
}

// reasonPhrases is the alternation of the standard HTTP reason phrases.
func reasonPhrases() string {
	var phrases []string
	for code := 100; code < 600; code++ {
		if p := http.StatusText(code); p != "" {
			phrases = append(phrases, regexp.QuoteMeta(p))
		}
	}
	sort.Slice(phrases, func(i, j int) bool { return len(phrases[i]) > len(phrases[j]) })
	return strings.Join(phrases, "|")
}

// transportProblem is one thing a doc comment says that it may not: which
// rule, where in the text and what.
type transportProblem struct {
	rule  string
	at    int
	match string
}

// transportProblems returns what text breaks, in order, one per place.
func transportProblems(text string) []transportProblem {
	var found []transportProblem
	seen := map[int]bool{}
	for _, r := range transportRules {
		for _, loc := range r.re.FindAllStringIndex(text, -1) {
			if r.keep != nil && !r.keep(text[loc[1]:]) {
				continue
			}
			at := loc[0]
			for at < loc[1] && !strings.ContainsRune("/(", rune(text[at])) && !unicode.IsLetter(rune(text[at])) && !unicode.IsDigit(rune(text[at])) {
				at++ // the character before a number or a path
			}
			if seen[at] {
				continue
			}
			seen[at] = true
			found = append(found, transportProblem{r.name, at, strings.Join(strings.Fields(text[at:loc[1]]), " ")})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].at < found[j].at })
	return found
}

type listedPkg struct {
	ImportPath     string
	Dir            string
	GoFiles        []string
	CgoFiles       []string
	IgnoredGoFiles []string
}

// modulePackages lists the module's packages with go list.
func modulePackages(t *testing.T) []listedPkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no package; is the module path right?")
	}
	return pkgs
}

// sourceFiles returns the paths of p's non-test Go files, whatever their
// build constraints.
func (p listedPkg) sourceFiles() []string {
	var out []string
	for _, names := range [][]string{p.GoFiles, p.CgoFiles, p.IgnoredGoFiles} {
		for _, name := range names {
			if !strings.HasSuffix(name, "_test.go") {
				out = append(out, filepath.Join(p.Dir, name))
			}
		}
	}
	return out
}

// docGroups returns the doc comments godoc shows for f: the package doc,
// and the Doc (and trailing line comment) of every top-level declaration,
// spec, struct field and interface method. Comments inside function
// bodies are not documentation and are not returned.
func docGroups(f *ast.File) []*ast.CommentGroup {
	var groups []*ast.CommentGroup
	add := func(cgs ...*ast.CommentGroup) {
		for _, cg := range cgs {
			if cg != nil {
				groups = append(groups, cg)
			}
		}
	}
	// fields adds the comments of the fields and methods in n, a type
	// expression or a *ast.FieldList (never a typed nil).
	fields := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				add(n.Doc, n.Comment)
			case *ast.FuncLit:
				return false // a body, not a declaration
			}
			return true
		})
	}
	add(f.Doc)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			add(d.Doc)
			fields(d.Type) // params and results; the receiver has no doc
		case *ast.GenDecl:
			add(d.Doc)
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add(s.Doc, s.Comment)
					fields(s.Type)
				case *ast.ValueSpec:
					add(s.Doc, s.Comment)
					if s.Type != nil {
						fields(s.Type)
					}
				}
			}
		}
	}
	return groups
}

// commentText returns the text of cg with the comment markers removed, one
// line of text per source line, and the source line of each.
func commentText(fset *token.FileSet, cg *ast.CommentGroup) (string, []int) {
	var b strings.Builder
	var lines []int
	for _, c := range cg.List {
		line := fset.Position(c.Slash).Line
		text := c.Text
		if strings.HasPrefix(text, "//") {
			text = text[2:]
		} else {
			text = strings.TrimSuffix(strings.TrimPrefix(text, "/*"), "*/")
		}
		for i, l := range strings.Split(text, "\n") {
			b.WriteString(l)
			b.WriteByte('\n')
			lines = append(lines, line+i)
		}
	}
	return b.String(), lines
}

// lineAt returns the source line of offset at in a commentText result.
func lineAt(text string, lines []int, at int) int {
	return lines[strings.Count(text[:at], "\n")]
}

// TestGodocIsTransportFree parses every non-test Go file of every package
// of the module but the transports (adapters/httpapi, examples/...,
// cmd/...) and
// fails on any doc comment that names an HTTP route or an HTTP status.
func TestGodocIsTransportFree(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	for _, p := range modulePackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if godocExempt(rel) {
			continue
		}
		for _, path := range p.sourceFiles() {
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, cg := range docGroups(f) {
				text, lines := commentText(fset, cg)
				for _, p := range transportProblems(text) {
					t.Errorf("%s:%d: doc comment names %s: %q", filepath.Join(rel, filepath.Base(path)),
						lineAt(text, lines, p.at), p.rule, p.match)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d files checked; is the module path right?", checked)
	}
}

// TestTransportRules keeps the rules honest: what they must catch and what
// a payments library's godoc says about amounts, years and sizes that they
// must not.
func TestTransportRules(t *testing.T) {
	bad := []string{
		"BalanceV1 reads the caller's MWK balance (GET /v1/balance).",
		"It backs POST /v2/orders.",
		"the order's funding proof (/v2/orders/{id}/proofs/funding)",
		"reads one (GET\n /v2/payouts/{id})",
		"see /admin/v2/orgs/{id}/pause",
		"the token of /files/proofs/{token}",
		"a paused rail is 503 service_unavailable",
		"the hold (402 insufficient_funds)",
		"an unknown id answers 404",
		"a bad body is 400\n validation_error",
		"not the caller's (403).",
		"the request's shape (400, 422)",
		"not_found (404)",
		"a replay with another body is a 409 conflict",
		"a move made twice is a 409, not a repeat",
		"404 for an unknown, foreign or malformed id",
		"refuses the payout with 503.",
		"answers an empty `asset` parameter with 400 before the engine",
		"a bad body is a 400.",
		"above 0 (400\n otherwise), and at most money.Max",
		"at most asset's decimals (more is 400, never rounded)",
		"the request fails with status 409",
		"the binding returns 429 Too Many Requests",
		"a bad key is a 400.",
		"a receiver's 5xx is retried",
		"HTTP 404 for an unknown id",
		"both quote endpoints (201)",
	}
	for _, s := range bad {
		if len(transportProblems(s)) == 0 {
			t.Errorf("not caught: %q", s)
		}
	}
	good := []string{
		"BalanceV1 reads the caller's MWK balance under the /v1 rules.",
		"a /v2 payout, unlike a /v1 one, names its asset; /v1's rules",
		"a paused rail is service_unavailable",
		"an unknown id is not_found; a bad body is validation_error",
		"amounts up to 10^12 MWK; 100 MWK is the minimum; 403 MWK is less",
		"at most 500 rows per page; 200 orders; 409 characters",
		"a rate of 1750.503 MWK per USDT; 1.404 USDT",
		"convenience fee 200 (momo) or 500 (bank)",
		"the fee is a 500 MWK flat fee; pages with 200 orders; with 100 MWK",
		"the limit is 200 orders; the maximum is 500 MWK (100 MWK by default)",
		"ISO 4217 currency codes; 1 MiB bodies; since 2024; 128 MiB",
		"the server listens on :8080 by default; port 5432",
		"an import of github.com/tambalapay/tambala/payouts or pebble/v2/vfs",
		"the file store/v1/data.db",
		"retries at most 5 times over 300 seconds",
		"returns the 100 newest entries (default 100, at most 100,000)",
		"a success status delivers; a client or server error status retries",
		"SHA-256 of the body; U+200B to U+200D",
	}
	for _, s := range good {
		for _, p := range transportProblems(s) {
			t.Errorf("flagged as %s (%q): %q", p.rule, p.match, s)
		}
	}
}

// designNote and decisionID are the design notes' bookkeeping, which
// belongs in docs/: a reference to a section of the second design, and a
// decision's id, a U and one or two digits.
var (
	designNote = regexp.MustCompile(`(?i)\bdesign 2\.`)
	decisionID = regexp.MustCompile(`\bU\d{1,2}\b`)
)

// TestNoDecisionIDsInCode keeps the design notes' bookkeeping in docs/:
// no Go file outside docs/ mentions a section of the second design
// (designNote) anywhere, or names a decision by its id (decisionID) in a
// comment.
func TestNoDecisionIDsInCode(t *testing.T) {
	for _, c := range []struct {
		re   *regexp.Regexp
		text string
		want bool
	}{
		{designNote, "as in design 2" + ".3", true},
		{designNote, "the second design", false},
		{decisionID, "see " + "U" + "15", true},
		{decisionID, "U+200B, U128, UTC, USDT", false},
	} {
		if got := c.re.MatchString(c.text); got != c.want {
			t.Errorf("%s matches %q: %v, want %v", c.re, c.text, got, c.want)
		}
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "docs" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		if loc := designNote.FindIndex(src); loc != nil {
			t.Errorf("%s:%d: mentions %q; design notes belong in docs/", rel,
				bytes.Count(src[:loc[0]], []byte("\n"))+1, src[loc[0]:loc[1]])
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for _, cg := range f.Comments {
			text, lines := commentText(fset, cg)
			if loc := decisionID.FindStringIndex(text); loc != nil {
				t.Errorf("%s:%d: names decision %s; decision ids belong in docs/", rel,
					lineAt(text, lines, loc[0]), text[loc[0]:loc[1]])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d Go files found under %s", checked, root)
	}
}
