package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/wire"
)

// apiCall calls the server's API at url with bearer and body (nil: none)
// and returns the status and the decoded answer.
func apiCall(t *testing.T, method, url, bearer string, body any) (int, map[string]any) {
	t.Helper()
	return publicCall(t, method, url, bearer, "", body)
}

// adminGet is GET on the admin API, which must answer 200.
func (s *testServer) adminGet(t *testing.T, path string) map[string]any {
	t.Helper()
	status, out := apiCall(t, "GET", s.AdminURL+path, s.Token, nil)
	require.Equal(t, http.StatusOK, status, "GET %s: %v", path, out)
	return out
}

// ok runs an admin command that must succeed and returns its stdout.
func (s *testServer) ok(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := s.admin(t, args...)
	require.Equal(t, 0, code, "%v: stdout %s\nstderr %s", args, out, errOut)
	assert.Empty(t, errOut)
	return out
}

// okJSON runs an admin command with -json, which must succeed, and
// decodes its stdout into v.
func (s *testServer) okJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	w := commandWords(args)
	args = append(append(append([]string{}, args[:w]...), "-json"), args[w:]...)
	out := s.ok(t, args...)
	require.NoError(t, json.Unmarshal([]byte(out), v), out)
}

// fails runs an admin command that must exit with code and returns its
// stderr; stdout stays empty.
func (s *testServer) fails(t *testing.T, code int, args ...string) string {
	t.Helper()
	got, out, errOut := s.admin(t, args...)
	require.Equal(t, code, got, "%v: stdout %s\nstderr %s", args, out, errOut)
	assert.Empty(t, out)
	return errOut
}

// demoOrg is the id of the server's demo organization.
func (s *testServer) demoOrg(t *testing.T) string {
	t.Helper()
	var list wire.Organizations
	s.okJSON(t, &list, "org", "list")
	for _, o := range list.Organizations {
		if o.Name == "Demo Organization" {
			return o.ID
		}
	}
	t.Fatalf("no demo organization in %+v", list)
	return ""
}

