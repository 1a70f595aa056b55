package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tambalapay/tambala"

// forbidden reports whether importing path breaks the rule; direct says the
// import is the package's own (standard-library rules apply only to those,
// since fmt itself imports os).
type rule struct {
	name      string
	forbidden func(path string, direct bool) bool
}

func pureRule(allowStore bool) rule {
	return rule{
		name: "pure",
		forbidden: func(p string, direct bool) bool {
			switch {
			case direct && (p == "net/http" || p == "os" || strings.HasPrefix(p, "net/http/")):
				return true
			case strings.HasPrefix(p, "go.etcd.io/bbolt"),
				strings.HasPrefix(p, "github.com/jackc/pgx"),
				strings.HasPrefix(p, "go.uber.org/zap"),
				strings.HasPrefix(p, module+"/adapters/"):
				return true
			case p == module+"/store" || strings.HasPrefix(p, module+"/store/"):
				return !allowStore
			}
			return false
		},
	}
}

// engineRule is the root package's: the engine's API is transport-free
// (no net/http anywhere below it, not even through a dependency) and
// logger-free (log/slog only), and it reaches storage through the port.
var engineRule = rule{
	name: "engine",
	forbidden: func(p string, direct bool) bool {
		return p == "net/http" || strings.HasPrefix(p, "net/http/") ||
			strings.HasPrefix(p, "go.etcd.io/bbolt") ||
			strings.HasPrefix(p, "github.com/jackc/pgx") ||
			strings.HasPrefix(p, "github.com/cockroachdb/pebble") ||
			strings.HasPrefix(p, "go.uber.org/zap") ||
			strings.HasPrefix(p, module+"/adapters/")
	},
}

// rules maps a package (relative to the module) to its rule. Packages not
// yet written are skipped.
var rules = map[string]rule{
	module:        engineRule,
	"money":       pureRule(false),
	"quotes":      pureRule(false),
	"orders":      pureRule(false),
	"conversions": pureRule(false),
	"trades":      pureRule(false),
	"orgs":        pureRule(false),
	"collections": pureRule(false),
	"payouts":     pureRule(false),
	"webhooks":    pureRule(false),
	"apikeys":     pureRule(false),
	"accounts":    pureRule(false),
	"networks":    pureRule(false),
	"ledger":      pureRule(true),
	// The text rule of every field a person reads, shared by payouts,
	// orders and the engine.
	"internal/textrule": pureRule(false),
	"approvals":         pureRule(false),
	"reconcile":         pureRule(false),
	"audit":             pureRule(false),
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	checked := 0
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := p.ImportPath
		if rel != module {
			rel = strings.TrimPrefix(p.ImportPath, module+"/")
		}
		r, ok := rules[rel]
		if !ok {
			continue
		}
		checked++
		direct := map[string]bool{}
		for _, imp := range p.Imports {
			direct[imp] = true
		}
		for _, dep := range p.Deps {
			if r.forbidden(dep, direct[dep]) {
				t.Errorf("%s may not import %s (directly or through a dependency)", rel, dep)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no rule-bound package found; is the module path right?")
	}
}

// TestRuleCatchesViolations keeps the rule itself honest.
func TestRuleCatchesViolations(t *testing.T) {
	pure, led := pureRule(false), pureRule(true)
	cases := []struct {
		r      rule
		path   string
		direct bool
		want   bool
	}{
		{pure, "net/http", true, true},
		{pure, "os", true, true},
		{pure, "os", false, false},
		{pure, "go.etcd.io/bbolt", false, true},
		{pure, "github.com/jackc/pgx/v5", false, true},
		{pure, "go.uber.org/zap", false, true},
		{pure, module + "/store", true, true},
		{pure, module + "/adapters/memstore", false, true},
		{led, module + "/store", true, false},
		{led, module + "/adapters/boltstore", true, true},
		{pure, module + "/errcode", true, false},
		{pure, "github.com/cockroachdb/apd/v3", true, false},
		{engineRule, "net/http", false, true},
		{engineRule, "net/http/httptrace", false, true},
		{engineRule, "go.uber.org/zap/zapcore", false, true},
		{engineRule, module + "/adapters/sandbox", false, true},
		{engineRule, "log/slog", true, false},
		{engineRule, module + "/store", true, false},
	}
	for _, c := range cases {
		if got := c.r.forbidden(c.path, c.direct); got != c.want {
			t.Errorf("forbidden(%s, direct=%v) = %v, want %v", c.path, c.direct, got, c.want)
		}
	}
}
