package console_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/money"
)

// opsPages are the operations pages, for a reading.
func (v *env) opsPages() []string {
	return []string{"/console/orgs", "/console/orgs/" + v.org.ID, "/console/approvals", "/console/operations",
		"/console/operations?org=" + v.org.ID, "/console/audit", "/console/audit?actor_kind=automation&action=org.funded",
		"/console/staff"}
}

// postForms counts the forms of a page's main that post.
func postForms(body string) int {
	main := body
	if i := strings.Index(body, "<main>"); i >= 0 {
		main = body[i:]
	}
	return len(regexp.MustCompile(`<form method="post"`).FindAllString(main, -1))
}

// available is the organization's available balance in asset.
func (v *env) available(t *testing.T, asset money.AssetCode) money.Amount {
	t.Helper()
	b, err := v.engine.Client(v.p).Balance(v.ctx, asset)
	if err != nil {
		t.Fatal(err)
	}
	return b.Available
}

// TestOpsPagesRead: an operations and admin user reads every page with
// its forms; a support user reads them all with no form that posts.
func TestOpsPagesRead(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	boss := v.staff(t, "boss@operator.example", accounts.StaffOperations, accounts.StaffAdmin)
	sup := v.staff(t, "support@operator.example", accounts.StaffSupport)
	bossTok := v.signIn(t, "boss@operator.example", boss)
	supTok := v.signIn(t, "support@operator.example", sup)
	for _, path := range v.opsPages() {
		w := do(h, "GET", path, bossTok, nil)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, w.Code, w.Body.String())
		}
		if !strings.Contains(path, "/audit") && path != "/console/orgs" && postForms(w.Body.String()) == 0 {
			t.Errorf("%s: the operations user sees no form", path)
		}
		w = do(h, "GET", path, supTok, nil)
		if w.Code != http.StatusOK {
			t.Fatalf("support %s: %d", path, w.Code)
		}
		if n := postForms(w.Body.String()); n != 0 {
			t.Errorf("support %s: %d forms that post", path, n)
		}
	}
	w := do(h, "GET", "/console/orgs/"+v.org.ID, bossTok, nil)
	for _, want := range []string{"Acme Ltd", "1000.000000", "USDT", "enabled", "5000000.00 MWK"} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("the organization's page lacks %q", want)
		}
	}
	w = do(h, "GET", "/console/audit?actor=boss@operator.example", bossTok, nil)
	if !strings.Contains(w.Body.String(), "user.signed_in") || strings.Contains(w.Body.String(), "<td>org.funded</td>") {
		t.Errorf("the audit trail filtered by actor: %s", w.Body.String())
	}
	if w := do(h, "GET", "/console/audit?since=yesterday", bossTok, nil); w.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(w.Body.String(), `id="audit-since-error"`) {
		t.Errorf("a bad since: %d", w.Code)
	}
	// A support user's forced POST is refused by the engine.
	w = do(h, "POST", "/console/orgs/"+v.org.ID+"/status", supTok, url.Values{"csrf": {accounts.CSRFToken(supTok)}, "status": {"suspended"}})
	if w.Code != http.StatusForbidden {
		t.Errorf("support's forced status change: %d", w.Code)
	}
	if o, _ := v.engine.Operator().Organization(v.ctx, v.org.ID); o.Status != tambala.OrgActive {
		t.Errorf("support suspended the organization")
	}
}

