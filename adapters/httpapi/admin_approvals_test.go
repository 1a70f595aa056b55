package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/money"
)

// TestAdmin_FundingWaitsForApproval: above its asset's approval threshold
// the admin token's funding answers 202 with the pending approval (as the
// admin document says), moves nothing, and the same request answers the
// same approval again.
func TestAdmin_FundingWaitsForApproval(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	if err := e.Engine.Operator().Approvals().SetThreshold(context.Background(), "MWK", money.FromInt(money.MWK, 1000)); err != nil {
		t.Fatal(err)
	}
	path := "/admin/orgs/" + o.ID + "/funding"
	var first, again struct {
		Approval struct {
			ID, Kind, Status, Amount string
		} `json:"approval"`
	}
	e.admin(t, "POST", path, map[string]any{"asset": "MWK", "amount": "1000.00", "ref": "at"}).want(t, 200, "")
	e.admin(t, "POST", path, map[string]any{"asset": "MWK", "amount": "1000.01", "ref": "above"}).want(t, 202, "").decode(t, &first)
	if first.Approval.Kind != "funding" || first.Approval.Status != "pending" || first.Approval.Amount != "1000.01" {
		t.Errorf("202 body = %+v", first)
	}
	e.admin(t, "POST", path, map[string]any{"asset": "MWK", "amount": "1000.01", "ref": "above"}).want(t, 202, "").decode(t, &again)
	if again.Approval.ID != first.Approval.ID {
		t.Errorf("the same request made approval %s, then %s", first.Approval.ID, again.Approval.ID)
	}
	e.admin(t, "POST", path, map[string]any{"asset": "MWK", "amount": "2000.00", "ref": "above"}).want(t, 409, "conflict")
}

