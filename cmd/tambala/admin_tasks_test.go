package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/wire"
)

// TestAdminOperatorTasks drives, against a real server on a temporary
// store, each task of the operator that only curl reached before issue
// #36: an organization's balances, per-asset limits, pending invitations
// listed and revoked, one user shown, a collection reversed, an OTC trade
// recorded (and waiting for approval above the threshold), a payout
// clawed back, a deposit address rotated, the networks listed, and a
// funding proof saved.
func TestAdminOperatorTasks(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)

	// Balances, shown for a suspended organization too.
	s.ok(t, "fund", "-ref", "wire-1", org, "2500", "MWK")
	out := s.ok(t, "org", "balances", org)
	assert.Regexp(t, `(?m)^ASSET\s+AVAILABLE\s+HELD\s+SHORTFALL$`, out)
	m := regexp.MustCompile(`(?m)^MWK\s+(\S+)\s+0\.00\s+0\.00$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	s.ok(t, "org", "status", org, "suspended")
	assert.Equal(t, out, s.ok(t, "org", "balances", org))
	s.ok(t, "org", "status", org, "active")
	var bal wire.Balances
	s.okJSON(t, &bal, "org", "balances", org)
	require.NotEmpty(t, bal.Balances)
	assert.Equal(t, "MWK", bal.Balances[0].Asset)
	assert.Equal(t, m[1], bal.Balances[0].Available)
	assert.Contains(t, s.fails(t, 1, "org", "balances", "no-such-org"), "(404 not_found)")

	// Per-asset limits.
	out = s.ok(t, "asset", "limits", "USDT", "payout", "-min", "10", "-max", "5000")
	assert.Regexp(t, `(?m)^Min\s+10\.000000$`, out)
	assert.Regexp(t, `(?m)^Max\s+5000\.000000$`, out)
	out = s.ok(t, "asset", "limits", "USDT", "payout", "-max", "none")
	assert.Regexp(t, `(?m)^Min\s+10\.000000$`, out, "the bound not given keeps its value")
	assert.Regexp(t, `(?m)^Max\s+-$`, out)
	assert.Equal(t, out, s.ok(t, "asset", "limits", "USDT", "payout"))
	var lim wire.AssetLimits
	s.okJSON(t, &lim, "asset", "limits", "USDT", "payout")
	require.NotNil(t, lim.Min)
	assert.Equal(t, "10.000000", *lim.Min)
	assert.Nil(t, lim.Max)
	assert.Contains(t, s.fails(t, 1, "asset", "limits", "USDT", "collection"), "operation must be convert or payout")

	// Invitations: the demo's pending one, listed and revoked.
	out = s.ok(t, "user", "invitations", org)
	assert.Regexp(t, `(?m)^ID\s+KIND\s+EMAIL\s+ROLE\s+STATUS\s+CREATED\s+EXPIRES$`, out)
	m = regexp.MustCompile(`(?m)^(\S+)\s+invitation\s+admin@demo\.example\s+org_admin\s+pending\s+\S+\s+\S+$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	demoInv := m[1]
	assert.NotContains(t, out, "inv_", "no token is shown again")
	out = s.ok(t, "user", "revoke-invitation", org, demoInv)
	assert.Regexp(t, `^Revoked the invitation `+demoInv+` of admin@demo\.example \(invitation\) at \S+: its link no longer works\.\n$`, out)
	assert.Equal(t, "No pending invitations.\n", s.ok(t, "user", "invitations", org))
	assert.Regexp(t, `(?m)^`+demoInv+`\s+invitation\s+admin@demo\.example\s+org_admin\s+revoked\s`, s.ok(t, "user", "invitations", "-all", org))
	assert.Equal(t, "No users.\nTOTP required: false\n", s.ok(t, "user", "list", org))
	assert.Contains(t, s.ok(t, "user", "revoke-invitation", org, demoInv), "Revoked the invitation "+demoInv, "revoking again changes nothing")
	assert.Contains(t, s.fails(t, 1, "user", "revoke-invitation", org, "no-such-invitation"), "(404 not_found)")

	// Staff invitations.
	var staffInv wire.NewInvitation
	s.okJSON(t, &staffInv, "staff", "invite", "-role", "desk", "desk@example.com")
	assert.Equal(t, "No staff.\nPending invitations: 1 (tambala staff invitations lists them)\n", s.ok(t, "staff", "list"))
	assert.Regexp(t, `(?m)^`+staffInv.Invitation.ID+`\s+invitation\s+desk@example\.com\s+desk\s+pending\s`, s.ok(t, "staff", "invitations"))
	var invs wire.Invitations
	s.okJSON(t, &invs, "staff", "invitations")
	require.Len(t, invs.Invitations, 1)
	assert.Nil(t, invs.Invitations[0].Org)
	assert.Contains(t, s.ok(t, "staff", "revoke-invitation", staffInv.Invitation.ID), "Revoked the invitation "+staffInv.Invitation.ID+" of desk@example.com")
	assert.Equal(t, "No pending invitations.\n", s.ok(t, "staff", "invitations"))

	// One user shown.
	var inv wire.NewInvitation
	s.okJSON(t, &inv, "user", "invite", org, "ops@demo.example")
	s.acceptInvitation(t, inv.Token)
	var users wire.Users
	s.okJSON(t, &users, "user", "list", org)
	require.Len(t, users.Users, 1)
	user := users.Users[0].ID
	assert.Contains(t, s.fails(t, 1, "user", "revoke-invitation", org, inv.Invitation.ID), "(409 conflict)", "an accepted invitation stays")
	out = s.ok(t, "user", "show", user)
	assert.Regexp(t, `(?m)^ID\s+`+user+`$`, out)
	assert.Regexp(t, `(?m)^Organization\s+`+org+`$`, out)
	assert.Regexp(t, `(?m)^Email\s+ops@demo\.example$`, out)
	assert.Regexp(t, `(?m)^Role\s+org_admin$`, out)
	assert.Regexp(t, `(?m)^Status\s+active$`, out)
	assert.Equal(t, "tambala user show: No such resource. (404 not_found)\n", s.fails(t, 1, "user", "show", "no-such-user"))

	// A collection reversed.
	status, col := publicCall(t, "POST", s.PublicURL+"/v1/collections/simulate", s.DemoKey, "", map[string]any{"amount_mwk": "1200.00"})
	require.Equal(t, http.StatusCreated, status, "%v", col)
	out = s.ok(t, "collection", "reverse", org, col["id"].(string))
	assert.Contains(t, out, "Reversed collection "+col["id"].(string)+" of "+org+".\n")
	assert.Regexp(t, `(?m)^Status\s+reversed$`, out)
	assert.Regexp(t, `(?m)^Amount\s+1200\.00 MWK$`, out)
	assert.Contains(t, s.fails(t, 1, "collection", "reverse", org, "no-such-collection"), "(404 not_found)")

	// An OTC trade, then one above the MWK threshold: pending.
	out = s.ok(t, "trade", "record", org, "-ref", "otc-1", "-usdt", "10", "-rate", "1750.50")
	assert.Regexp(t, `(?m)^Recorded trade \S+ of `+org+` \(ref otc-1\)\.$`, out)
	assert.Regexp(t, `(?m)^MWK\s+17505$`, out)
	assert.Contains(t, s.fails(t, 2, "trade", "record", org, "-ref", "otc-2"), "-usdt is required")
	s.ok(t, "approvals", "threshold", "MWK", "20000")
	out = s.ok(t, "trade", "record", org, "-ref", "otc-2", "-usdt", "100", "-rate", "1750.50")
	assert.Contains(t, out, "Approval pending: the trade of 100 USDT by "+org+" (ref otc-2), crediting 175050.00 MWK, is above the MWK approval threshold.\n")
	m = regexp.MustCompile(`(?m)^Approval: (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, "pending", s.adminGet(t, "/admin/approvals/"+m[1])["status"])

	// A payout clawed back once it succeeded; above the threshold, pending.
	payout := func(idem, amount string) string {
		t.Helper()
		status, p := publicCall(t, "POST", s.PublicURL+"/v1/payouts/momo", s.DemoKey, idem,
			map[string]any{"amount_mwk": amount, "institution_id": 101, "mobile_number": "111100000112", "beneficiary_name": "Test Wallet"})
		require.Equal(t, http.StatusAccepted, status, "%v", p)
		id := p["id"].(string)
		require.Eventually(t, func() bool {
			_, got := publicCall(t, "GET", s.PublicURL+"/v1/payouts/"+id, s.DemoKey, "", nil)
			return got["status"] == "succeeded"
		}, 30*time.Second, 50*time.Millisecond)
		return id
	}
	small := payout("p-small", "1000.00")
	assert.Equal(t, "Clawed back payout "+small+": reversed.\n", s.ok(t, "payout", "clawback", small))
	big := payout("p-big", "30000.00")
	out = s.ok(t, "payout", "clawback", big)
	assert.Contains(t, out, "Approval pending: the clawback of payout "+big+" (")
	assert.Contains(t, out, "is above the MWK approval threshold.\n")
	assert.Regexp(t, `(?m)^Approval: \S+$`, out)
	assert.Contains(t, s.fails(t, 1, "payout", "clawback", "no-such-payout"), "(404 not_found)")

	// Networks, and a deposit address rotated.
	out = s.ok(t, "network", "list")
	assert.Regexp(t, `(?m)^ID\s+KIND\s+ASSETS$`, out)
	m = regexp.MustCompile(`(?m)^(\S+)\s+\S+\s+\S*USDT\S*$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	network := m[1]
	out = s.ok(t, "deposit", "rotate-address", org, network)
	assert.Contains(t, out, "New deposit address of "+org+" on "+network+".\n")
	first := regexp.MustCompile(`(?m)^Address\s+(\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, first, out)
	second := regexp.MustCompile(`(?m)^Address\s+(\S+)$`).FindStringSubmatch(s.ok(t, "deposit", "rotate-address", org, network))
	require.NotNil(t, second)
	assert.NotEqual(t, first[1], second[1])
	assert.Contains(t, s.fails(t, 1, "deposit", "rotate-address", org, "no-such-network"), "(422 unsupported_network)")

	// A funding proof saved, never over an existing file.
	status, q := publicCall(t, "POST", s.PublicURL+"/v2/orders/quotes", s.DemoKey, "",
		map[string]any{"from_asset": "MWK", "to_asset": "USDT", "from_amount": "180000"})
	require.Equal(t, http.StatusCreated, status, "%v", q)
	status, fb := publicCall(t, "POST", s.PublicURL+"/v2/orders", s.DemoKey, "order-proof", map[string]any{"quote_id": q["quote_id"], "client_ref": "proof"})
	require.Equal(t, http.StatusCreated, status, "%v", fb)
	order := fb["id"].(string)
	dir := t.TempDir()
	file := filepath.Join(dir, "proof.pdf")
	assert.Contains(t, s.fails(t, 1, "order", "proof", "-o", file, order), "(404 not_found)")
	_, err := os.Stat(file)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")
	s.ok(t, "order", "move", order, "instructions", "-bank-name", "National Bank of Malawi", "-account-name", "Tambala Ltd", "-account-number", "100200300")
	pdf := []byte("%PDF-1.4\n% the wire's receipt\n")
	req, err := http.NewRequest("PUT", s.PublicURL+"/v2/orders/"+order+"/proofs/funding", bytes.NewReader(pdf))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+s.DemoKey)
	req.Header.Set("Content-Type", "application/pdf")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	assert.Equal(t, "Saved the funding proof of order "+order+" to "+file+" (application/pdf, 30 bytes).\n", s.ok(t, "order", "proof", order, "-o", file))
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, pdf, got)
	assert.Equal(t, "tambala order proof: "+file+" exists already: not overwritten (choose another -o)\n", s.fails(t, 1, "order", "proof", order, "-o", file))
	require.NoError(t, os.WriteFile(file, []byte("mine"), 0o600))
	s.fails(t, 1, "order", "proof", order, "-o", file)
	mine, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(mine), "an existing file is left as it was")
	assert.Contains(t, s.fails(t, 2, "order", "proof", order), "-o is required")
	var saved struct {
		File        string `json:"file"`
		ContentType string `json:"content_type"`
		Size        int    `json:"size"`
	}
	s.okJSON(t, &saved, "order", "proof", order, "-o", filepath.Join(dir, "again.pdf"))
	assert.Equal(t, "application/pdf", saved.ContentType)
	assert.Equal(t, len(pdf), saved.Size)
	// The desk confirms the funds it has now seen.
	var shown wire.DeskOrder
	s.okJSON(t, &shown, "order", "show", order)
	require.NotNil(t, shown.Proof)
	assert.Regexp(t, `(?m)^Status\s+funds_confirmed$`, s.ok(t, "order", "move", order, "confirm-funds", "-proof", shown.Proof.ID))
}
