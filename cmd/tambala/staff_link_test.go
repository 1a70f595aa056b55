package main

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// acceptStaffInvitation sets a password on the console's accept page
// (the admin listener's) for a staff invitation token, as the invited
// staff member does.
func (s *testServer) acceptStaffInvitation(t *testing.T, token string) {
	t.Helper()
	form := url.Values{"token": {token}, "password": {"correct-horse-battery-staple"}, "confirm": {"correct-horse-battery-staple"}}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.PostForm(s.AdminURL+"/console/invitations/accept", form)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, "/console/sign-in?accepted=1", res.Header.Get("Location"))
}
