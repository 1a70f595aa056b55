package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// The root package's own types are the engine's domain: they say nothing
// of how a resource is rendered on the wire or encoded in storage. Its
// non-test files import no JSON package and carry no json struct tag;
// renderings live in internal/render, stored records in internal/codec
// (written and read through internal/records).

// jsonLeaks lists, as "file:line: what", the JSON imports of f and the
// struct fields in it (top level or not) that carry a json tag.
func jsonLeaks(fset *token.FileSet, f *ast.File) []string {
	var out []string
	at := func(n ast.Node) string {
		p := fset.Position(n.Pos())
		return filepath.Base(p.Filename) + ":" + strconv.Itoa(p.Line)
	}
	for _, imp := range f.Imports {
		if path, err := strconv.Unquote(imp.Path.Value); err == nil && jsonImport(path) {
			out = append(out, at(imp)+": imports "+path)
		}
	}
	for _, pos := range jsonTags(f) {
		p := fset.Position(pos)
		out = append(out, filepath.Base(p.Filename)+":"+strconv.Itoa(p.Line)+": a json struct tag")
	}
	return out
}

// TestRootPackageHasNoJSON parses the root package's non-test files and
// fails on a JSON import or a json struct tag in any of them.
func TestRootPackageHasNoJSON(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	for _, p := range modulePackages(t) {
		if p.ImportPath != module {
			continue
		}
		for _, path := range p.sourceFiles() {
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			for _, leak := range jsonLeaks(fset, f) {
				t.Errorf("%s (renderings belong in internal/render, stored records in internal/codec)", leak)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no file of the root package found; is the module path right?")
	}
}

// TestJSONLeaksCatchesLeaks keeps the checker honest on made-up files.
func TestJSONLeaksCatchesLeaks(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{"package p\nimport \"encoding/json\"\nvar _ = json.Marshal\n", 1},
		{"package p\nimport j \"encoding/json/v2\"\nvar _ = j.Marshal\n", 1},
		{"package p\nimport \"github.com/go-json-experiment/json\"\nvar _ = json.Marshal\n", 1},
		{"package p\ntype T struct {\n\tA string `json:\"a\"`\n\tB string `json:\"-\"`\n}\n", 2},
		{"package p\nfunc f() { _ = struct {\n\tA string `db:\"a\" json:\"a,omitempty\"`\n}{} }\n", 1},
		{"package p\nimport \"encoding/hex\"\ntype T struct {\n\tA string `db:\"a\"`\n\tB string\n}\nvar _ = hex.EncodeToString\n", 0},
		{"package p\n// A doc comment may say `json:\"a\"`.\ntype T struct{ A string }\n", 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", c.src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonLeaks(fset, f); len(got) != c.want {
			t.Errorf("%q: %d leaks %q, want %d", c.src, len(got), got, c.want)
		}
	}
}
