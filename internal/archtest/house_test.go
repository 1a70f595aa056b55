package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The house: which part of the module may lean on which. The layers, from
// the ground up (docs/architecture.md draws them):
//
//	base       store, errcode, money and the small helpers under internal/
//	domain     the pure rules: orders, payouts, quotes, accounts, ...
//	below      internal/storage, internal/codec, internal/render and the
//	           engine's machinery under internal/
//	root       the engine: New, Options, ports, Run, the faces, use cases
//	adapters   stores, the HTTP binding, the web pages, the rails
//	top        cmd/ and examples/
//
// A package may depend on its own layer and the layers below, never on one
// above: an arrow running back up is what lets a house slide.

// layerOf names the layer of a module-relative import path ("" for the
// root package); ok is false for a package the house does not place
// (test support: archtest, teststores, browsertest).
func layerOf(rel string) (layer int, ok bool) {
	switch {
	case rel == "":
		return layerRoot, true
	case rel == "internal/archtest", rel == "internal/teststores", rel == "internal/browsertest":
		return 0, false
	case strings.HasPrefix(rel, "cmd/"), strings.HasPrefix(rel, "examples/"):
		return layerTop, true
	case strings.HasPrefix(rel, "adapters/"):
		return layerAdapters, true
	case domainPackages[rel]:
		return layerDomain, true
	case basePackages[rel], strings.HasPrefix(rel, "store/"):
		return layerBase, true
	case strings.HasPrefix(rel, "internal/"):
		return layerBelow, true
	}
	return layerDomain, true // a new top-level package is a rule until placed
}

const (
	layerBase = iota
	layerDomain
	layerBelow
	layerRoot
	layerAdapters
	layerTop
)

var layerNames = []string{"base", "domain", "below", "root", "adapters", "top"}

var basePackages = map[string]bool{
	"store": true, "errcode": true, "money": true,
	"internal/textrule": true, "internal/binrec": true, "internal/jsonw": true,
	"internal/fingerprint": true, "internal/strictjson": true,
	"internal/loop": true, "internal/work": true, "internal/cache": true,
	"internal/txbuf": true, "internal/lend": true, "internal/chart": true, "internal/wiretime": true,
	"wire": true,
}

// domainPackages are the pure rules; pureRule holds them to no I/O.
var domainPackages = map[string]bool{
	"ledger": true, "quotes": true, "orders": true, "conversions": true,
	"trades": true, "orgs": true, "collections": true, "payouts": true,
	"webhooks": true, "apikeys": true, "accounts": true, "networks": true,
	"approvals": true, "reconcile": true, "audit": true,
}

type layeredPkg struct {
	ImportPath string
	Imports    []string
}

// houseViolations lists, as "pkg (layer) imports dep (layer)", every
// import of a module package from a layer above the importer's.
func houseViolations(pkgs []layeredPkg) []string {
	var out []string
	for _, p := range pkgs {
		from, ok := layerOf(relPath(p.ImportPath))
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to, ok := layerOf(relPath(imp))
			if ok && to > from {
				out = append(out, relName(p.ImportPath)+" ("+layerNames[from]+") imports "+
					relName(imp)+" ("+layerNames[to]+")")
			}
		}
	}
	sort.Strings(out)
	return out
}

func relPath(importPath string) string {
	if importPath == module {
		return ""
	}
	return strings.TrimPrefix(importPath, module+"/")
}

func relName(importPath string) string {
	if r := relPath(importPath); r != "" {
		return r
	}
	return "the root package"
}

// TestHouseLayers fails on any import that runs from a lower layer up.
func TestHouseLayers(t *testing.T) {
	var pkgs []layeredPkg
	for _, p := range listImports(t) {
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; is the module path right?", len(pkgs))
	}
	for _, v := range houseViolations(pkgs) {
		t.Error(v)
	}
}

