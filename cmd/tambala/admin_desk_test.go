package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/wire"
)

// publicCall calls the public API with the key, an Idempotency-Key when
// idem is not empty, and returns the status and the decoded answer.
func publicCall(t *testing.T, method, url, key, idem string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	var out map[string]any
	if len(b) > 0 {
		require.NoError(t, json.Unmarshal(b, &out), string(b))
	}
	return res.StatusCode, out
}

// toBankOrder makes a to-bank order of 10 USDT for the demo organization
// and returns its id.
func (s *testServer) toBankOrder(t *testing.T, ref string) string {
	t.Helper()
	status, q := publicCall(t, "POST", s.PublicURL+"/v2/orders/quotes", s.DemoKey, "",
		map[string]any{"from_asset": "USDT", "to_asset": "MWK", "from_amount": "10"})
	require.Equal(t, http.StatusCreated, status, "%v", q)
	status, o := publicCall(t, "POST", s.PublicURL+"/v2/orders", s.DemoKey, "order-"+ref, map[string]any{
		"quote_id": q["quote_id"], "client_ref": ref,
		"beneficiary": map[string]any{"name": "Chisomo Banda", "bank_name": "National Bank of Malawi", "account_number": "100200300"},
	})
	require.Equal(t, http.StatusCreated, status, "%v", o)
	return o["id"].(string)
}