// TestAdminOrgsAndKeys: org create, list and show; key create, list and
// revoke, the key working on the public API until it is revoked.
func TestAdminOrgsAndKeys(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")

	out := s.ok(t, "org", "create", "-asset", "MWK:payout,collection", "-asset", "USDT:convert", "-v2", "enabled", "-balance-floor", "100", "Acme Ltd")
	assert.Contains(t, out, `Created organization "Acme Ltd".`)
	assert.Regexp(t, `(?m)^V2 access\s+enabled$`, out)
	assert.Regexp(t, `(?m)^Assets\s+MWK: collection,payout\n\s+USDT: convert$`, out)
	assert.Regexp(t, `(?m)^Balance floor\s+100\.00 MWK$`, out)
	id := regexp.MustCompile(`(?m)^ID\s+(\S+)$`).FindStringSubmatch(out)[1]

	// Flags after the arguments, and -json: the API's answer.
	var created wire.Organization
	s.okJSON(t, &created, "org", "create", "Beta", "-v2", "access_suspended")
	assert.Equal(t, "Beta", created.Name)
	assert.Equal(t, "access_suspended", created.V2Access)
	assert.NotEmpty(t, created.ID)

	out = s.ok(t, "org", "list")
	assert.Regexp(t, `(?m)^ID\s+NAME\s+STATUS\s+V2 ACCESS\s+ASSETS\s+CREATED$`, out)
	assert.Regexp(t, `(?m)^`+id+`\s+Acme Ltd\s+active\s+enabled\s+MWK,USDT\s+\S+$`, out)
	assert.Contains(t, out, "Demo Organization")
	var list wire.Organizations
	s.okJSON(t, &list, "org", "list")
	assert.Len(t, list.Organizations, 3)

	out = s.ok(t, "org", "show", id)
	assert.Regexp(t, `(?m)^Name\s+Acme Ltd$`, out)
	assert.Regexp(t, `(?m)^IP allowlist\s+- \(any address\)$`, out)
	var shown wire.Organization
	s.okJSON(t, &shown, "org", "show", created.ID)
	assert.Equal(t, created, shown)
	got := s.adminGet(t, "/admin/orgs/"+id)
	assert.Equal(t, "100.00", got["balance_floor_mwk"])

	// The API's errors: its message and code on stderr, exit status 1.
	errOut := s.fails(t, 1, "org", "show", "no-such-org")
	assert.Equal(t, "tambala org show: No such resource. (404 not_found)\n", errOut)
	errOut = s.fails(t, 1, "org", "create", "-asset", "XYZ:payout", "Gamma")
	assert.Contains(t, errOut, "unsupported_asset")
	errOut = s.fails(t, 1, "org", "create", "-v2", "sometimes", "Gamma")
	assert.Contains(t, errOut, "v2 access must be")
	// Wrong command lines: exit status 2.
	assert.Contains(t, s.fails(t, 2, "org", "create"), "missing arguments: want NAME")
	assert.Contains(t, s.fails(t, 2, "org", "create", "A", "B"), `unexpected arguments ["B"]`)
	assert.Contains(t, s.fails(t, 2, "org", "create", "-asset", "MWK", "A"), `-asset "MWK": want ASSET:OP,OP`)
	assert.Contains(t, s.fails(t, 2, "org", "show"), "missing arguments: want ORG")
	assert.Contains(t, s.fails(t, 2, "org", "list", "x"), "unexpected arguments")
	assert.Contains(t, s.fails(t, 2, "org", "list", "-bogus"), "flag provided but not defined: -bogus")

	// Keys.
	out = s.ok(t, "key", "create", id)
	m := regexp.MustCompile(`(?m)^API key \(shown once, store it now\): (tmb_\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	key := m[1]
	status, ping := apiCall(t, "GET", s.PublicURL+"/v1/ping", key, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "Acme Ltd", ping["org"])

	var k2 wire.Key
	s.okJSON(t, &k2, "key", "create", id)
	assert.True(t, strings.HasPrefix(k2.Key, k2.Prefix), "%+v", k2)
	assert.Equal(t, id, k2.Org)

	out = s.ok(t, "key", "list", id)
	assert.Regexp(t, `(?m)^ID\s+PREFIX\s+ENVIRONMENT\s+CREATED\s+REVOKED$`, out)
	assert.Regexp(t, `(?m)^`+k2.ID+`\s+`+k2.Prefix+`\s+sandbox\s+\S+\s+-$`, out)
	assert.NotContains(t, out, key, "the full key is never listed")
	var keys wire.Keys
	s.okJSON(t, &keys, "key", "list", id)
	require.Len(t, keys.Keys, 2)

	out = s.ok(t, "key", "revoke", id, k2.ID)
	assert.Contains(t, out, "Revoked API key "+k2.ID+" ("+k2.Prefix+") at ")
	status, _ = apiCall(t, "GET", s.PublicURL+"/v1/ping", k2.Key, nil)
	assert.Equal(t, http.StatusUnauthorized, status)
	// The other key by its prefix, -json.
	var revoked wire.Key
	first := keys.Keys[0]
	if first.ID == k2.ID {
		first = keys.Keys[1]
	}
	s.okJSON(t, &revoked, "key", "revoke", id, first.Prefix)
	assert.Equal(t, first.ID, revoked.ID)
	require.NotNil(t, revoked.RevokedAt)
	status, _ = apiCall(t, "GET", s.PublicURL+"/v1/ping", key, nil)
	assert.Equal(t, http.StatusUnauthorized, status)
	out = s.ok(t, "key", "list", id)
	assert.NotRegexp(t, `\s-\n`, out, "every key revoked:\n%s", out)

	assert.Contains(t, s.fails(t, 1, "key", "create", "no-such-org"), "not_found")
	assert.Contains(t, s.fails(t, 1, "key", "revoke", id, "no-such-key"), "not_found")
	assert.Contains(t, s.fails(t, 2, "key", "revoke", id), "missing arguments: want ORG KEY")
	assert.Contains(t, s.fails(t, 2, "key", "list"), "missing arguments")
}

// TestAdminInvites: user invite and staff invite print the one-time token
// and link; the invitations are on the admin API.
func TestAdminInvites(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)

	out := s.ok(t, "user", "invite", org, "ada@example.com")
	assert.Regexp(t, `(?m)^Email\s+ada@example\.com$`, out)
	assert.Regexp(t, `(?m)^Role\s+org_admin$`, out)
	assert.Regexp(t, `(?m)^Organization\s+`+org+`$`, out)
	tok := regexp.MustCompile(`(?m)^Token \(shown once\): (inv_\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, tok, out)
	assert.Contains(t, out, "\n  /portal/invitations/accept?token="+tok[1]+"\n")

	// -portal-url makes the link whole; so does TAMBALA_PUBLIC_URL.
	out = s.ok(t, "user", "invite", "-portal-url", s.PublicURL+"/", org, "bob@example.com")
	assert.Regexp(t, `\n  `+regexp.QuoteMeta(s.PublicURL)+`/portal/invitations/accept\?token=inv_\S+\n`, out)
	code, out, errOut := tambala(t, []string{"TAMBALA_PUBLIC_URL=" + s.PublicURL, "TAMBALA_ADMIN_TOKEN=" + s.Token},
		"user", "invite", "-admin-url", s.AdminURL, org, "cy@example.com")
	require.Equal(t, 0, code, errOut)
	link := regexp.MustCompile(`\n  (http://\S+)\n`).FindStringSubmatch(out)
	require.NotNil(t, link, out)
	res, err := http.Get(link[1])
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode, "the portal's accept page answers the link")

	var inv wire.NewInvitation
	s.okJSON(t, &inv, "user", "invite", org, "dee@example.com")
	assert.Equal(t, "dee@example.com", inv.Invitation.Email)
	assert.True(t, strings.HasPrefix(inv.Token, "inv_"))
	assert.Contains(t, inv.AcceptPath, inv.Token)

	list := s.adminGet(t, "/admin/orgs/"+org+"/invitations")["invitations"].([]any)
	var emails []string
	for _, i := range list {
		emails = append(emails, i.(map[string]any)["email"].(string))
	}
	assert.Subset(t, emails, []string{"ada@example.com", "bob@example.com", "cy@example.com", "dee@example.com"})

	assert.Equal(t, "tambala user invite: No such resource. (404 not_found)\n", s.fails(t, 1, "user", "invite", "no-such-org", "x@example.com"))
	assert.Contains(t, s.fails(t, 1, "user", "invite", org, "not-an-email"), "validation_error")
	assert.Contains(t, s.fails(t, 2, "user", "invite", org), "missing arguments: want ORG EMAIL")

	// Staff.
	out = s.ok(t, "staff", "invite", "ops@example.com", "-role", "admin,desk")
	assert.Regexp(t, `(?m)^Staff roles\s+admin,desk$`, out)
	assert.NotContains(t, out, "Organization")
	assert.Regexp(t, `(?m)^Token \(shown once\): inv_\S+$`, out)
	var staff wire.NewInvitation
	s.okJSON(t, &staff, "staff", "invite", "-role", "support", "sup@example.com")
	assert.Equal(t, []string{"support"}, staff.Invitation.StaffRoles)
	assert.Nil(t, staff.Invitation.Org)
	list = s.adminGet(t, "/admin/staff/invitations")["invitations"].([]any)
	assert.Len(t, list, 2)

	assert.Contains(t, s.fails(t, 2, "staff", "invite", "ops2@example.com"), "-role is required")
	assert.Contains(t, s.fails(t, 1, "staff", "invite", "-role", "janitor", "ops2@example.com"), "validation_error")
	assert.Contains(t, s.fails(t, 2, "staff", "invite", "-role", "desk"), "missing arguments: want EMAIL")
}