// TestHouseRuleCatchesViolations keeps the layer rule honest.
func TestHouseRuleCatchesViolations(t *testing.T) {
	bad := []layeredPkg{
		{ImportPath: module + "/internal/storage", Imports: []string{module}},
		{ImportPath: module + "/payouts", Imports: []string{module + "/internal/storage"}},
		{ImportPath: module, Imports: []string{module + "/adapters/memstore"}},
		{ImportPath: module + "/adapters/httpapi", Imports: []string{module + "/cmd/tambala"}},
		{ImportPath: module + "/money", Imports: []string{module + "/orders"}},
	}
	if got := houseViolations(bad); len(got) != len(bad) {
		t.Fatalf("caught %d of %d: %v", len(got), len(bad), got)
	}
	good := []layeredPkg{
		{ImportPath: module, Imports: []string{module + "/internal/storage", module + "/payouts", "fmt"}},
		{ImportPath: module + "/internal/storage", Imports: []string{module + "/internal/codec", module + "/store"}},
		{ImportPath: module + "/adapters/httpapi", Imports: []string{module, module + "/internal/render"}},
		{ImportPath: module + "/internal/teststores", Imports: []string{module + "/adapters/memstore"}},
	}
	if got := houseViolations(good); len(got) != 0 {
		t.Fatalf("flagged allowed imports: %v", got)
	}
}

// The root package is the engine's map: few files, no storage layout, and
// use cases short enough to read as load, rule, post, store, emit.
const (
	maxRootFiles     = 25
	maxRootFuncLines = 60
)

var bucketName = regexp.MustCompile(`=\s*\[\]byte\("`)

// rootShape lists what breaks the root's limits in the named sources.
func rootShape(fset *token.FileSet, files map[string]string) []string {
	var out []string
	if len(files) > maxRootFiles {
		out = append(out, strconv.Itoa(len(files))+" non-test files in the root package; at most "+strconv.Itoa(maxRootFiles))
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		src := files[name]
		for i, line := range strings.Split(src, "\n") {
			if bucketName.MatchString(line) {
				out = append(out, name+":"+strconv.Itoa(i+1)+": a bucket name (storage keeps them, in internal/storage)")
			}
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			out = append(out, name+": "+err.Error())
			continue
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxRootFuncLines {
				out = append(out, name+": "+fd.Name.Name+" is "+strconv.Itoa(n)+" lines; at most "+strconv.Itoa(maxRootFuncLines))
			}
		}
	}
	return out
}

// TestRootShape holds the root package to its limits.
func TestRootShape(t *testing.T) {
	files := map[string]string{}
	for _, p := range modulePackages(t) {
		if p.ImportPath != module {
			continue
		}
		for _, path := range p.sourceFiles() {
			files[filepath.Base(path)] = readFile(t, path)
		}
	}
	if len(files) == 0 {
		t.Fatal("no file of the root package found; is the module path right?")
	}
	for _, v := range rootShape(token.NewFileSet(), files) {
		t.Error(v)
	}
}

// TestRootShapeCatchesViolations keeps the shape rule honest.
func TestRootShapeCatchesViolations(t *testing.T) {
	long := "package p\n\nfunc f() {\n" + strings.Repeat("\t_ = 1\n", maxRootFuncLines) + "}\n"
	files := map[string]string{
		"a.go": "package p\n\nvar b = []byte(\"orgs\")\n",
		"b.go": long,
	}
	for i := 0; i < maxRootFiles; i++ {
		files["x"+strconv.Itoa(i)+".go"] = "package p\n"
	}
	got := rootShape(token.NewFileSet(), files)
	if len(got) != 3 {
		t.Fatalf("want the file count, the bucket and the long function; got %v", got)
	}
	short := map[string]string{"a.go": "package p\n\nfunc f() {}\n\nvar s = []byte(x)\n"}
	if got := rootShape(token.NewFileSet(), short); len(got) != 0 {
		t.Fatalf("flagged a clean root: %v", got)
	}
}

// listImports lists the module's packages and their own (non-test)
// imports with go list.
func listImports(t *testing.T) []layeredPkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []layeredPkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p layeredPkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
