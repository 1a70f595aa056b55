package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The pure domain packages hold rules, not wire or storage formats (issue
// #21): a resource's JSON rendering is internal/render's, the decoding of
// a request body the transport's (adapters/httpapi), the encoding of a
// stored record internal/codec's. So:
//
//   - no non-test file of noJSONTags carries a `json:"..."` struct tag, in
//     a named type or an anonymous struct inside a function alike. money
//     is checked too: it keeps its JSON methods (Amount and Rate are
//     json.Marshalers, the one place an amount's wire text is made), but
//     no tag. ledger is checked but for its storage codec, ledger/codec.go,
//     whose tagged structs read the JSON records earlier versions of the
//     ledger wrote: the ledger owns its records through the store port, and
//     internal/codec could not build a ledger.Entry while the ledger
//     calls it without an import cycle;
//   - no non-test file of noJSONImports imports encoding/json (or a
//     package below it), the strict body decoder internal/strictjson or
//     the JSON library it wraps.
var (
	noJSONTags    = []string{"money", "payouts", "orders", "quotes", "conversions", "collections", "trades", "orgs", "accounts", "networks", "apikeys", "errcode", "ledger"}
	jsonTagExempt = map[string]bool{"ledger/codec.go": true}
	noJSONImports = []string{"payouts", "orders", "quotes", "conversions", "collections", "trades", "orgs", "accounts", "networks", "apikeys", "errcode"}
)

// jsonImport reports whether importing path brings in a JSON codec.
func jsonImport(path string) bool {
	return path == "encoding/json" || strings.HasPrefix(path, "encoding/json/") ||
		path == module+"/internal/strictjson" ||
		path == "github.com/go-json-experiment/json" || strings.HasPrefix(path, "github.com/go-json-experiment/json/")
}

// jsonTags returns the position of every struct field of f tagged json,
// wherever the struct type stands (a declaration, a function body, a
// composite literal).
func jsonTags(f *ast.File) []token.Pos {
	var at []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok || st.Fields == nil {
			return true
		}
		for _, field := range st.Fields.List {
			if field.Tag == nil {
				continue
			}
			tag, err := strconv.Unquote(field.Tag.Value)
			if _, has := reflect.StructTag(tag).Lookup("json"); has || err != nil && strings.Contains(field.Tag.Value, "json:") {
				at = append(at, field.Tag.Pos())
			}
		}
		return true
	})
	return at
}

// TestDomainHasNoJSON parses the non-test files of the domain packages
// and fails on a json struct tag or a JSON import the rules above forbid.
func TestDomainHasNoJSON(t *testing.T) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, p := range modulePackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		tags, imports := slices.Contains(noJSONTags, rel), slices.Contains(noJSONImports, rel)
		if !tags && !imports {
			continue
		}
		seen[rel] = true
		names := append(append(append([]string(nil), p.GoFiles...), p.CgoFiles...), p.IgnoredGoFiles...)
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			file := filepath.ToSlash(filepath.Join(rel, name))
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if tags && !jsonTagExempt[file] {
				for _, pos := range jsonTags(f) {
					t.Errorf("%s:%d: a json struct tag in a domain package: the rendering belongs in internal/render, the stored form in internal/codec, the body's decoding in adapters/httpapi",
						file, fset.Position(pos).Line)
				}
			}
			if imports {
				for _, imp := range f.Imports {
					if path, _ := strconv.Unquote(imp.Path.Value); jsonImport(path) {
						t.Errorf("%s:%d: %s imports %s: it renders, decodes and stores no JSON", file, fset.Position(imp.Pos()).Line, rel, path)
					}
				}
			}
		}
	}
	for _, rel := range append(slices.Clone(noJSONTags), noJSONImports...) {
		if !seen[rel] {
			t.Errorf("package %s not found: is the list of domain packages current?", rel)
		}
	}
}

// TestJSONRulesCatchViolations keeps the checks honest on made-up source.
func TestJSONRulesCatchViolations(t *testing.T) {
	const src = `package p

type A struct {
	X int ` + "`json:\"x\"`" + `
	Y int ` + "`db:\"y\"`" + `
	Z struct {
		W int ` + "`yaml:\"w\" json:\"-\"`" + `
	}
}

func f() []byte {
	var v struct {
		V int ` + "`json:\"v,omitempty\"`" + `
	}
	_ = []struct{ U int ` + "`json:\"u\"`" + ` }{}
	_ = v
	return nil
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, pos := range jsonTags(f) {
		lines = append(lines, fset.Position(pos).Line)
	}
	if want := []int{4, 7, 13, 15}; !slices.Equal(lines, want) {
		t.Errorf("json tags found on lines %v, want %v", lines, want)
	}
	for path, want := range map[string]bool{
		"encoding/json": true, "encoding/json/jsontext": true, module + "/internal/strictjson": true,
		"github.com/go-json-experiment/json": true, "github.com/go-json-experiment/json/jsontext": true,
		"encoding/jsonx": false, "encoding/xml": false, module + "/internal/textrule": false, module + "/money": false,
	} {
		if got := jsonImport(path); got != want {
			t.Errorf("jsonImport(%s) = %v, want %v", path, got, want)
		}
	}
}
