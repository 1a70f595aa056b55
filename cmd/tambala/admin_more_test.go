package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/wire"
)

// TestAdminOrgSettings: org status, v2-access, assets, floor, allowlist,
// limits and totp-required change what the admin API and the public API
// see; -json prints the organization; refused calls exit 1, wrong command
// lines 2.
func TestAdminOrgSettings(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)
	ping := func() int {
		status, _ := apiCall(t, "GET", s.PublicURL+"/v1/ping", s.DemoKey, nil)
		return status
	}
	require.Equal(t, http.StatusOK, ping())

	// Status.
	out := s.ok(t, "org", "status", org, "suspended")
	assert.Regexp(t, `(?m)^Status\s+suspended$`, out)
	assert.Equal(t, "suspended", s.adminGet(t, "/admin/orgs/"+org)["status"])
	assert.NotEqual(t, http.StatusOK, ping(), "a suspended organization's key is refused")
	var o wire.Organization
	s.okJSON(t, &o, "org", "status", org, "active")
	assert.Equal(t, "active", o.Status)
	assert.Equal(t, http.StatusOK, ping())
	assert.Equal(t, "tambala org status: status must be active or suspended (400 validation_error)\n", s.fails(t, 1, "org", "status", org, "asleep"))
	assert.Contains(t, s.fails(t, 1, "org", "status", "no-such-org", "active"), "(404 not_found)")
	assert.Contains(t, s.fails(t, 2, "org", "status", org), "missing arguments: want ORG active|suspended")

	// /v2 access.
	assert.Regexp(t, `(?m)^V2 access\s+access_suspended$`, s.ok(t, "org", "v2-access", org, "access_suspended"))
	assert.Equal(t, "access_suspended", s.adminGet(t, "/admin/orgs/"+org)["v2_access"])
	s.okJSON(t, &o, "org", "v2-access", "-json", org, "enabled")
	assert.Equal(t, "enabled", o.V2Access)
	assert.Contains(t, s.fails(t, 1, "org", "v2-access", org, "sometimes"), "validation_error")
	assert.Contains(t, s.fails(t, 2, "org", "v2-access", org, "enabled", "x"), `unexpected arguments ["x"]`)

	// Assets.
	out = s.ok(t, "org", "assets", org, "-asset", "MWK:payout,collection", "-asset", "USDT:convert")
	assert.Regexp(t, `(?m)^Assets\s+MWK: collection,payout\n\s+USDT: convert$`, out)
	got := s.adminGet(t, "/admin/orgs/"+org)["assets"].([]any)
	assert.Equal(t, []any{"convert"}, got[1].(map[string]any)["operations"])
	s.okJSON(t, &o, "org", "assets", "-asset", "MWK:payout,collection", "-asset", "USDT:payout,collection,convert", org)
	assert.Equal(t, "MWK,USDT", assetCodes(o))
	assert.Contains(t, s.fails(t, 1, "org", "assets", org, "-asset", "XYZ:payout"), "unsupported_asset")
	assert.Contains(t, s.fails(t, 2, "org", "assets", org), "-asset is required")
	assert.Contains(t, s.fails(t, 2, "org", "assets", org, "-asset", "MWK"), `-asset "MWK": want ASSET:OP,OP`)

	// Balance floor.
	assert.Regexp(t, `(?m)^Balance floor\s+2500\.00 MWK$`, s.ok(t, "org", "floor", org, "2500"))
	assert.Equal(t, "2500.00", s.adminGet(t, "/admin/orgs/"+org)["balance_floor_mwk"])
	var unfloored wire.Organization // a fresh one: the answer leaves out a floor removed
	s.okJSON(t, &unfloored, "org", "floor", org, "none")
	assert.Empty(t, unfloored.BalanceFloorMWK)
	assert.Regexp(t, `(?m)^Balance floor\s+-$`, s.ok(t, "org", "show", org))
	assert.Contains(t, s.fails(t, 1, "org", "floor", org, "lots"), "validation_error")
	assert.Contains(t, s.fails(t, 1, "org", "floor", "no-such-org", "10"), "not_found")
	assert.Contains(t, s.fails(t, 2, "org", "floor", org), "missing arguments: want ORG AMOUNT|none")

	// IP allowlist: an address the test does not call from shuts the key out.
	out = s.ok(t, "org", "allowlist", org, "203.0.113.7", "2001:db8::7")
	assert.Regexp(t, `^ADDRESS\n(203\.0\.113\.7\n2001:db8::7|2001:db8::7\n203\.0\.113\.7)\n$`, out)
	assert.ElementsMatch(t, []any{"203.0.113.7", "2001:db8::7"}, s.adminGet(t, "/admin/orgs/"+org)["ip_allowlist"])
	assert.NotEqual(t, http.StatusOK, ping(), "a call from outside the allowlist is refused")
	assert.Equal(t, "Demo Organization ("+org+") accepts calls from any address.\n", s.ok(t, "org", "allowlist", org))
	assert.Equal(t, http.StatusOK, ping())
	s.okJSON(t, &o, "org", "allowlist", org, "127.0.0.1")
	assert.Equal(t, []string{"127.0.0.1"}, o.Allowlist)
	assert.Equal(t, http.StatusOK, ping())
	assert.Contains(t, s.fails(t, 1, "org", "allowlist", org, "10.0.0.0/8"), "only exact addresses are allowed (400 validation_error)")
	assert.Contains(t, s.fails(t, 2, "org", "allowlist"), "missing arguments: want ORG [ADDR...]")

	// Payout limits: the flags given change, the rest stay.
	out = s.ok(t, "org", "limits", org, "-max-per-payout", "500000", "-hourly-count", "10")
	assert.Regexp(t, `(?m)^Payout limits\s+per payout 500000\.00 MWK, daily - MWK, hourly count 10$`, out)
	s.ok(t, "org", "limits", "-daily-volume", "900000", org)
	limits := s.adminGet(t, "/admin/orgs/"+org)["payout_limits"].(map[string]any)
	assert.Equal(t, "500000.00", limits["max_per_payout_mwk"])
	assert.Equal(t, "900000.00", limits["daily_volume_mwk"])
	assert.Equal(t, float64(10), limits["hourly_count"])
	s.okJSON(t, &o, "org", "limits", org, "-max-per-payout", "none")
	require.NotNil(t, o.PayoutLimits)
	assert.Empty(t, o.PayoutLimits.MaxPerPayoutMWK)
	assert.Equal(t, "900000.00", o.PayoutLimits.DailyVolumeMWK)
	assert.Equal(t, 10, o.PayoutLimits.HourlyCount)
	assert.Contains(t, s.fails(t, 1, "org", "limits", org, "-hourly-count", "-1"), "hourly_count must not be negative (400 validation_error)")
	assert.Contains(t, s.fails(t, 1, "org", "limits", "no-such-org", "-hourly-count", "1"), "not_found")
	assert.Contains(t, s.fails(t, 2, "org", "limits", org), "nothing to set")
	assert.Contains(t, s.fails(t, 2, "org", "limits", org, "-hourly-count", "many"), "invalid value")

	// TOTP required.
	assert.Equal(t, "The portal users of "+org+" must sign in with TOTP.\n", s.ok(t, "org", "totp-required", org, "true"))
	assert.Equal(t, true, s.adminGet(t, "/admin/orgs/"+org+"/users")["totp_required"])
	assert.Contains(t, s.ok(t, "user", "list", org), "TOTP required: true\n")
	var totp wire.TOTPRequired
	s.okJSON(t, &totp, "org", "totp-required", org, "false")
	assert.Equal(t, org, totp.Org)
	assert.False(t, totp.TOTPRequired)
	assert.Equal(t, false, s.adminGet(t, "/admin/orgs/"+org+"/users")["totp_required"])
	assert.Contains(t, s.fails(t, 1, "org", "totp-required", "no-such-org", "true"), "not_found")
	assert.Contains(t, s.fails(t, 2, "org", "totp-required", org, "maybe"), `"maybe": want true or false`)

	// The changes are on the audit trail, the operator's token their actor.
	out = s.ok(t, "audit", "-org", org, "-action", "org.status_changed")
	assert.Regexp(t, `(?m)^TIME\s+ACTOR\s+ACTION\s+TARGET\s+SUMMARY$`, out)
	assert.Regexp(t, `(?m)^\S+\s+automation\s+org\.status_changed\s+`+org+`\s+\S`, out)
	assert.Len(t, regexp.MustCompile(`(?m)org\.status_changed`).FindAllString(out, -1), 2, out)
}

