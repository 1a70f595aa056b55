package main

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// want is what the program prints: every step at its end, with the
// corridor's rate (1750.5 MWK per USDT), the wallet fee, and balances
// that account for every step (USDT 1000 - 100 - 200 - 51; MWK 100000 +
// 350100). After the restart over the same file: the organization found
// again, the payout paid once and its create replayed, a typed refusal,
// and the same balances.
const want = `order       completed: 100.000000 USDT -> 175050.00 MWK at 1750.5
conversion  completed: 200.000000 USDT -> 350100.00 MWK at 1750.5
payout      succeeded: 50.000000 USDT to tron wallet, fee 1.000000 USDT, debited 51.000000 USDT
balance     MWK  available 450100.00, held 0.00
balance     USDT available 649.000000, held 0.000000
restart     the same organization: Acme Ltd
payout      succeeded, payments 1; created again: replayed true, same payout true
refused     The amount is below the minimum of 1000.00 MWK.
balance     MWK  available 450100.00, held 0.00
balance     USDT available 649.000000, held 0.000000
`

// TestRun runs the program's flows against the engine as it is, over a
// bbolt file that it closes and reopens: each step must reach its outcome
// (the events bring it; nothing sleeps) and print exactly its amounts,
// and the restart must find everything again.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	path := filepath.Join(t.TempDir(), "tambala.db")
	if err := run(ctx, path, &out); err != nil {
		t.Fatalf("run: %v\nprinted so far:\n%s", err, out.String())
	}
	if got := out.String(); got != want {
		t.Errorf("run printed\n%s\nwant\n%s", got, want)
	}
}

// TestDocOutput keeps the output shown in doc.go identical to want.
func TestDocOutput(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var shown strings.Builder
	for line := range strings.SplitSeq(strings.TrimSpace(want), "\n") {
		shown.WriteString("//\t" + line + "\n")
	}
	if !strings.Contains(string(src), shown.String()) {
		t.Errorf("doc.go's output differs from the program's; show:\n%s", shown.String())
	}
}

// TestLibraryOnly keeps the example a library host: none of its files
// imports HTTP, JSON or the HTTP binding.
func TestLibraryOnly(t *testing.T) {
	banned := map[string]bool{
		"net/http":      true,
		"encoding/json": true,
		"github.com/tambalapay/tambala/adapters/httpapi": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if banned[path] || strings.HasPrefix(path, "net/http/") {
				t.Errorf("%s imports %s: the example uses the engine as a library only", name, path)
			}
		}
	}
}
