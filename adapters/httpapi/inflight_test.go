package httpapi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
)

// The operator lists what is left in flight and resolves it after
// reconciling with the provider: through the admin API, the same
// transitions and ledger entries as the worker.
func TestAdmin_PayoutsInFlightAndResolve(t *testing.T) {
	e := newEnv(t, withSandboxProvider(time.Hour)) // the provider takes an hour to answer
	_, key := e.newOrg(t, orgSpec{fundMWK: 100_000})
	var a, b, c payoutJSON
	e.do(t, "POST", "/v1/payouts/momo", momoBody("1000"), hdr(key, "Idempotency-Key", "a")).want(t, 202, "").decode(t, &a)
	e.do(t, "POST", "/v1/payouts/momo", momoBody("1000"), hdr(key, "Idempotency-Key", "b")).want(t, 202, "").decode(t, &b)
	if _, err := e.Engine.Work().ProcessPayouts(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(20 * time.Minute)
	e.do(t, "POST", "/v1/payouts/momo", momoBody("1000"), hdr(key, "Idempotency-Key", "c")).want(t, 202, "").decode(t, &c)

	var list struct {
		Payouts []struct {
			Payout struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"payout"`
			Overdue     bool    `json:"overdue"`
			FailedCalls int     `json:"failed_calls"`
			NextAttempt *string `json:"next_attempt_at"`
		} `json:"payouts"`
	}
	e.admin(t, "GET", "/admin/payouts/in-flight", nil).want(t, 200, "").decode(t, &list)
	if len(list.Payouts) != 3 || list.Payouts[0].Payout.ID != a.ID || !list.Payouts[0].Overdue || list.Payouts[2].Overdue {
		t.Fatalf("in flight = %+v", list)
	}
	e.admin(t, "GET", "/admin/payouts/in-flight?status=pending&older_than=15m", nil).want(t, 200, "").decode(t, &list)
	if len(list.Payouts) != 2 || list.Payouts[0].Payout.Status != "pending" {
		t.Fatalf("pending for 15m = %+v", list)
	}
	e.admin(t, "GET", "/admin/payouts/in-flight?older_than=soon", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/payouts/in-flight?status=succeeded", nil).want(t, 400, "validation_error")
	e.admin(t, "GET", "/admin/payouts/in-flight?limit=0", nil).want(t, 400, "validation_error")

	before := balanceV1(t, e, key)
	// c is held (never submitted): the worker will take it; not the operator's.
	e.admin(t, "POST", "/admin/payouts/"+c.ID+"/resolve", map[string]any{"outcome": "failed", "failure_code": "declined", "reason": "x"}).want(t, 409, "conflict")
	e.admin(t, "POST", "/admin/payouts/"+a.ID+"/resolve", map[string]any{"outcome": "failed", "failure_code": "declined"}).want(t, 400, "validation_error")
	e.admin(t, "POST", "/admin/payouts/"+a.ID+"/resolve", map[string]any{"outcome": "succeeded", "fee": "1.001", "reason": "x"}).want(t, 400, "validation_error")
	// The provider's reference: at most 100 bytes once trimmed, no control
	// or invisible format character, a JSON string.
	for _, ref := range []any{
		strings.Repeat("R", 101), // too long
		"MP24\u00070311",         // a control character
		"MP24\u202e0311",         // a bidi control
		240311,                   // not a string
	} {
		e.admin(t, "POST", "/admin/payouts/"+a.ID+"/resolve", map[string]any{"outcome": "succeeded", "fee": "282.00", "reason": "x", "reference": ref}).
			want(t, 400, "validation_error")
	}
	var done payoutJSON
	e.admin(t, "POST", "/admin/payouts/"+a.ID+"/resolve", map[string]any{"outcome": "succeeded", "fee": "282.00", "reason": "paid per statement 42",
		"reference": " MP240311.1523.A12345 "}).want(t, 200, "").decode(t, &done)
	trail, err := e.Engine.People().AuditTrail(context.Background(), tambala.PageRequest{Limit: 10}, tambala.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(trail.Items) == 0 || trail.Items[0].Action != tambala.AuditPayoutResolved ||
		trail.Items[0].Summary != `status pending -> succeeded, reason "paid per statement 42", fee charged 282.00 MWK, provider reference "MP240311.1523.A12345"` {
		t.Errorf("audit trail = %+v", trail.Items)
	}
	if done.Status != "succeeded" || done.Fee == nil || *done.Fee != "282.00" {
		t.Errorf("resolved = %+v", done)
	}
	e.admin(t, "POST", "/admin/payouts/"+a.ID+"/resolve", map[string]any{"outcome": "succeeded", "reason": "again"}).want(t, 409, "conflict")
	e.admin(t, "POST", "/admin/payouts/"+b.ID+"/resolve", map[string]any{"outcome": "failed", "failure_code": "recipient_account_invalid", "reason": "bounced"}).want(t, 200, "")
	got, _ := getPayout(t, e, key, b.ID)
	if got.Status != "failed" || got.Failure == nil || !strings.Contains(string(*got.Failure), `"recipient_account_invalid"`) {
		t.Errorf("failed = %+v", got)
	}
	after := balanceV1(t, e, key)
	// Each 1000.00 momo payout held 1244.40 (fee 244.40). a: captured with
	// the observed fee 282.00, the 37.60 above the hold charged from
	// available, as the worker charges it; b: released whole.
	wantAvailable(t, "after resolving", after, mwkSub(t, mwkAdd(t, before.Available, "1244.40"), "37.60"))
	if after.Held != "1244.40" {
		t.Errorf("held %s, want c's 1244.40 alone", after.Held)
	}
	e.admin(t, "GET", "/admin/payouts/in-flight", nil).want(t, 200, "").decode(t, &list)
	if len(list.Payouts) != 1 || list.Payouts[0].Payout.ID != c.ID {
		t.Errorf("left in flight = %+v", list)
	}
}

func mwkAdd(t testing.TB, a, b string) string {
	t.Helper()
	s, err := mwk(t, a).Add(mwk(t, b))
	if err != nil {
		t.Fatal(err)
	}
	return s.String()
}
