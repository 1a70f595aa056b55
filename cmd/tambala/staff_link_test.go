package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStaffInviteConsoleLink: `staff invite` prints the console's link,
// under the admin listener's address, even with -portal-url; `user
// invite` keeps the portal's.
func TestStaffInviteConsoleLink(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	out := s.ok(t, "staff", "invite", "-role", "desk", "-portal-url", s.PublicURL, "grace@example.com")
	assert.Regexp(t, `\n  `+regexp.QuoteMeta(s.AdminURL)+`/console/invitations/accept\?token=inv_\S+\n`, out)
	assert.NotContains(t, out, "/portal/invitations/accept")
	out = s.ok(t, "user", "invite", "-portal-url", s.PublicURL, s.demoOrg(t), "ada@example.com")
	assert.Regexp(t, `\n  `+regexp.QuoteMeta(s.PublicURL)+`/portal/invitations/accept\?token=inv_\S+\n`, out)
}