// TestAdminFund: a funding credits the balance once per reference; above
// the asset's approval threshold it prints the pending approval (exit 0),
// which approvals list shows.
func TestAdminFund(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)
	balance := func() string {
		status, b := apiCall(t, "GET", s.PublicURL+"/v1/balance", s.DemoKey, nil)
		require.Equal(t, http.StatusOK, status)
		return b["available"].(string)
	}
	require.Equal(t, "1000000.00", balance())

	out := s.ok(t, "fund", "-ref", "wire-1", org, "2500.50", "MWK")
	assert.Equal(t, "Credited 2500.50 MWK to "+org+" (ref wire-1).\n", out)
	assert.Equal(t, "1002500.50", balance())
	// The same reference again: credited once. Flags after the arguments.
	var again struct {
		Org, Asset, Amount, Ref string
	}
	s.okJSON(t, &again, "fund", org, "2500.50", "MWK", "-ref", "wire-1")
	assert.Equal(t, "2500.50", again.Amount)
	assert.Equal(t, "1002500.50", balance())

	// Above the threshold: pending, nothing credited.
	status, _ := apiCall(t, "PUT", s.AdminURL+"/admin/approval-thresholds/MWK", s.Token, map[string]any{"threshold": "10000.00"})
	require.Equal(t, http.StatusOK, status)
	out = s.ok(t, "fund", "-ref", "wire-2", org, "50000.00", "MWK")
	assert.Contains(t, out, "Approval pending: funding 50000.00 MWK to "+org+" (ref wire-2) is above the MWK approval threshold.")
	m := regexp.MustCompile(`(?m)^Approval: (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, "1002500.50", balance())
	got := s.adminGet(t, "/admin/approvals/"+m[1])
	assert.Equal(t, "pending", got["status"])
	assert.Equal(t, "50000.00", got["amount"])

	var pending wire.Pending
	s.okJSON(t, &pending, "fund", "-ref", "wire-3", org, "20000", "MWK")
	assert.Equal(t, "pending", pending.Approval.Status)
	assert.Equal(t, "20000.00", pending.Approval.Amount)
	assert.Equal(t, "wire-3", pending.Approval.Details["ref"])

	out = s.ok(t, "approvals", "list", "-status", "pending")
	assert.Regexp(t, `(?m)^ID\s+KIND\s+ORG\s+AMOUNT\s+ASSET\s+ROLE\s+STATUS\s+REQUESTED BY\s+REQUESTED$`, out)
	assert.Regexp(t, `(?m)^`+m[1]+`\s+funding\s+`+org+`\s+50000\.00\s+MWK\s+operations\s+pending\s+automation\s+\S+$`, out)
	var aps wire.Approvals
	s.okJSON(t, &aps, "approvals", "list", "-limit", "1")
	require.Len(t, aps.Approvals, 1)
	assert.True(t, aps.HasMore)
	assert.Contains(t, s.ok(t, "approvals", "list", "-limit", "1"), "More: run again with -before ")
	assert.Equal(t, "No approvals.\n", s.ok(t, "approvals", "list", "-status", "approved"))
	assert.Contains(t, s.fails(t, 1, "approvals", "list", "-status", "maybe"), "validation_error")

	// The thresholds.
	assert.Regexp(t, `(?m)^MWK\s+10000\.00$`, s.ok(t, "approvals", "threshold"))
	assert.Equal(t, "The USDT approval threshold is 5.000000 USDT.\n", s.ok(t, "approvals", "threshold", "USDT", "5"))
	assert.Equal(t, "The USDT approval threshold is 5.000000 USDT.\n", s.ok(t, "approvals", "threshold", "USDT"))
	assert.Equal(t, "Removed the USDT approval threshold.\n", s.ok(t, "approvals", "threshold", "USDT", "none"))
	assert.Equal(t, "USDT has no approval threshold.\n", s.ok(t, "approvals", "threshold", "USDT"))
	var th struct{ Thresholds map[string]string }
	s.okJSON(t, &th, "approvals", "threshold")
	assert.Equal(t, map[string]string{"MWK": "10000.00"}, th.Thresholds)

	assert.Contains(t, s.fails(t, 1, "fund", "-ref", "x", "no-such-org", "10.00", "MWK"), "No such resource. (404 not_found)")
	assert.Contains(t, s.fails(t, 1, "fund", "-ref", "x", org, "ten", "MWK"), "validation_error")
	assert.Contains(t, s.fails(t, 2, "fund", org, "10.00", "MWK"), "-ref is required")
	assert.Contains(t, s.fails(t, 2, "fund", "-ref", "x", org, "10.00"), "missing arguments: want ORG AMOUNT ASSET")
	assert.Contains(t, s.fails(t, 2, "fund", "-ref", "x", org, "10.00", "MWK", "more"), "unexpected arguments")
}

// TestAdminCorridorWebhookPause: corridor list and set (the flags given
// change, the rest stay), webhook set (the secret once), pause.
func TestAdminCorridorWebhookPause(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)

	out := s.ok(t, "corridor", "list")
	assert.Regexp(t, `(?m)^ASSET\s+RATE OFF-RAMP\s+RATE ON-RAMP\s+MIN\s+MAX\s+OPEN$`, out)
	assert.Regexp(t, `(?m)^MWK\s+1750\.5\s+1800\s+1000\.00\s+-\s+true$`, out)

	out = s.ok(t, "corridor", "set", "-rate-off-ramp", "1760.25", "-max", "50000", "MWK")
	assert.Regexp(t, `(?m)^MWK\s+1760\.25\s+1800\s+1000\.00\s+50000\.00\s+true$`, out)
	got := s.adminGet(t, "/admin/corridors")["corridors"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"asset": "MWK", "rate_off_ramp": "1760.25", "rate_on_ramp": "1800", "min": "1000.00", "max": "50000.00", "open": true}, got)

	var cs wire.Corridors
	s.okJSON(t, &cs, "corridor", "set", "MWK", "-rate-on-ramp", "none", "-max", "none", "-open=false")
	require.Len(t, cs.Corridors, 1)
	assert.Nil(t, cs.Corridors[0].RateOnRamp)
	assert.Nil(t, cs.Corridors[0].Max)
	assert.False(t, cs.Corridors[0].Open)
	require.NotNil(t, cs.Corridors[0].RateOffRamp)
	assert.Equal(t, "1760.25", *cs.Corridors[0].RateOffRamp)
	s.okJSON(t, &cs, "corridor", "list")
	assert.False(t, cs.Corridors[0].Open)

	assert.Contains(t, s.fails(t, 1, "corridor", "set", "-min", "1", "USDT"), "validation_error")
	assert.Contains(t, s.fails(t, 1, "corridor", "set", "-min", "-5", "MWK"), "validation_error")
	assert.Contains(t, s.fails(t, 2, "corridor", "set", "MWK"), "nothing to set")
	assert.Contains(t, s.fails(t, 2, "corridor", "set", "-open"), "missing arguments: want ASSET")

	// Webhooks.
	out = s.ok(t, "webhook", "set", org, "https://hooks.example.com/tambala")
	m := regexp.MustCompile(`(?m)^Signing secret \(shown once, store it now\): (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Regexp(t, `(?m)^URL\s+https://hooks\.example\.com/tambala$`, out)
	var ep wire.Endpoint
	s.okJSON(t, &ep, "webhook", "set", org, "https://hooks.example.com/v2")
	assert.Equal(t, "https://hooks.example.com/v2", ep.URL)
	assert.NotEmpty(t, ep.SecretID)
	assert.NotEqual(t, m[1], ep.Secret, "a new secret each time")
	assert.Equal(t, "tambala webhook set: No such resource. (404 not_found)\n", s.fails(t, 1, "webhook", "set", "no-such-org", "https://hooks.example.com"))
	assert.Contains(t, s.fails(t, 1, "webhook", "set", org, "not a url"), "validation_error")
	assert.Contains(t, s.fails(t, 2, "webhook", "set", org), "missing arguments: want ORG URL")

	// Pause.
	assert.Regexp(t, `^API\s+MODE\nv1\s+live\nv2\s+live\n$`, s.ok(t, "pause"))
	assert.Regexp(t, `^API\s+MODE\nv1\s+live\nv2\s+maintenance\n$`, s.ok(t, "pause", "-v2", "maintenance"))
	assert.Equal(t, map[string]any{"v1": "live", "v2": "maintenance"}, s.adminGet(t, "/admin/pause"))
	var p struct{ V1, V2 string }
	s.okJSON(t, &p, "pause", "-v1", "incident", "-v2", "live")
	assert.Equal(t, struct{ V1, V2 string }{"incident", "live"}, p)
	status, _ := apiCall(t, "GET", s.PublicURL+"/v1/balance", s.DemoKey, nil)
	assert.Equal(t, http.StatusServiceUnavailable, status, "/v1 paused")
	s.okJSON(t, &p, "pause")
	assert.Equal(t, "incident", p.V1)
	s.ok(t, "pause", "-v1", "live")
	status, _ = apiCall(t, "GET", s.PublicURL+"/v1/balance", s.DemoKey, nil)
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, s.fails(t, 1, "pause", "-v1", "nap"), "mode must be live, maintenance or incident")
	assert.Contains(t, s.fails(t, 2, "pause", "v1"), "unexpected arguments")
	assert.Contains(t, s.fails(t, 2, "pause", "-v2", ""), "-v2: want live, maintenance or incident")
}

