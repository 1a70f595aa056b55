package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/webhooks"
)

// TestStaffPage: an admin invites a staff member (the accept link shown
// once), sets roles, ends sessions, disables and enables; an operations
// user sees no staff form and is refused.
func TestStaffPage(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	admin := v.staff(t, "admin@operator.example", accounts.StaffAdmin)
	ops := v.staff(t, "ops@operator.example", accounts.StaffOperations)
	tok, opsTok := v.signIn(t, "admin@operator.example", admin), v.signIn(t, "ops@operator.example", ops)
	csrf := accounts.CSRFToken(tok)

	w := do(h, "POST", "/console/staff/invite", tok, url.Values{"csrf": {csrf}, "email": {"new@operator.example"}})
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="invite-roles-error"`) {
		t.Errorf("an invitation without a role: %d", w.Code)
	}
	w = do(h, "POST", "/console/staff/invite", tok, url.Values{"csrf": {csrf}, "email": {"new@operator.example"}, "role": {"desk", "support"}})
	body := w.Body.String()
	i := strings.Index(body, "/console/invitations/accept?token=")
	if w.Code != http.StatusOK || i < 0 {
		t.Fatalf("the invitation: %d %s", w.Code, body)
	}
	token := body[i+len("/console/invitations/accept?token="):]
	token = token[:strings.IndexByte(token, '<')]
	if page := do(h, "GET", "/console/staff", tok, nil).Body.String(); strings.Contains(page, "invitations/accept") || !strings.Contains(page, "new@operator.example") {
		t.Errorf("the link is shown again, or the invitation not listed")
	}
	tu, err := url.QueryUnescape(token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.engine.StaffSessions().AcceptInvitation(v.ctx, tu, password); err != nil {
		t.Fatalf("the link's token: %v", err)
	}
	users, _ := v.engine.People().Users(v.ctx, "")
	var opsID string
	for _, u := range users {
		if u.Email == "ops@operator.example" {
			opsID = u.ID
		}
	}
	// An operations user sees the staff and no form, and is refused.
	page := do(h, "GET", "/console/staff", opsTok, nil).Body.String()
	if postForms(page) != 0 || !strings.Contains(page, "new@operator.example") {
		t.Errorf("the operations user's staff page has forms")
	}
	if w := do(h, "POST", "/console/staff/"+opsID+"/roles", opsTok, url.Values{"csrf": {accounts.CSRFToken(opsTok)}, "role": {"admin"}}); w.Code != http.StatusForbidden {
		t.Errorf("an operations user's roles change: %d", w.Code)
	}

	if w := do(h, "POST", "/console/staff/"+opsID+"/roles", tok, url.Values{"csrf": {csrf}, "role": {"desk", "operations"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("roles: %d %s", w.Code, w.Body.String())
	}
	u, _ := v.engine.People().User(v.ctx, opsID)
	if len(u.StaffRoles) != 2 || u.StaffRoles[0] != accounts.StaffDesk {
		t.Errorf("roles %v", u.StaffRoles)
	}
	if w := do(h, "POST", "/console/staff/"+opsID+"/roles", tok, url.Values{"csrf": {csrf}}); w.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(w.Body.String(), "at least one role") {
		t.Errorf("no role: %d", w.Code)
	}
	if w := do(h, "POST", "/console/staff/"+opsID+"/end-sessions", tok, url.Values{"csrf": {csrf}}); w.Code != http.StatusSeeOther {
		t.Errorf("end sessions: %d", w.Code)
	}
	if w := do(h, "GET", "/console/desk", opsTok, nil); w.Code != http.StatusSeeOther {
		t.Errorf("the ended session still works: %d", w.Code)
	}
	if w := do(h, "POST", "/console/staff/"+opsID+"/disable", tok, url.Values{"csrf": {csrf}}); w.Code != http.StatusSeeOther {
		t.Errorf("disable: %d", w.Code)
	}
	if u, _ := v.engine.People().User(v.ctx, opsID); u.Status != accounts.StatusDisabled {
		t.Errorf("status %s", u.Status)
	}
	if page := do(h, "GET", "/console/staff", tok, nil).Body.String(); !strings.Contains(page, `id="do-enable-`+opsID+`"`) {
		t.Errorf("no Enable button for the disabled user")
	}
	if w := do(h, "POST", "/console/staff/"+opsID+"/enable", tok, url.Values{"csrf": {csrf}}); w.Code != http.StatusSeeOther {
		t.Errorf("enable: %d", w.Code)
	}
	if u, _ := v.engine.People().User(v.ctx, opsID); u.Status != accounts.StatusActive {
		t.Errorf("status %s", u.Status)
	}
}

// TestOrgForms: status, /v2 access, limits, floor and a funding below
// the threshold; a bad amount is shown beside its field.
func TestOrgForms(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	ops := v.staff(t, "ops@operator.example", accounts.StaffOperations)
	tok := v.signIn(t, "ops@operator.example", ops)
	csrf := accounts.CSRFToken(tok)
	base := "/console/orgs/" + v.org.ID + "/"
	for form, vals := range map[string]url.Values{
		"status": {"status": {"suspended"}},
		"v2":     {"access": {"access_suspended"}},
		"limits": {"max_per_payout": {"1000"}, "hourly_count": {"7"}},
		"floor":  {"amount": {"2500"}},
		"fund":   {"amount": {"5"}, "asset": {"USDT"}, "ref": {"manual top-up"}},
	} {
		vals.Set("csrf", csrf)
		if w := do(h, "POST", base+form, tok, vals); w.Code != http.StatusSeeOther {
			t.Errorf("%s: %d %s", form, w.Code, w.Body.String())
		}
	}
	o, _ := v.engine.Operator().Organization(v.ctx, v.org.ID)
	if o.Status != tambala.OrgSuspended || o.V2Access != tambala.V2AccessSuspended || o.PayoutLimits == nil ||
		o.PayoutLimits.HourlyCount != 7 || o.BalanceFloorMWK.String() != "2500.00" {
		t.Errorf("the organization: %+v", o)
	}
	page := do(h, "GET", "/console/orgs/"+v.org.ID, tok, nil).Body.String()
	// The staff read the balances of a suspended organization too
	// (Operator.OrgBalances): issue #36.
	if strings.Contains(page, `id="balances-error"`) || !strings.Contains(page, `id="balance-USDT"`) || !strings.Contains(page, `value="7"`) {
		t.Errorf("the suspended organization's page: %s", page)
	}
	if _, err := v.engine.Operator().SetOrganizationStatus(v.ctx, v.org.ID, tambala.OrgActive); err != nil {
		t.Fatal(err)
	}
	if _, err := v.engine.Operator().SetV2Access(v.ctx, v.org.ID, tambala.V2Enabled); err != nil {
		t.Fatal(err)
	}
	if got := v.available(t, "USDT"); got.String() != "1005.000000" {
		t.Errorf("after funding: %s", got)
	}
	w := do(h, "POST", base+"fund", tok, url.Values{"csrf": {csrf}, "amount": {"lots"}, "asset": {"USDT"}, "ref": {"x"}})
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="fund-amount-error"`) || !strings.Contains(w.Body.String(), `value="lots"`) {
		t.Errorf("a bad amount: %d", w.Code)
	}
	w = do(h, "POST", base+"fund", tok, url.Values{"csrf": {csrf}, "amount": {"5"}, "asset": {"USDT"}, "ref": {"<script>"}})
	if strings.Contains(w.Body.String(), "<script>") {
		t.Errorf("the ref is not escaped")
	}
}

