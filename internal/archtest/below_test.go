package archtest

import (
	"strings"
	"testing"
)

// The module's top-level internal/ tree sits below the root package: its
// packages are the root's machinery (storage, codecs, loops, renderings),
// so none of them may import the root. What needs the root lives beside
// its user: the server under the command (cmd/tambala/internal/server),
// the web machinery under the adapters (adapters/internal/webui). Tests
// are free (an external test package may drive the engine), and an
// internal/ tree nested elsewhere (cmd/tambala/internal/...) is bound by
// where it sits, not by this rule.

// belowRoot reports whether the package at importPath is bound to sit
// below the root: it is in the module's top-level internal/ tree.
func belowRoot(importPath string) bool {
	return strings.HasPrefix(importPath, module+"/internal/")
}

// importsRoot lists the root among imports: what a package below the root
// may not import.
func importsRoot(imports []string) bool {
	for _, imp := range imports {
		if imp == module {
			return true
		}
	}
	return false
}

// TestInternalSitsBelowRoot fails when a non-test package of the module's
// top-level internal/ tree imports the root package.
func TestInternalSitsBelowRoot(t *testing.T) {
	checked := 0
	for _, p := range listImports(t) {
		if !belowRoot(p.ImportPath) {
			continue
		}
		checked++
		if importsRoot(p.Imports) {
			t.Errorf("%s imports the root package; internal/ sits below it (move it beside its user, e.g. cmd/.../internal or adapters/internal)",
				strings.TrimPrefix(p.ImportPath, module+"/"))
		}
	}
	if checked == 0 {
		t.Fatal("no package under internal/ found; is the module path right?")
	}
}

// TestBelowRootRuleCatchesViolations keeps the rule itself honest.
func TestBelowRootRuleCatchesViolations(t *testing.T) {
	bound := []struct {
		path string
		want bool
	}{
		{module + "/internal/storage", true},
		{module + "/internal/codec", true},
		{module + "/internal/a/b", true},
		{module + "/cmd/tambala/internal/server", false},
		{module + "/adapters/internal/webui", false},
		{module + "/internalx", false},
		{module, false},
		{"example.com/other/internal/x", false},
	}
	for _, c := range bound {
		if got := belowRoot(c.path); got != c.want {
			t.Errorf("belowRoot(%s) = %v, want %v", c.path, got, c.want)
		}
	}
	imports := []struct {
		imports []string
		want    bool
	}{
		{[]string{"fmt", module}, true},
		{[]string{module + "/store", module + "/money"}, false},
		{[]string{module + "/internal/codec"}, false},
		{nil, false},
	}
	for _, c := range imports {
		if got := importsRoot(c.imports); got != c.want {
			t.Errorf("importsRoot(%q) = %v, want %v", c.imports, got, c.want)
		}
	}
}