// TestOpsCSRF: every operations form without the CSRF token is
// forbidden and changes nothing.
func TestOpsCSRF(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	boss := v.staff(t, "boss@operator.example", accounts.StaffOperations, accounts.StaffAdmin)
	tok := v.signIn(t, "boss@operator.example", boss)
	other := v.staff(t, "other@operator.example", accounts.StaffSupport)
	_ = other
	users, err := v.engine.People().Users(v.ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var otherID string
	for _, u := range users {
		if u.Email == "other@operator.example" {
			otherID = u.ID
		}
	}
	before, err := v.engine.People().AuditTrail(v.ctx, tambala.PageRequest{Limit: 1}, tambala.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	forms := map[string]url.Values{
		"/console/orgs/" + v.org.ID + "/status":                       {"status": {"suspended"}},
		"/console/orgs/" + v.org.ID + "/v2":                           {"access": {"access_suspended"}},
		"/console/orgs/" + v.org.ID + "/limits":                       {"hourly_count": {"5"}},
		"/console/orgs/" + v.org.ID + "/floor":                        {"amount": {"100"}},
		"/console/orgs/" + v.org.ID + "/fund":                         {"amount": {"5"}, "asset": {"USDT"}, "ref": {"csrf"}},
		"/console/approvals/x/approve":                                {},
		"/console/approvals/x/reject":                                 {"reason": {"no"}},
		"/console/thresholds":                                         {"asset": {"USDT"}, "amount": {"10"}},
		"/console/operations/pause/v1":                                {"mode": {"incident"}},
		"/console/operations/rails/bank":                              {"disabled": {"yes"}},
		"/console/operations/payouts/x/resolve":                       {"outcome": {"failed"}},
		"/console/operations/deliveries/" + v.org.ID + "/x/redeliver": {},
		"/console/staff/invite":                                       {"email": {"new@operator.example"}, "role": {"desk"}},
		"/console/staff/" + otherID + "/roles":                        {"role": {"admin"}},
		"/console/staff/" + otherID + "/end-sessions":                 {},
		"/console/staff/" + otherID + "/disable":                      {},
	}
	for path, form := range forms {
		for _, csrf := range []string{"", "forged"} {
			f := url.Values{}
			for k, val := range form {
				f[k] = val
			}
			if csrf != "" {
				f.Set("csrf", csrf)
			}
			if w := do(h, "POST", path, tok, f); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "nothing was changed") {
				t.Errorf("%s with csrf %q: %d", path, csrf, w.Code)
			}
		}
	}
	after, err := v.engine.People().AuditTrail(v.ctx, tambala.PageRequest{Limit: 1}, tambala.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Items[0].ID != before.Items[0].ID {
		t.Errorf("a forged form changed something: %+v", after.Items[0])
	}
	if got := v.available(t, "USDT"); got.String() != "1000.000000" {
		t.Errorf("balance %s", got)
	}
}

// TestOwnApproval: a funding above the threshold waits; its requester
// sees no Approve button, and their forced POST is refused with the
// engine's message; a second operations user approves it once.
func TestOwnApproval(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	if err := v.engine.Operator().Approvals().SetThreshold(v.ctx, "USDT", money.FromInt(money.USDT, 100)); err != nil {
		t.Fatal(err)
	}
	a := v.staff(t, "ann@operator.example", accounts.StaffOperations)
	b := v.staff(t, "ben@operator.example", accounts.StaffOperations)
	aTok, bTok := v.signIn(t, "ann@operator.example", a), v.signIn(t, "ben@operator.example", b)

	w := do(h, "POST", "/console/orgs/"+v.org.ID+"/fund", aTok, url.Values{"csrf": {accounts.CSRFToken(aTok)},
		"amount": {"250"}, "asset": {"USDT"}, "ref": {"top-up 42"}})
	if w.Code != http.StatusSeeOther || !strings.Contains(w.Header().Get("Location"), "?pending=") {
		t.Fatalf("funding above the threshold: %d %q %s", w.Code, w.Header().Get("Location"), w.Body.String())
	}
	page := do(h, "GET", w.Header().Get("Location"), aTok, nil).Body.String()
	pend, err := v.engine.Operator().Approvals().List(v.ctx, approvals.Pending, tambala.PageRequest{Limit: 10})
	if err != nil || len(pend.Items) != 1 {
		t.Fatalf("pending: %+v %v", pend, err)
	}
	id := pend.Items[0].ID
	if !strings.Contains(page, "waits for a second staff member&#39;s approval (approval "+id+")") {
		t.Errorf("the pending notice: %s", page)
	}
	if got := v.available(t, "USDT"); got.String() != "1000.000000" {
		t.Fatalf("the money moved before the approval: %s", got)
	}
	page = do(h, "GET", "/console/approvals", aTok, nil).Body.String()
	if strings.Contains(page, "do-approve-"+id) || !strings.Contains(page, "You asked for this") {
		t.Errorf("the requester's approvals page: %s", page)
	}
	w = do(h, "POST", "/console/approvals/"+id+"/approve", aTok, url.Values{"csrf": {accounts.CSRFToken(aTok)}})
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "You asked for this: a second staff member must approve it.") {
		t.Errorf("the requester's forced approval: %d %s", w.Code, w.Body.String())
	}
	if got := v.available(t, "USDT"); got.String() != "1000.000000" {
		t.Fatalf("the requester's approval moved the money: %s", got)
	}
	page = do(h, "GET", "/console/approvals", bTok, nil).Body.String()
	if !strings.Contains(page, `id="do-approve-`+id+`"`) {
		t.Errorf("the second user has no Approve button")
	}
	w = do(h, "POST", "/console/approvals/"+id+"/approve", bTok, url.Values{"csrf": {accounts.CSRFToken(bTok)}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("the approval: %d %s", w.Code, w.Body.String())
	}
	if got := v.available(t, "USDT"); got.String() != "1250.000000" {
		t.Errorf("after the approval: %s", got)
	}
	// Again: conflict, shown on the page; the money moved once.
	w = do(h, "POST", "/console/approvals/"+id+"/approve", bTok, url.Values{"csrf": {accounts.CSRFToken(bTok)}})
	if w.Code != http.StatusConflict {
		t.Errorf("approving twice: %d", w.Code)
	}
	if got := v.available(t, "USDT"); got.String() != "1250.000000" {
		t.Errorf("after approving twice: %s", got)
	}
	// Rejecting needs a reason, beside the field.
	if err := v.engine.Operator().Fund(v.ctx, v.org.ID, money.FromInt(money.USDT, 300), "auto"); err == nil {
		t.Fatal("the automation's funding above the threshold moved")
	}
	pend, _ = v.engine.Operator().Approvals().List(v.ctx, approvals.Pending, tambala.PageRequest{Limit: 10})
	id2 := pend.Items[0].ID
	w = do(h, "POST", "/console/approvals/"+id2+"/reject", aTok, url.Values{"csrf": {accounts.CSRFToken(aTok)}})
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="`+id2+`-reason-error"`) {
		t.Errorf("a rejection without a reason: %d", w.Code)
	}
	w = do(h, "POST", "/console/approvals/"+id2+"/reject", aTok, url.Values{"csrf": {accounts.CSRFToken(aTok)}, "reason": {"not agreed"}})
	if w.Code != http.StatusSeeOther {
		t.Errorf("the rejection: %d %s", w.Code, w.Body.String())
	}
	page = do(h, "GET", "/console/approvals", aTok, nil).Body.String()
	if !strings.Contains(page, "not agreed") || !strings.Contains(page, "rejected") {
		t.Errorf("the decided list: %s", page)
	}
}
