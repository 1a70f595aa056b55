package main

import (
	encsv "encoding/csv"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdminOrgStatement: tambala org statement shows a page of an
// organization's statement with its opening and closing balances, pages
// on with -after, and with -csv writes the lines as CSV with the v1
// columns; an unknown organization fails with the API's answer.
func TestAdminOrgStatement(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)
	s.ok(t, "fund", "-ref", "wire-1", org, "2500", "MWK")
	s.ok(t, "fund", "-ref", "=wire-2", org, "10.50", "MWK")

	out := s.ok(t, "org", "statement", org, "MWK")
	assert.Regexp(t, `(?m)^Opening: available \S+, held 0\.00 MWK$`, out)
	assert.Regexp(t, `(?m)^BOOKED\s+KIND\s+RESOURCE\s+AVAILABLE\s+HELD\s+AVAILABLE AFTER\s+HELD AFTER$`, out)
	assert.Regexp(t, `(?m)\sfunding\s+wire-1\s+2500\.00\s+0\.00\s`, out)
	assert.Regexp(t, `(?m)^Closing: available \S+, held 0\.00 MWK$`, out)

	out = s.ok(t, "org", "statement", "-limit", "1", org, "MWK")
	m := regexp.MustCompile(`(?m)^More lines: add -after (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	next := s.ok(t, "org", "statement", "-limit", "1", "-after", m[1], org, "MWK")
	assert.NotEqual(t, out, next)

	out = s.ok(t, "org", "statement", "-csv", "-from", "2000-01-01", org, "MWK")
	rows, err := encsv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err, out)
	require.GreaterOrEqual(t, len(rows), 3)
	assert.Equal(t, "entry_id,booked_at,kind,resource_id,asset,available_change,held_change,available_after,held_after", strings.Join(rows[0], ","))
	assert.Equal(t, "'=wire-2", rows[len(rows)-1][3])
	assert.Equal(t, "10.50", rows[len(rows)-1][5])

	assert.Contains(t, s.fails(t, 1, "org", "statement", "no-such-org", "MWK"), "(404 not_found)")
	assert.Contains(t, s.fails(t, 1, "org", "statement", "-csv", "no-such-org", "MWK"), "(404 not_found)")
}