// TestAdminDepositApprovalsAudit: deposit record credits a /v2
// collection once per transaction; above the threshold it prints the
// pending approval, which approvals show reads and approvals reject
// decides; audit lists and narrows the trail.
func TestAdminDepositApprovalsAudit(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)

	out := s.ok(t, "deposit", "record", org, "-network", "tron", "-asset", "USDT", "-amount", "25", "-tx-ref", "0xabc")
	assert.Contains(t, out, "Recorded deposit 25.000000 USDT to "+org+" (network tron, tx 0xabc).\n")
	assert.Regexp(t, `(?m)^Credited\s+25\.000000 USDT$`, out)
	id := regexp.MustCompile(`(?m)^Collection\s+(\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, id, out)
	status, col := apiCall(t, "GET", s.PublicURL+"/v2/collections/"+id[1], s.DemoKey, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "settled", col["status"])
	assert.Equal(t, "deposit", col["source"])
	// The same transaction again: the same collection. -json.
	var again wire.CollectionV2
	s.okJSON(t, &again, "deposit", "record", "-network", "tron", "-asset", "USDT", "-amount", "25", "-tx-ref", "0xabc", org)
	assert.Equal(t, id[1], again.ID)
	assert.Equal(t, "25.000000", again.AmountCredited)

	assert.Contains(t, s.fails(t, 1, "deposit", "record", org, "-network", "nope", "-asset", "USDT", "-amount", "1", "-tx-ref", "x"),
		`The network "nope" is not supported. (422 unsupported_network)`)
	assert.Contains(t, s.fails(t, 1, "deposit", "record", "no-such-org", "-network", "tron", "-asset", "USDT", "-amount", "1", "-tx-ref", "x"), "not_found")
	assert.Contains(t, s.fails(t, 2, "deposit", "record", org, "-network", "tron", "-asset", "USDT", "-amount", "1"), "-tx-ref is required")
	assert.Contains(t, s.fails(t, 2, "deposit", "record", "-network", "tron"), "missing arguments: want ORG")

	// Above the threshold: pending.
	s.ok(t, "approvals", "threshold", "USDT", "10")
	out = s.ok(t, "deposit", "record", org, "-network", "ethereum", "-asset", "USDT", "-amount", "50", "-tx-ref", "0xbig")
	assert.Contains(t, out, "Approval pending: deposit 50.000000 USDT to "+org+" (network ethereum, tx 0xbig) is above the USDT approval threshold.")
	m := regexp.MustCompile(`(?m)^Approval: (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	ap := m[1]
	var pending wire.Pending
	s.okJSON(t, &pending, "deposit", "record", org, "-network", "ethereum", "-asset", "USDT", "-amount", "60", "-tx-ref", "0xbig2")
	assert.Equal(t, "pending", pending.Approval.Status)
	assert.Equal(t, "0xbig2", pending.Approval.Details["tx_ref"])

	out = s.ok(t, "approvals", "show", ap)
	assert.Regexp(t, `(?m)^Kind\s+deposit$`, out)
	assert.Regexp(t, `(?m)^Amount\s+50\.000000 USDT$`, out)
	assert.Regexp(t, `(?m)^Details\s+network: ethereum\n\s+tx_ref: 0xbig$`, out)
	assert.Regexp(t, `(?m)^Status\s+pending$`, out)
	assert.NotContains(t, out, "Decided")
	var shown wire.Approval
	s.okJSON(t, &shown, "approvals", "show", ap)
	assert.Equal(t, ap, shown.ID)
	assert.Equal(t, "operations", shown.Role)

	out = s.ok(t, "approvals", "reject", ap, "-reason", "no such transaction")
	assert.Regexp(t, `(?m)^Status\s+rejected$`, out)
	assert.Regexp(t, `(?m)^Decided by\s+automation$`, out)
	assert.Regexp(t, `(?m)^Reason\s+no such transaction$`, out)
	got := s.adminGet(t, "/admin/approvals/"+ap)
	assert.Equal(t, "rejected", got["status"])
	assert.Equal(t, "no such transaction", got["reason"])
	var rejected wire.Approval
	s.okJSON(t, &rejected, "approvals", "reject", "-reason", "duplicate", pending.Approval.ID)
	assert.Equal(t, "rejected", rejected.Status)
	require.NotNil(t, rejected.Reason)
	assert.Equal(t, "duplicate", *rejected.Reason)
	assert.Equal(t, "No approvals.\n", s.ok(t, "approvals", "list", "-status", "pending"))

	assert.Equal(t, "tambala approvals reject: This approval was rejected already. (409 conflict)\n", s.fails(t, 1, "approvals", "reject", ap, "-reason", "again"))
	assert.Contains(t, s.fails(t, 1, "approvals", "reject", ap, "-reason", " "), "reason must be 1 to 500 characters")
	assert.Contains(t, s.fails(t, 1, "approvals", "show", "no-such-approval"), "(404 not_found)")
	assert.Contains(t, s.fails(t, 2, "approvals", "reject", ap), "-reason is required")
	assert.Contains(t, s.fails(t, 2, "approvals", "show"), "missing arguments: want ID")

	// The audit trail.
	out = s.ok(t, "audit")
	assert.Regexp(t, `(?m)^TIME\s+ACTOR\s+ACTION\s+TARGET\s+SUMMARY$`, out)
	assert.Regexp(t, `(?m)^\S+\s+automation\s+approval\.rejected\s+`+ap+`\s+deposit of 50\.000000 USDT`, out)
	assert.Regexp(t, `(?m)^\S+\s+automation\s+deposit\.recorded\s+`+id[1]+`\s+credited 25\.000000 USDT`, out)
	out = s.ok(t, "audit", "-org", org, "-action", "deposit.recorded")
	assert.Equal(t, 2, strings.Count(out, "\n"), out)
	out = s.ok(t, "audit", "-target", ap, "-actor-kind", "automation", "-since", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))
	assert.Contains(t, out, "approval.requested")
	assert.Contains(t, out, "approval.rejected")
	assert.Equal(t, "No audit entries.\n", s.ok(t, "audit", "-until", "2000-01-01T00:00:00Z"))
	assert.Equal(t, "No audit entries.\n", s.ok(t, "audit", "-actor-kind", "user"))
	out = s.ok(t, "audit", "-limit", "1")
	next := regexp.MustCompile(`(?m)^More: run again with -before (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, next, out)
	var page wire.AuditPage
	s.okJSON(t, &page, "audit", "-limit", "2", "-before", next[1])
	require.Len(t, page.Entries, 2)
	assert.True(t, page.HasMore)
	assert.NotEqual(t, next[1], page.Entries[0].ID)
	assert.Equal(t, "automation", page.Entries[0].Actor.Kind)

	assert.Contains(t, s.fails(t, 1, "audit", "-actor-kind", "robot"), "actor_kind must be user, staff, automation or system. (400 validation_error)")
	assert.Contains(t, s.fails(t, 1, "audit", "-since", "yesterday"), "since must be an RFC 3339 time.")
	assert.Contains(t, s.fails(t, 1, "audit", "-org", "no-such-org"), "(404 not_found)")
	assert.Contains(t, s.fails(t, 2, "audit", "x"), "unexpected arguments")
}

// acceptInvitation sets a password on the portal's accept page for the
// invitation token, as the invited person does.
func (s *testServer) acceptInvitation(t *testing.T, token string) {
	t.Helper()
	form := url.Values{"token": {token}, "password": {"correct-horse-battery-staple"}, "confirm": {"correct-horse-battery-staple"}}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.PostForm(s.PublicURL+"/portal/invitations/accept", form)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
}

// TestAdminUsersAndStaff: user list, disable, enable, end-sessions,
// reset-totp and reset-password on the demo admin; staff list and roles
// on a staff member.
func TestAdminUsersAndStaff(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)
	tok := regexp.MustCompile(`token=(inv_\S+)`).FindStringSubmatch(s.Out.String())
	require.NotNil(t, tok, s.Out.String())

	// The demo's invitation is pending: user list says so (issue #36).
	assert.Equal(t, "No users.\nTOTP required: false\nPending invitations: 1 (tambala user invitations "+org+" lists them)\n", s.ok(t, "user", "list", org))
	s.acceptInvitation(t, tok[1])
	out := s.ok(t, "user", "list", org)
	assert.Regexp(t, `(?m)^ID\s+EMAIL\s+ROLE\s+STATUS\s+TOTP\s+CREATED$`, out)
	m := regexp.MustCompile(`(?m)^(\S+)\s+admin@demo\.example\s+org_admin\s+active\s+no\s+\S+$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	user := m[1]
	var users wire.Users
	s.okJSON(t, &users, "user", "list", org)
	require.Len(t, users.Users, 1)
	assert.Equal(t, user, users.Users[0].ID)
	assert.Contains(t, s.fails(t, 1, "user", "list", "no-such-org"), "not_found")

	signIn := func() int {
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		res, err := client.PostForm(s.PublicURL+"/portal/sign-in", url.Values{"email": {"admin@demo.example"}, "password": {"correct-horse-battery-staple"}})
		require.NoError(t, err)
		res.Body.Close()
		return res.StatusCode
	}
	require.Equal(t, http.StatusSeeOther, signIn())
	assert.Equal(t, "Ended 1 sessions of user "+user+".\n", s.ok(t, "user", "end-sessions", user))
	var ended wire.SessionsEnded
	s.okJSON(t, &ended, "user", "end-sessions", user)
	assert.Equal(t, 0, ended.Ended)

	out = s.ok(t, "user", "disable", user)
	assert.Contains(t, out, "Disabled admin@demo.example.\n")
	assert.Regexp(t, `(?m)^Status\s+disabled$`, out)
	assert.Regexp(t, `(?m)^Disabled\s+\S+$`, out)
	assert.Equal(t, "disabled", s.adminGet(t, "/admin/users/"+user)["status"])
	assert.NotEqual(t, http.StatusSeeOther, signIn(), "a disabled user cannot sign in")
	var u wire.User
	s.okJSON(t, &u, "user", "enable", user)
	assert.Equal(t, "active", u.Status)
	assert.Nil(t, u.DisabledAt)
	assert.Equal(t, http.StatusSeeOther, signIn())

	out = s.ok(t, "user", "reset-totp", user)
	assert.Contains(t, out, "Reset the TOTP of admin@demo.example.\n")
	assert.Regexp(t, `(?m)^TOTP\s+not enrolled$`, out)

	out = s.ok(t, "user", "reset-password", "-portal-url", s.PublicURL, user)
	reset := regexp.MustCompile(`(?m)^Token \(shown once\): (inv_\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, reset, out)
	assert.Contains(t, out, "\n  "+s.PublicURL+"/portal/invitations/accept?token="+reset[1]+"\n")
	kinds := map[string]string{}
	for _, i := range s.adminGet(t, "/admin/orgs/"+org+"/invitations")["invitations"].([]any) {
		i := i.(map[string]any)
		kinds[i["kind"].(string)] = i["status"].(string)
	}
	assert.Equal(t, "pending", kinds["password_reset"])
	var inv wire.NewInvitation
	s.okJSON(t, &inv, "user", "reset-password", user)
	assert.True(t, strings.HasPrefix(inv.Token, "inv_"))
	assert.Equal(t, "admin@demo.example", inv.Invitation.Email)

	for _, words := range [][]string{{"user", "disable"}, {"user", "enable"}, {"user", "end-sessions"}, {"user", "reset-totp"}, {"user", "reset-password"}} {
		assert.Equal(t, "tambala "+strings.Join(words, " ")+": No such resource. (404 not_found)\n", s.fails(t, 1, append(words, "no-such-user")...))
		assert.Contains(t, s.fails(t, 2, words...), "missing arguments: want ID")
	}

	// Staff.
	assert.Equal(t, "No staff.\n", s.ok(t, "staff", "list"))
	var staffInv wire.NewInvitation
	s.okJSON(t, &staffInv, "staff", "invite", "-role", "admin", "ops@example.com")
	s.acceptStaffInvitation(t, staffInv.Token) // issue #36: at the console
	out = s.ok(t, "staff", "list")
	assert.Regexp(t, `(?m)^ID\s+EMAIL\s+ROLES\s+STATUS\s+TOTP\s+APPROVALS\s+CREATED$`, out)
	m = regexp.MustCompile(`(?m)^(\S+)\s+ops@example\.com\s+admin\s+active\s+no\s+yes\s+\S+$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	staff := m[1]
	out = s.ok(t, "staff", "roles", staff, "desk,support")
	assert.Regexp(t, `(?m)^Staff roles\s+desk,support$`, out)
	assert.NotContains(t, out, "Organization")
	assert.Equal(t, []any{"desk", "support"}, s.adminGet(t, "/admin/users/"+staff)["staff_roles"])
	s.okJSON(t, &u, "staff", "roles", staff, "admin", "operations")
	assert.Equal(t, []string{"admin", "operations"}, u.StaffRoles)
	var staffList wire.Users
	s.okJSON(t, &staffList, "staff", "list")
	require.Len(t, staffList.Users, 1)
	assert.Equal(t, []string{"admin", "operations"}, staffList.Users[0].StaffRoles)

	assert.Equal(t, "tambala staff roles: Only the operator's staff have staff roles. (400 validation_error)\n", s.fails(t, 1, "staff", "roles", user, "desk"))
	assert.Contains(t, s.fails(t, 1, "staff", "roles", staff, "janitor"), "validation_error")
	assert.Contains(t, s.fails(t, 2, "staff", "roles", staff), "missing arguments: want ID ROLE,...")
	assert.Contains(t, s.fails(t, 2, "staff", "roles", staff, ","), "no roles")
	assert.Contains(t, s.fails(t, 2, "staff", "list", "x"), "unexpected arguments")
}

// TestAdminRailsAndDeliveries: rail set pauses and resumes a rail as the
// public API sees it; deliveries list shows an event's delivery to the
// organization's endpoint; redelivering one that is not dead-lettered is
// refused.
func TestAdminRailsAndDeliveries(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)
	payout := func(idem string) (int, map[string]any) {
		return publicCall(t, "POST", s.PublicURL+"/v1/payouts/momo", s.DemoKey, idem,
			map[string]any{"amount_mwk": "5000.00", "institution_id": 101, "mobile_number": "111100000112", "beneficiary_name": "Test Wallet"})
	}

	assert.Equal(t, "RAIL  STATE\nbank  enabled\nmomo  disabled\n", s.ok(t, "rail", "set", "momo", "-disabled", "true"))
	status, b := payout("p1")
	assert.Equal(t, "rail_disabled", b["error"].(map[string]any)["code"], "%d %v", status, b)
	var rails wire.Rails
	s.okJSON(t, &rails, "rail", "set", "-disabled", "false", "momo")
	assert.False(t, rails.MomoDisabled)
	assert.False(t, rails.BankDisabled)
	status, b = payout("p2")
	assert.Equal(t, http.StatusAccepted, status, "%v", b)
	assert.Equal(t, "tambala rail set: rail must be bank or momo. (400 validation_error)\n", s.fails(t, 1, "rail", "set", "ufo", "-disabled", "true"))
	assert.Contains(t, s.fails(t, 2, "rail", "set", "momo"), "-disabled is required")
	assert.Contains(t, s.fails(t, 2, "rail", "set", "momo", "-disabled", "perhaps"), `-disabled "perhaps": want true or false`)
	assert.Contains(t, s.fails(t, 2, "rail", "set", "-disabled", "true"), "missing arguments: want RAIL")

	// Deliveries: an endpoint that answers 204, and an event for it.
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(hook.Close)
	assert.Equal(t, "No deliveries.\n", s.ok(t, "deliveries", "list", org))
	s.ok(t, "webhook", "set", org, hook.URL+"/hook")
	status, b = publicCall(t, "POST", s.PublicURL+"/v1/collections/simulate", s.DemoKey, "", map[string]any{"amount_mwk": "2500.00"})
	require.Less(t, status, 300, "%v", b)
	var list wire.Deliveries
	require.Eventually(t, func() bool {
		s.okJSON(t, &list, "deliveries", "list", org)
		for _, d := range list.Deliveries {
			if d.State != "delivered" {
				return false
			}
		}
		return len(list.Deliveries) > 0
	}, 20*time.Second, 50*time.Millisecond)
	d := list.Deliveries[0]
	assert.Equal(t, hook.URL+"/hook", d.URL)
	out := s.ok(t, "deliveries", "list", org)
	assert.Regexp(t, `(?m)^ID\s+EVENT\s+STATE\s+ATTEMPTS\s+LAST\s+CREATED$`, out)
	assert.Regexp(t, `(?m)^`+d.ID+`\s+`+regexp.QuoteMeta(d.EventType)+`\s+delivered\s+1\s+204\s+\S+$`, out)
	assert.Positive(t, hits.Load())
	if len(list.Deliveries) > 1 {
		assert.Contains(t, s.ok(t, "deliveries", "list", org, "-limit", "1"), "More: run again with -before ")
	}

	assert.Equal(t, "tambala deliveries redeliver: Only a dead-lettered delivery is re-delivered; this one is delivered. (409 conflict)\n",
		s.fails(t, 1, "deliveries", "redeliver", org, d.ID))
	assert.Contains(t, s.fails(t, 1, "deliveries", "redeliver", org, "no-such-delivery"), "(404 not_found)")
	assert.Contains(t, s.fails(t, 1, "deliveries", "list", org, "-limit", "100000"), "limit must be an integer from 1 to")
	assert.Contains(t, s.fails(t, 2, "deliveries", "redeliver", org), "missing arguments: want ORG ID")
}

// TestAdminRedeliverAnswer: a re-delivery the server takes prints the
// delivery (a dead-lettered one takes hours of retries to make on a real
// server, so a stand-in of the admin API answers here).
func TestAdminRedeliverAnswer(t *testing.T) {
	t.Parallel()
	var got string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Method + " " + r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"d1","event_type":"payout.succeeded","url":"https://hooks.example.com/x","state":"pending",`+
			`"attempts":[],"body":"{}","created_at":"2026-11-26T01:09:35.656Z"}`)
	}))
	t.Cleanup(api.Close)
	code, out, errOut := tambala(t, nil, "deliveries", "redeliver", "-admin-url", api.URL, "-admin-token", "adm_x", "org 1", "d1")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "POST /admin/orgs/org 1/deliveries/d1/redeliver", got)
	assert.Contains(t, out, "Redelivering d1.\n")
	assert.Regexp(t, `(?m)^State\s+pending$`, out)
	assert.Regexp(t, `(?m)^Attempts\s+0$`, out)
}

// TestAdminFourEyesThresholdAndHold: once there are staff, removing a
// threshold prints the pending approval and leaves the threshold in
// force; resetting a staff member's password shows in staff list that
// their approvals are suspended.
func TestAdminFourEyesThresholdAndHold(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	assert.Equal(t, "The MWK approval threshold is 1000.00 MWK.\n", s.ok(t, "approvals", "threshold", "MWK", "1000"))
	var inv wire.NewInvitation
	s.okJSON(t, &inv, "staff", "invite", "-role", "operations", "ops@example.com")
	s.acceptStaffInvitation(t, inv.Token)

	out := s.ok(t, "approvals", "threshold", "MWK", "none")
	assert.Contains(t, out, "Approval pending: the MWK approval threshold 1000.00 -> none weakens four-eyes.")
	assert.Regexp(t, `(?m)^Approval: \S+$`, out)
	assert.Equal(t, "The MWK approval threshold is 1000.00 MWK.\n", s.ok(t, "approvals", "threshold", "MWK"))

	out = s.ok(t, "staff", "list")
	m := regexp.MustCompile(`(?m)^(\S+)\s+ops@example\.com\s+operations\s+active\s+no\s+yes\s+\S+$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	s.ok(t, "user", "reset-password", m[1])
	assert.Regexp(t, `(?m)^\S+\s+ops@example\.com\s+operations\s+active\s+no\s+suspended\s+\S+$`, s.ok(t, "staff", "list"))
}
