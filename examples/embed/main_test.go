package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// TestMain_PayoutSucceeds runs the program as the README shows it and
// checks that its payout reached succeeded: the README's copy of main.go
// keeps compiling and keeps working with the engine as it is.
func TestMain_PayoutSucceeds(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = stdout }()

	main()
	w.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != "payout succeeded fee 282.00\n" {
		t.Errorf("main printed %q, want the payout succeeded with the schedule's fee", got)
	}
}

// TestProgramIsShort keeps the embedding example readable in one glance:
// a whole host in at most 30 lines.
func TestProgramIsShort(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > 30 {
		t.Errorf("main.go has %d lines; the README's host is at most 30", n)
	}
}

// TestReadmeCopy keeps the README's "Embed it" program identical to
// main.go.
func TestReadmeCopy(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(src)+"```\n") {
		t.Error("README.md's \"Embed it\" program differs from examples/embed/main.go; copy main.go into it")
	}
}