// TestAdmin_ApprovalsAndAuditFilters: the admin token lists, reads and
// rejects approvals and sets the thresholds (never approves), and reads
// the audit trail narrowed by action, actor kind and time.
func TestAdmin_ApprovalsAndAuditFilters(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	e.admin(t, "PUT", "/admin/approval-thresholds/MWK", map[string]any{"threshold": "1000.00"}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/approval-thresholds/MWK", map[string]any{"threshold": "-1"}).want(t, 400, "validation_error")
	e.admin(t, "PUT", "/admin/approval-thresholds/MWK", map[string]any{}).want(t, 400, "validation_error")
	var th struct {
		Thresholds map[string]string `json:"thresholds"`
	}
	e.admin(t, "GET", "/admin/approval-thresholds", nil).want(t, 200, "").decode(t, &th)
	if th.Thresholds["MWK"] != "1000.00" {
		t.Errorf("thresholds = %+v", th)
	}

	type approval struct {
		ID, Status, Kind string
		Reason           *string `json:"reason"`
		RequestedBy      struct {
			Kind string `json:"kind"`
		} `json:"requested_by"`
	}
	var pending struct {
		Approval approval `json:"approval"`
	}
	fund := "/admin/orgs/" + o.ID + "/funding"
	e.admin(t, "POST", fund, map[string]any{"asset": "MWK", "amount": "5000.00", "ref": "wire-9"}).want(t, 202, "").decode(t, &pending)
	if pending.Approval.RequestedBy.Kind != "automation" {
		t.Errorf("requested by %+v", pending.Approval.RequestedBy)
	}
	var list struct {
		Approvals []approval `json:"approvals"`
		HasMore   bool       `json:"has_more"`
	}
	e.admin(t, "GET", "/admin/approvals?status=pending", nil).want(t, 200, "").decode(t, &list)
	if len(list.Approvals) != 1 || list.Approvals[0].ID != pending.Approval.ID {
		t.Errorf("pending approvals = %+v", list)
	}
	e.admin(t, "GET", "/admin/approvals?status=maybe", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/approvals/"+unknownID, nil).want(t, 404, "not_found")
	var got approval
	e.admin(t, "GET", "/admin/approvals/"+pending.Approval.ID, nil).want(t, 200, "").decode(t, &got)
	if got.ID != pending.Approval.ID || got.Status != "pending" || got.Kind != "funding" {
		t.Errorf("approval = %+v", got)
	}
	e.admin(t, "POST", "/admin/approvals/"+pending.Approval.ID+"/reject", map[string]any{"reason": ""}).want(t, 400, "validation_error")
	var rejected approval
	e.admin(t, "POST", "/admin/approvals/"+pending.Approval.ID+"/reject", map[string]any{"reason": "No such wire."}).want(t, 200, "").decode(t, &rejected)
	if rejected.Status != "rejected" || rejected.Reason == nil || *rejected.Reason != "No such wire." {
		t.Errorf("rejected = %+v", rejected)
	}
	e.admin(t, "POST", "/admin/approvals/"+pending.Approval.ID+"/reject", map[string]any{"reason": "again"}).want(t, 409, "conflict")
	e.admin(t, "POST", fund, map[string]any{"asset": "MWK", "amount": "5000.00", "ref": "wire-9"}).want(t, 409, "conflict")
	e.admin(t, "PUT", "/admin/approval-thresholds/MWK", map[string]any{"threshold": nil}).want(t, 200, "")
	e.admin(t, "POST", fund, map[string]any{"asset": "MWK", "amount": "5000.00", "ref": "wire-10"}).want(t, 200, "")

	// The audit trail, narrowed.
	var page struct {
		Entries []struct {
			Action string `json:"action"`
			Actor  struct {
				Kind string `json:"kind"`
			} `json:"actor"`
		} `json:"entries"`
	}
	e.admin(t, "GET", "/admin/audit?action=approval.rejected", nil).want(t, 200, "").decode(t, &page)
	if len(page.Entries) != 1 || page.Entries[0].Action != "approval.rejected" {
		t.Errorf("approval.rejected entries = %+v", page.Entries)
	}
	e.admin(t, "GET", "/admin/orgs/"+o.ID+"/audit?action=org.funded&actor_kind=automation", nil).want(t, 200, "").decode(t, &page)
	if len(page.Entries) == 0 {
		t.Error("no org.funded entry by the automation")
	}
	for _, en := range page.Entries {
		if en.Action != "org.funded" || en.Actor.Kind != "automation" {
			t.Errorf("filtered entry %+v", en)
		}
	}
	e.admin(t, "GET", "/admin/audit?since=2100-01-01T00:00:00Z", nil).want(t, 200, "").decode(t, &page)
	if len(page.Entries) != 0 {
		t.Errorf("entries after 2100: %+v", page.Entries)
	}
	e.admin(t, "GET", "/admin/audit?actor_kind=robot", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/audit?since=yesterday", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/audit?since=2026-03-03T00:00:00Z&until=2026-03-02T00:00:00Z", nil).want(t, 400, "validation_error")
}

// TestAdmin_OneTokenMovesNothingAboveTheThreshold: with a 1,000 MWK
// threshold, the admin token alone credits nothing above it: an OTC trade,
// a payout resolved failed and a clawback answer 202 with the pending
// approval (as the admin document says) and the balance stays; once the
// store has a staff member, removing the threshold answers 202 too and
// leaves it in force, so a funding after it still waits.
func TestAdmin_OneTokenMovesNothingAboveTheThreshold(t *testing.T) {
	e := newEnv(t, withSandboxProvider(time.Hour))
	o, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	var a, b payoutJSON
	e.do(t, "POST", "/v1/payouts/momo", momoBody("5000"), hdr(key, "Idempotency-Key", "a")).want(t, 202, "").decode(t, &a)
	e.do(t, "POST", "/v1/payouts/momo", momoBody("6000"), hdr(key, "Idempotency-Key", "b")).want(t, 202, "").decode(t, &b)
	if _, err := e.Engine.Work().ProcessPayouts(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.admin(t, "POST", "/admin/payouts/"+b.ID+"/resolve", map[string]any{"outcome": "succeeded", "reason": "paid"}).want(t, 200, "")
	e.admin(t, "PUT", "/admin/approval-thresholds/MWK", map[string]any{"threshold": "1000.00"}).want(t, 200, "")
	before := balanceV1(t, e, key)

	type pendingJSON struct {
		Approval struct {
			ID, Kind, Status, Amount string
		} `json:"approval"`
	}
	for _, c := range []struct {
		path, kind, amount string
		body               any
	}{
		{"/admin/orgs/" + o.ID + "/trades", "otc_trade", "1750000.00", map[string]any{"ref": "otc-big", "usdt_amount": "1000.00", "client_rate": "1750"}},
		{"/admin/payouts/" + a.ID + "/resolve", "payout_failed", "", map[string]any{"outcome": "failed", "failure_code": "declined", "reason": "bounced"}},
		{"/admin/payouts/" + b.ID + "/clawback", "payout_clawback", "6000.00", nil},
	} {
		var p pendingJSON
		e.admin(t, "POST", c.path, c.body).want(t, 202, "").decode(t, &p)
		if p.Approval.Kind != c.kind || p.Approval.Status != "pending" || (c.amount != "" && p.Approval.Amount != c.amount) {
			t.Errorf("%s: 202 body = %+v", c.path, p)
		}
		if got := balanceV1(t, e, key); got != before {
			t.Errorf("%s: balance %+v, was %+v", c.path, got, before)
		}
	}

	// Once the store has staff, removing the threshold waits.
	inv, err := e.Engine.People().InviteUser(context.Background(), tambala.InviteUser{Email: "ops@operator.example",
		StaffRoles: []accounts.StaffRole{accounts.StaffOperations}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Engine.StaffSessions().AcceptInvitation(context.Background(), inv.Token, peoplePassword); err != nil {
		t.Fatal(err)
	}
	var p pendingJSON
	e.admin(t, "PUT", "/admin/approval-thresholds/MWK", map[string]any{"threshold": nil}).want(t, 202, "").decode(t, &p)
	if p.Approval.Kind != "threshold_change" {
		t.Errorf("202 body = %+v", p)
	}
	var th struct {
		Thresholds map[string]string `json:"thresholds"`
	}
	e.admin(t, "GET", "/admin/approval-thresholds", nil).want(t, 200, "").decode(t, &th)
	if th.Thresholds["MWK"] != "1000.00" {
		t.Errorf("thresholds = %+v", th)
	}
	e.admin(t, "POST", "/admin/orgs/"+o.ID+"/funding", map[string]any{"asset": "MWK", "amount": "90000.00", "ref": "after"}).want(t, 202, "")
	e.admin(t, "PUT", "/admin/approval-thresholds/MWK", map[string]any{"threshold": "500.00"}).want(t, 200, "")
	if got := balanceV1(t, e, key); got != before {
		t.Errorf("balance %+v, was %+v", got, before)
	}
	// The token resetting the staff member's password suspends their
	// approvals, as the staff list shows.
	type staffJSON struct {
		Users []struct {
			ID        string `json:"id"`
			Suspended *bool  `json:"approvals_suspended"`
		} `json:"users"`
	}
	var staff staffJSON
	e.admin(t, "GET", "/admin/staff/users", nil).want(t, 200, "").decode(t, &staff)
	if len(staff.Users) != 1 || staff.Users[0].Suspended == nil || *staff.Users[0].Suspended {
		t.Fatalf("staff = %+v", staff)
	}
	e.admin(t, "POST", "/admin/users/"+staff.Users[0].ID+"/password-reset", nil).want(t, 201, "")
	staff = staffJSON{}
	e.admin(t, "GET", "/admin/staff/users", nil).want(t, 200, "").decode(t, &staff)
	if len(staff.Users) != 1 || staff.Users[0].Suspended == nil || !*staff.Users[0].Suspended {
		t.Errorf("staff after the reset = %+v", staff)
	}
}