// TestAdminToken: the admin URL and token from the environment, the token
// from -data DIR/admin-token; none, or a wrong one, is an error.
func TestAdminToken(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")

	code, out, errOut := tambala(t, []string{"TAMBALA_ADMIN_URL=" + s.AdminURL, "TAMBALA_ADMIN_TOKEN=" + s.Token}, "org", "list")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Demo Organization")

	addr := strings.TrimPrefix(s.AdminURL, "http://")
	code, out, errOut = tambala(t, []string{"TAMBALA_ADMIN_ADDR=" + addr}, "pause", "-data", s.Data)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "v1   live")
	code, out, errOut = tambala(t, []string{"TAMBALA_DATA=" + s.Data}, "org", "list", "-admin-url", s.AdminURL)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Demo Organization")
	b, err := os.ReadFile(filepath.Join(s.Data, "admin-token"))
	require.NoError(t, err)
	assert.Equal(t, s.Token, strings.TrimSpace(string(b)))

	code, out, errOut = tambala(t, nil, "org", "list", "-admin-url", s.AdminURL, "-data", t.TempDir())
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "tambala org list: no admin token: give -admin-token, set TAMBALA_ADMIN_TOKEN")
	code, _, errOut = tambala(t, []string{"TAMBALA_ADMIN_TOKEN=adm_wrong"}, "org", "list", "-admin-url", s.AdminURL)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "unauthorized")
	code, _, errOut = tambala(t, []string{"TAMBALA_ADMIN_TOKEN=" + s.Token}, "org", "list", "-admin-url", "ftp://x")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "-admin-url")
}

