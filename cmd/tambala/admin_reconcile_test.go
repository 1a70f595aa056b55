package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdminReconcile: reconcile import sends a settlement file, a second
// time says it was imported already, a malformed file is refused naming
// its lines, and reconcile show lists the lines in their groups with the
// gaps in the rail's file numbers.
func TestAdminReconcile(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	one := write("airtel-1.csv", "reference,amount,currency,status,time,file_number\nstranger,5.00,MWK,settled,2026-11-21T10:00:00Z,1\n")
	three := write("airtel-3.csv", "reference,amount,currency,status,time,file_number\nother,7,MWK,failed,2026-11-21,3\n")
	out := s.ok(t, "reconcile", "import", "momo", one)
	assert.Regexp(t, `^Imported \S+: 1 lines, file number 1\. See it with: tambala reconcile show \S+\n$`, out)
	id := regexp.MustCompile(`show (\S+)`).FindStringSubmatch(out)[1]
	assert.Equal(t, "Already imported as "+id+" (same SHA-256); nothing changed.\n", s.ok(t, "reconcile", "import", "momo", one))
	s.ok(t, "reconcile", "import", "momo", three)

	bad := write("bad.csv", "reference,amount,currency,status,time\nx,1,MWK,settled,2026-11-21\ny,lots,MWK,settled,2026-11-21\n")
	assert.Contains(t, s.fails(t, 1, "reconcile", "import", "momo", bad), "line 3: amount")
	assert.Contains(t, s.fails(t, 2, "reconcile", "import", "momo"), "missing arguments")

	show := s.ok(t, "reconcile", "show", id)
	assert.Contains(t, show, "File airtel-1.csv (momo), 1 lines")
	assert.Contains(t, show, "Missing file numbers: 2")
	assert.Regexp(t, `(?m)^2\s+file_only\s+stranger\s+5\.00 MWK\s+succeeded\s+-\s+-$`, show)
	assert.Regexp(t, `(?m)^file_number\s+file_number$`, s.ok(t, "reconcile", "mapping", "bank"))
	set := s.ok(t, "reconcile", "mapping", "bank", "-reference", "PSP Reference", "-amount", "Net", "-currency", "Ccy", "-status", "Type", "-time", "Booked")
	assert.Regexp(t, `(?m)^reference\s+PSP Reference$`, set)
	assert.Regexp(t, `(?m)^file_number\s+-$`, set)
	assert.Contains(t, s.fails(t, 1, "reconcile", "mapping", "bank", "-reference", "X"), "validation_error")

	var rep struct {
		Lines []struct{ Group string }
	}
	s.okJSON(t, &rep, "reconcile", "show", id)
	require.Len(t, rep.Lines, 1)
	assert.Equal(t, "file_only", rep.Lines[0].Group)
}