// TestOperationsForms: the pause switches, a rail, a payout failed by
// hand (its form checked first), and a dead delivery sent again.
func TestOperationsForms(t *testing.T) {
	rc := &receiver{}
	v := newManualEnv(t, rc)
	h := v.handler()
	ops := v.staff(t, "ops@operator.example", accounts.StaffOperations)
	tok := v.signIn(t, "ops@operator.example", ops)
	csrf := accounts.CSRFToken(tok)

	if w := do(h, "POST", "/console/operations/pause/v2", tok, url.Values{"csrf": {csrf}, "mode": {"maintenance"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("pause: %d %s", w.Code, w.Body.String())
	}
	if ps, _ := v.engine.Operator().PauseState(v.ctx); ps.V2 != tambala.Maintenance || ps.V1 != tambala.Live {
		t.Errorf("pause %+v", ps)
	}
	if w := do(h, "POST", "/console/operations/pause/v2", tok, url.Values{"csrf": {csrf}, "mode": {""}}); w.Code != http.StatusSeeOther {
		t.Fatalf("live again: %d", w.Code)
	}
	if w := do(h, "POST", "/console/operations/rails/bank", tok, url.Values{"csrf": {csrf}, "disabled": {"yes"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("rail: %d", w.Code)
	}
	page := do(h, "GET", "/console/operations", tok, nil).Body.String()
	if !strings.Contains(page, `<tr id="rail-bank">`) || !strings.Contains(page, "Turn the bank rail on") || !strings.Contains(page, "Turn the momo rail off") {
		t.Errorf("the rails: %s", page)
	}

	cr, err := v.engine.Client(v.p).V1().CreatePayout(v.ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Chikondi\u200bBanda"}},
		tambala.Idempotency{Key: "payout-1"})
	if err == nil {
		t.Fatal("an invisible character was accepted") // the engine refuses it; make a clean one
	}
	cr, err = v.engine.Client(v.p).V1().CreatePayout(v.ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Chikondi Banda"}},
		tambala.Idempotency{Key: "payout-2"})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Resource.ID
	if _, err := v.engine.Work().ProcessPayouts(v.ctx); err != nil {
		t.Fatal(err)
	}
	target := "/console/operations/payouts/" + id + "/resolve"
	w := do(h, "POST", target, tok, url.Values{"csrf": {csrf}, "outcome": {"failed"}})
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="`+id+`-failure_code-error"`) ||
		!strings.Contains(w.Body.String(), `id="`+id+`-reason-error"`) {
		t.Errorf("a failure without its code and reason: %d", w.Code)
	}
	w = do(h, "POST", target, tok, url.Values{"csrf": {csrf}, "outcome": {"failed"}, "failure_code": {"declined"}, "reason": {"The operator declined it."}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("failed: %d %s", w.Code, w.Body.String())
	}
	if p, _ := v.engine.Client(v.p).V1().Payout(v.ctx, id); p.Status != payouts.Failed || p.Failure == nil || p.Failure.Code != payouts.Declined {
		t.Errorf("the payout: %+v", p)
	}
	if w := do(h, "POST", target, tok, url.Values{"csrf": {csrf}, "outcome": {"succeeded"}, "reason": {"again"}}); w.Code != http.StatusConflict {
		t.Errorf("resolving twice: %d", w.Code)
	}

	// Every delivery fails until it is dead; Redeliver queues it again.
	rc.fail.Store(true)
	for range 40 {
		if _, err := v.engine.Work().ProcessDeliveries(v.ctx); err != nil {
			t.Fatal(err)
		}
		v.clock.Add(24 * time.Hour)
	}
	tok = v.signIn(t, "ops@operator.example", ops) // the session ended with the days gone
	csrf = accounts.CSRFToken(tok)
	page = do(h, "GET", "/console/operations?org="+v.org.ID, tok, nil).Body.String()
	dead, err := v.engine.Operator().Deliveries(v.ctx, v.org.ID, tambala.PageRequest{Limit: 10})
	if err != nil || len(dead.Items) == 0 || dead.Items[0].State != webhooks.Dead {
		t.Fatalf("no dead delivery: %+v %v", dead, err)
	}
	did := dead.Items[0].ID
	if !strings.Contains(page, `id="do-redeliver-`+did+`"`) {
		t.Fatalf("the dead delivery is not listed")
	}
	if all := do(h, "GET", "/console/operations", tok, nil).Body.String(); !strings.Contains(all, `id="do-redeliver-`+did+`"`) {
		t.Errorf("every organization's dead deliveries lack it")
	}
	rc.fail.Store(false)
	w = do(h, "POST", "/console/operations/deliveries/"+v.org.ID+"/"+did+"/redeliver", tok, url.Values{"csrf": {csrf}, "back": {v.org.ID}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("redeliver: %d %s", w.Code, w.Body.String())
	}
	again, _ := v.engine.Operator().Deliveries(v.ctx, v.org.ID, tambala.PageRequest{Limit: 10})
	for _, d := range again.Items {
		if d.ID == did && d.State != webhooks.Pending {
			t.Errorf("after redelivery: %s", d.State)
		}
	}
}

// TestOrgUserForms: operations ends an organization's user's sessions,
// disables and enables them from the organization's page; the CSRF token
// is checked, and a user of another organization is not found.
func TestOrgUserForms(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	ops := v.staff(t, "ops@operator.example", accounts.StaffOperations)
	tok := v.signIn(t, "ops@operator.example", ops)
	csrf := accounts.CSRFToken(tok)
	inv, err := v.engine.People().InviteUser(v.ctx, tambala.InviteUser{Org: v.org.ID, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := v.engine.Sessions().AcceptInvitation(v.ctx, inv.Token, "a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	base := "/console/orgs/" + v.org.ID + "/users/" + u.ID + "/"
	if page := do(h, "GET", "/console/orgs/"+v.org.ID, tok, nil).Body.String(); !strings.Contains(page, `id="end-sessions-`+u.ID+`"`) {
		t.Errorf("no End sessions button for the organization's user")
	}
	if w := do(h, "POST", base+"disable", tok, url.Values{}); w.Code != http.StatusForbidden {
		t.Errorf("without the CSRF token: %d", w.Code)
	}
	for _, change := range []string{"end-sessions", "disable"} {
		if w := do(h, "POST", base+change, tok, url.Values{"csrf": {csrf}}); w.Code != http.StatusSeeOther {
			t.Errorf("%s: %d %s", change, w.Code, w.Body.String())
		}
	}
	if got, _ := v.engine.People().User(v.ctx, u.ID); got.Status != accounts.StatusDisabled {
		t.Errorf("status %s", got.Status)
	}
	staff, err := v.engine.People().Users(v.ctx, "")
	if err != nil || len(staff) != 1 {
		t.Fatalf("staff %v %v", staff, err)
	}
	if w := do(h, "POST", "/console/orgs/"+v.org.ID+"/users/"+staff[0].ID+"/disable", tok, url.Values{"csrf": {csrf}}); w.Code != http.StatusNotFound {
		t.Errorf("a staff user through an organization's page: %d", w.Code)
	}
}