// TestAdminHelp: every admin command's -h says what it does, with the
// admin flags.
func TestAdminHelp(t *testing.T) {
	for _, c := range adminCommands {
		code, out, errOut := tambala(t, nil, append(strings.Fields(c.name), "-h")...)
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "Usage: tambala "+c.name+" [flags]")
		assert.Contains(t, errOut, "-admin-url")
		assert.Contains(t, errOut, "-json")
		about := strings.SplitN(errOut, "\n\n", 3)
		require.Len(t, about, 3, errOut)
		assert.Greater(t, len(about[1]), 40, "%s: an about text", c.name)
	}
}

// TestAdminPostgres: a few commands on a server over PostgreSQL.
func TestAdminPostgres(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", storeFlag(t, "postgres"))
	var o wire.Organization
	s.okJSON(t, &o, "org", "create", "-asset", "MWK:payout", "Pg Org")
	assert.Regexp(t, `(?m)^`+o.ID+`\s+Pg Org\s+active`, s.ok(t, "org", "list"))
	out := s.ok(t, "key", "create", o.ID)
	key := regexp.MustCompile(`(tmb_\S+)`).FindString(out)
	status, _ := apiCall(t, "GET", s.PublicURL+"/v1/ping", key, nil)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "Credited 10.00 MWK to "+o.ID+" (ref pg-1).\n", s.ok(t, "fund", "-ref", "pg-1", o.ID, "10", "MWK"))
	status, b := apiCall(t, "GET", s.PublicURL+"/v1/balance", key, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "10.00", b["available"])
	s.ok(t, "approvals", "threshold", "MWK", "5")
	assert.Contains(t, s.ok(t, "fund", "-ref", "pg-2", o.ID, "10", "MWK"), "Approval pending")
	assert.Contains(t, s.ok(t, "pause", "-v2", "incident"), "v2   incident")
	assert.Contains(t, s.fails(t, 1, "org", "show", "no-such-org"), "not_found")
}