// TestAdminOrders: order list shows a to-bank order, order move takes it
// through processing, coins-sent and complete, order show prints it; a
// move its state refuses exits 1 with the API's message; refund-returned
// above the threshold prints the pending approval.
func TestAdminOrders(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)

	assert.Equal(t, "No orders.\n", s.ok(t, "order", "list"))
	id := s.toBankOrder(t, "x")

	out := s.ok(t, "order", "list")
	assert.Regexp(t, `(?m)^ID\s+ORG\s+DIRECTION\s+FROM\s+TO\s+STATUS\s+AGE$`, out)
	assert.Regexp(t, `(?m)^`+id+`\s+`+org+`\s+to-bank\s+10\.000000 USDT\s+\S+ MWK\s+accepted\s+\d+s$`, out)
	assert.Contains(t, s.ok(t, "order", "list", "-status", "accepted", "-org", org), id)
	assert.Equal(t, "No orders.\n", s.ok(t, "order", "list", "-status", "completed"))
	var list wire.DeskOrders
	s.okJSON(t, &list, "order", "list")
	require.Len(t, list.Orders, 1)
	assert.Equal(t, org, list.Orders[0].Org)
	assert.Equal(t, id, list.Orders[0].Order.ID)
	assert.Equal(t, "accepted", list.Orders[0].Order.Status)
	assert.False(t, list.HasMore)

	out = s.ok(t, "order", "show", id)
	assert.Regexp(t, `(?m)^ID\s+`+id+`$`, out)
	assert.Regexp(t, `(?m)^Organization\s+`+org+`$`, out)
	assert.Regexp(t, `(?m)^Direction\s+to-bank$`, out)
	assert.Regexp(t, `(?m)^From\s+10\.000000 USDT$`, out)
	assert.Regexp(t, `(?m)^Beneficiary\s+Chisomo Banda$`, out)
	assert.Regexp(t, `(?m)^Bank\s+National Bank of Malawi$`, out)
	assert.Regexp(t, `(?m)^Account number\s+100200300$`, out)

	// A move the state refuses: exit 1, the API's message.
	errOut := s.fails(t, 1, "order", "move", id, "complete")
	assert.Contains(t, errOut, "tambala order move: ")
	assert.Contains(t, errOut, "(409 conflict)")

	out = s.ok(t, "order", "move", id, "processing")
	assert.Regexp(t, `(?m)^Status\s+processing$`, out)
	var moved wire.DeskOrder
	s.okJSON(t, &moved, "order", "move", id, "coins-sent")
	assert.Equal(t, "processing", moved.Order.Status)
	require.NotNil(t, moved.CoinsLeftAt)
	out = s.ok(t, "order", "move", id, "complete")
	assert.Regexp(t, `(?m)^Status\s+completed$`, out)
	assert.Regexp(t, `(?m)^Coins left\s+\S+$`, out)
	assert.Equal(t, "completed", s.adminGet(t, "/admin/orders/"+id)["order"].(map[string]any)["status"])
	assert.Regexp(t, `(?m)^`+id+`\s+.*\scompleted\s`, s.ok(t, "order", "list", "-status", "completed"))
	var shown wire.DeskOrder
	s.okJSON(t, &shown, "order", "show", id)
	assert.Equal(t, "completed", shown.Order.Status)
	assert.Equal(t, "x", shown.Order.ClientRef)

	// Refused: a terminal order, an unknown order, wrong command lines.
	assert.Contains(t, s.fails(t, 1, "order", "move", id, "cancel"), "(409 conflict)")
	assert.Equal(t, "tambala order show: No such resource. (404 not_found)\n", s.fails(t, 1, "order", "show", "no-such-order"))
	assert.Contains(t, s.fails(t, 1, "order", "list", "-status", "maybe"), "validation_error")
	assert.Contains(t, s.fails(t, 2, "order", "move", id, "teleport"), `unknown move "teleport"`)
	assert.Contains(t, s.fails(t, 2, "order", "move", id, "fail"), "the move fail needs -code")
	assert.Contains(t, s.fails(t, 2, "order", "move", id, "processing", "-code", "other"), "-code is not a flag of the move processing")
	assert.Contains(t, s.fails(t, 2, "order", "move", id), "missing arguments: want ID MOVE")

	// A failed order whose coins had left: its refund returned above the
	// USDT threshold waits for an approval.
	id2 := s.toBankOrder(t, "y")
	s.ok(t, "order", "move", id2, "processing")
	s.ok(t, "order", "move", id2, "coins-sent")
	out = s.ok(t, "order", "move", id2, "fail", "-code", "not_delivered")
	assert.Regexp(t, `(?m)^Status\s+failed$`, out)
	assert.Regexp(t, `(?m)^Failure\s+not_delivered: `, out)
	assert.Regexp(t, `(?m)^Refund\s+pending$`, out)
	s.ok(t, "approvals", "threshold", "USDT", "5")
	out = s.ok(t, "order", "move", id2, "refund-returned")
	assert.Contains(t, out, "Approval pending: the refund of 10.000000 USDT returned to "+org+" (order "+id2+") is above the USDT approval threshold.")
	m := regexp.MustCompile(`(?m)^Approval: (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Equal(t, "pending", s.adminGet(t, "/admin/approvals/"+m[1])["status"])

	// A from-bank order: the funding instructions, only the fields given.
	status, q := publicCall(t, "POST", s.PublicURL+"/v2/orders/quotes", s.DemoKey, "",
		map[string]any{"from_asset": "MWK", "to_asset": "USDT", "from_amount": "180000"})
	require.Equal(t, http.StatusCreated, status, "%v", q)
	status, fb := publicCall(t, "POST", s.PublicURL+"/v2/orders", s.DemoKey, "order-z", map[string]any{"quote_id": q["quote_id"], "client_ref": "z"})
	require.Equal(t, http.StatusCreated, status, "%v", fb)
	id3 := fb["id"].(string)
	assert.Regexp(t, `(?m)^`+id3+`\s+`+org+`\s+from-bank\s+180000\.00 MWK\s+\S+ USDT\s+awaiting_instructions\s`, s.ok(t, "order", "list", "-limit", "1"))
	assert.Contains(t, s.fails(t, 2, "order", "move", id3, "instructions", "-bank-name", "NBM"), "the move instructions needs -account-name")
	assert.Contains(t, s.fails(t, 1, "order", "move", id3, "instructions", "-bank-name", "NBM", "-account-name", "Tambala Ltd",
		"-account-number", "100200300", "-deadline", "tomorrow"), "deadline must be an ISO 8601 date-time.")
	out = s.ok(t, "order", "move", id3, "instructions", "-bank-name", "National Bank of Malawi", "-account-name", "Tambala Ltd",
		"-account-number", "100200300", "-reference", "ORD0007")
	assert.Regexp(t, `(?m)^Direction\s+from-bank$`, out)
	assert.Regexp(t, `(?m)^Status\s+awaiting_funds$`, out)
	assert.Regexp(t, `(?m)^Funding bank\s+National Bank of Malawi$`, out)
	assert.Regexp(t, `(?m)^Reference\s+ORD0007$`, out)
	assert.Regexp(t, `(?m)^Amount due\s+180000\.00 MWK$`, out)
	assert.Contains(t, s.fails(t, 1, "order", "move", id3, "confirm-funds", "-proof", "no-such-proof"), "(409 conflict)")
}

// TestAdminManualRail: on a production server with the manual rail,
// institutions sync, then a /v1 bank payout shows in payout in-flight
// once the worker submitted it, and payout resolve finishes it.
func TestAdminManualRail(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "", "-env", "production", "-provider", "manual")
	require.Empty(t, s.Token, "production prints no token")
	b, err := os.ReadFile(filepath.Join(s.Data, "admin-token"))
	require.NoError(t, err)
	s.Token = strings.TrimSpace(string(b))

	var o wire.Organization
	s.okJSON(t, &o, "org", "create", "-asset", "MWK:payout", "Chanco Traders")
	key := regexp.MustCompile(`(tmb_\S+)`).FindString(s.ok(t, "key", "create", o.ID))
	require.NotEmpty(t, key)
	s.ok(t, "fund", "-ref", "wire-1", o.ID, "100000", "MWK")

	file := filepath.Join(t.TempDir(), "institutions.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"institutions":[{"institution_id":1,"name":"National Bank of Malawi","rail":"bank"},`+
		`{"institution_id":101,"name":"Airtel Money","rail":"momo","network":"9"}]}`), 0o600))
	assert.Equal(t, "Synced 2 institutions.\n", s.ok(t, "institutions", "sync", file))
	var synced struct{ Institutions int }
	s.okJSON(t, &synced, "institutions", "sync", file)
	assert.Equal(t, 2, synced.Institutions)
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"institutions":`), 0o600))
	assert.Contains(t, s.fails(t, 1, "institutions", "sync", bad), "is not JSON")
	assert.Contains(t, s.fails(t, 1, "institutions", "sync", filepath.Join(t.TempDir(), "none.json")), "no such file")
	assert.Contains(t, s.fails(t, 2, "institutions", "sync"), "missing arguments: want FILE")

	assert.Equal(t, "No payouts in flight.\n", s.ok(t, "payout", "in-flight"))
	status, p := publicCall(t, "POST", s.PublicURL+"/v1/payouts/bank", key, "payout-1",
		map[string]any{"amount_mwk": "1000", "institution_id": 1, "account_number": "1234567890", "beneficiary_name": "Chisomo Banda"})
	require.Equal(t, http.StatusAccepted, status, "%v", p)
	id := p["id"].(string)

	// The worker submits it to the manual rail, which keeps it pending.
	var out string
	require.Eventually(t, func() bool {
		out = s.ok(t, "payout", "in-flight", "-status", "pending")
		return strings.Contains(out, id)
	}, 30*time.Second, 50*time.Millisecond, "never pending: %s", s.ok(t, "payout", "in-flight"))
	assert.Regexp(t, `(?m)^ID\s+API\s+ORG\s+AMOUNT\s+DESTINATION\s+STATUS\s+AGE\s+OVERDUE$`, out)
	assert.Regexp(t, `(?m)^`+id+`\s+v1\s+`+o.ID+`\s+1000\.00 MWK\s+bank 1/1234567890 \(Chisomo Banda\)\s+pending\s+\d+s\s+false$`, out)
	var inflight wire.InFlights
	s.okJSON(t, &inflight, "payout", "in-flight", "-org", o.ID)
	require.Len(t, inflight.Payouts, 1)
	assert.Equal(t, id, inflight.Payouts[0].Payout.ID)
	assert.Equal(t, "v1", inflight.Payouts[0].APIVersion)
	assert.Contains(t, s.fails(t, 1, "payout", "in-flight", "-older-than", "soon"), "validation_error")

	assert.Contains(t, s.fails(t, 2, "payout", "resolve", id, "-reason", "x"), "-outcome is required")
	assert.Contains(t, s.fails(t, 2, "payout", "resolve", id, "-outcome", "succeeded"), "-reason is required")
	assert.Contains(t, s.fails(t, 2, "payout", "resolve", id, "-outcome", "failed", "-reason", "x"), "needs -failure-code")
	assert.Contains(t, s.fails(t, 2, "payout", "resolve", id, "-outcome", "succeeded", "-failure-code", "declined", "-reason", "x"), "-failure-code is for -outcome failed")
	assert.Contains(t, s.fails(t, 1, "payout", "resolve", id, "-outcome", "succeeded", "-fee", "lots", "-reason", "x"), "validation_error")

	out = s.ok(t, "payout", "resolve", id, "-outcome", "succeeded", "-fee", "250.00", "-reference", "MP240311.1523.A12345", "-reason", "Paid through the portal.")
	assert.Contains(t, out, "Resolved payout "+id+": succeeded.\n")
	assert.Regexp(t, `(?m)^Fee\s+250\.00 MWK$`, out)
	assert.Regexp(t, `(?m)^Status\s+succeeded$`, out)
	status, got := publicCall(t, "GET", s.PublicURL+"/v1/payouts/"+id, key, "", nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "succeeded", got["status"])
	assert.Equal(t, "250.00", got["fee"])
	assert.Equal(t, "No payouts in flight.\n", s.ok(t, "payout", "in-flight"))
	// Once terminal, resolving again is a conflict.
	assert.Contains(t, s.fails(t, 1, "payout", "resolve", id, "-outcome", "failed", "-failure-code", "declined", "-reason", "again"), "conflict")

	// A second payout failed, -json.
	status, p = publicCall(t, "POST", s.PublicURL+"/v1/payouts/bank", key, "payout-2",
		map[string]any{"amount_mwk": "500", "institution_id": 1, "account_number": "1234567890", "beneficiary_name": "Chisomo Banda"})
	require.Equal(t, http.StatusAccepted, status, "%v", p)
	id2 := p["id"].(string)
	require.Eventually(t, func() bool {
		return strings.Contains(s.ok(t, "payout", "in-flight", "-status", "pending"), id2)
	}, 30*time.Second, 50*time.Millisecond)
	var failed map[string]any
	s.okJSON(t, &failed, "payout", "resolve", "-outcome", "failed", "-failure-code", "recipient_account_invalid", "-reason", "The bank refused the account.", id2)
	assert.Equal(t, "failed", failed["status"])
	assert.Equal(t, "recipient_account_invalid", failed["failure"].(map[string]any)["code"])
}

// TestOrderMoveHelpListsEveryMove: the moves order move takes are the
// orders package's (orders.MoveNames), and its -h describes each of them,
// in that order; each move's fields have a flag.
func TestOrderMoveHelpListsEveryMove(t *testing.T) {
	code, _, help := tambala(t, nil, "order", "move", "-h")
	require.Equal(t, 0, code)
	listed := regexp.MustCompile(`(?m)^  ([a-z-]+) {2,}`).FindAllStringSubmatch(help, -1)
	var names []string
	for _, m := range listed {
		names = append(names, m[1])
	}
	assert.Equal(t, orders.MoveNames(), names)
	for _, name := range orders.MoveNames() {
		fields, _, _ := orders.MoveTakes(name)
		for _, f := range fields {
			assert.Contains(t, help, "  -"+flagOf(f)+" ", "%s: the flag of %s", name, f)
		}
	}
	_, _, errOut := tambala(t, nil, "order", "move", "-admin-url", "http://127.0.0.1:1", "-admin-token", "adm_x", "id", "teleport")
	assert.Contains(t, errOut, `unknown move "teleport": want one of processing, coins-sent, complete, fail, cancel, refund-returned, instructions, reject-proof, confirm-funds`)
}
