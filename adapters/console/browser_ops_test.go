package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/manualrail"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// privateTab is a tab of its own browser context (its own cookies), for
// two staff users signed in at once.
func privateTab(t *testing.T) context.Context { return browser.PrivateTab(t) }

// byID selects the element with id, which may begin with a digit (an
// engine id), where "#id" is not a CSS selector.
func byID(id string) chromedp.CSS { return chromedp.CSS(`[id="` + id + `"]`) }

func count(t *testing.T, ctx context.Context, js string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return n
}

// TestBrowserFourEyes: an operations user funds above the threshold and
// sees it pending; a second operations user, signed in in another
// browser context, approves it; the balance moved once.
func TestBrowserFourEyes(t *testing.T) {
	ann, ben := privateTab(t), privateTab(t)
	v := newEnv(t)
	if err := v.engine.Operator().Approvals().SetThreshold(v.ctx, "USDT", money.FromInt(money.USDT, 100)); err != nil {
		t.Fatal(err)
	}
	annSecret := v.staff(t, "ann@operator.example", accounts.StaffOperations)
	benSecret := v.staff(t, "ben@operator.example", accounts.StaffOperations)
	srv := v.server(t)
	v.signInPages(t, ann, srv.URL, "ann@operator.example", annSecret)
	v.signInPages(t, ben, srv.URL, "ben@operator.example", benSecret)

	do1(t, ann, "the organizations", chromedp.Click(chromedp.CSS(`nav a[href="/console/orgs"]`)),
		chromedp.Click(chromedp.CSS(`a[href="/console/orgs/`+v.org.ID+`"]`)), chromedp.WaitVisible(chromedp.ID("form-fund")))
	if s := text(t, ann, "#balance-USDT .available"); s != "1000.000000" {
		t.Fatalf("the balance before: %q", s)
	}
	do1(t, ann, "fund", chromedp.SendKeys(chromedp.ID("fund-amount"), "250"), chromedp.SetValue(chromedp.ID("fund-asset"), "USDT"),
		chromedp.SendKeys(chromedp.ID("fund-ref"), "top-up 42"), chromedp.Click(chromedp.ID("do-fund")),
		chromedp.WaitVisible(chromedp.CSS("p.notice")))
	notice := text(t, ann, "p.notice")
	if !strings.Contains(notice, "waits for a second staff member's approval (approval ") || !strings.Contains(notice, "250.000000 USDT") {
		t.Errorf("the pending notice: %q", notice)
	}
	if s := text(t, ann, "#balance-USDT .available"); s != "1000.000000" {
		t.Errorf("the balance moved before the approval: %q", s)
	}
	do1(t, ann, "the approvals", chromedp.Click(chromedp.CSS(`nav a[href="/console/approvals"]`)), chromedp.WaitVisible(chromedp.ID("pending")))
	if n := count(t, ann, `document.querySelectorAll("[id^=do-approve-]").length`); n != 0 {
		t.Errorf("the requester sees %d Approve buttons", n)
	}
	if s := text(t, ann, "#pending tbody"); !strings.Contains(s, "You asked for this") || !strings.Contains(s, "ann@operator.example") {
		t.Errorf("the requester's pending row: %q", s)
	}

	do1(t, ben, "approve", chromedp.Click(chromedp.CSS(`nav a[href="/console/approvals"]`)), chromedp.WaitVisible(chromedp.ID("pending")),
		chromedp.Click(chromedp.CSS(`#pending [id^=do-approve-]`)), chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if s := text(t, ben, "p.notice"); !strings.Contains(s, "approved") {
		t.Errorf("after approving: %q", s)
	}
	if s := text(t, ben, "#decided tbody"); !strings.Contains(s, "approved") || !strings.Contains(s, "ben@operator.example") {
		t.Errorf("the decided list: %q", s)
	}
	do1(t, ann, "the organization again", chromedp.Navigate(srv.URL+"/console/orgs/"+v.org.ID), chromedp.WaitVisible(chromedp.ID("balances")))
	if s := text(t, ann, "#balance-USDT .available"); s != "1250.000000" {
		t.Errorf("the balance after the approval: %q", s)
	}
	if got := v.available(t, "USDT"); got.String() != "1250.000000" {
		t.Errorf("the engine's balance: %s", got)
	}
}

// receiver records the webhook bodies it is sent.
type receiver struct {
	mu     sync.Mutex
	bodies []string
	fail   atomic.Bool // answer 500
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.bodies = append(rc.bodies, string(b))
	rc.mu.Unlock()
	if rc.fail.Load() {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) got(event string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := 0
	for _, b := range rc.bodies {
		if strings.Contains(b, `"`+event+`"`) {
			n++
		}
	}
	return n
}

// newManualEnv is an engine on the manual rail with one momo institution
// and an organization funded in MWK whose webhook endpoint is rc.
func newManualEnv(t *testing.T, rc *receiver) *env {
	t.Helper()
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	e, err := tambala.New(s, &tambala.Options{Clock: c.Now, Payouts: manualrail.New(nil), Webhooks: webhookhttp.NewSender(nil),
		People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.1")})
	op := e.Operator()
	if err := op.SyncInstitutions(ctx, []payouts.Institution{{ID: 101, Name: "Airtel Money", Rail: payouts.Momo, Network: "9"}}); err != nil {
		t.Fatal(err)
	}
	org, err := op.CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "opening"); err != nil {
		t.Fatal(err)
	}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	if _, _, err := op.SetWebhookEndpoint(ctx, org.ID, hook.URL+"/hook"); err != nil {
		t.Fatal(err)
	}
	p, err := e.Act(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	return &env{engine: e, clock: c, org: org, p: p, ctx: ctx}
}

// TestBrowserManualRail: a payout on the manual rail waits in the
// operations page's queue; the operations user records it succeeded with
// the provider's reference and fee; the payout reads succeeded and the
// organization's receiver gets payout.succeeded after one dispatcher
// pass.
func TestBrowserManualRail(t *testing.T) {
	ctx := privateTab(t)
	rc := &receiver{}
	v := newManualEnv(t, rc)
	secret := v.staff(t, "ops@operator.example", accounts.StaffOperations)
	cr, err := v.engine.Client(v.p).V1().CreatePayout(v.ctx, payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "265991234567", BeneficiaryName: "Chikondi Banda"}},
		tambala.Idempotency{Key: "payout-1"})
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Resource.ID
	if _, err := v.engine.Work().ProcessPayouts(v.ctx); err != nil { // submitted to the manual rail: pending
		t.Fatal(err)
	}
	if _, err := v.engine.Work().ProcessDeliveries(v.ctx); err != nil { // what was due before the outcome
		t.Fatal(err)
	}
	srv := v.server(t)
	v.signInPages(t, ctx, srv.URL, "ops@operator.example", secret)
	do1(t, ctx, "the operations page", chromedp.Click(chromedp.CSS(`nav a[href="/console/operations"]`)),
		chromedp.WaitVisible(byID("resolve-"+id)))
	if s := text(t, ctx, `[id="payout-`+id+`"]`); !strings.Contains(s, "Chikondi Banda") || !strings.Contains(s, "5000.00 MWK") {
		t.Errorf("the queue's row: %q", s)
	}
	do1(t, ctx, "record succeeded", chromedp.SetValue(byID(id+"-outcome"), "succeeded"),
		chromedp.SendKeys(byID(id+"-fee"), "150"), chromedp.SendKeys(byID(id+"-reference"), "AIRTEL-TX-778899"),
		chromedp.SendKeys(byID(id+"-reason"), "Paid through the Airtel Money portal."),
		chromedp.Click(byID("do-resolve-"+id)), chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if s := text(t, ctx, "p.notice"); !strings.Contains(s, "outcome is recorded") {
		t.Errorf("after recording: %q", s)
	}
	if n := count(t, ctx, `document.querySelectorAll('[id="resolve-`+id+`"]').length`); n != 0 {
		t.Errorf("the payout is still in the queue")
	}
	p, err := v.engine.Client(v.p).V1().Payout(v.ctx, id)
	if err != nil || p.Status != payouts.Succeeded || p.Fee == nil || p.Fee.String() != "150.00" {
		t.Fatalf("the payout: %+v %v", p, err)
	}
	if n := rc.got("payout.succeeded"); n != 0 {
		t.Fatalf("payout.succeeded before the dispatcher's pass: %d", n)
	}
	if _, err := v.engine.Work().ProcessDeliveries(v.ctx); err != nil {
		t.Fatal(err)
	}
	if n := rc.got("payout.succeeded"); n != 1 {
		t.Errorf("payout.succeeded delivered %d times after one pass", n)
	}
	page, err := v.engine.People().AuditTrail(v.ctx, tambala.PageRequest{Limit: 1}, tambala.AuditFilter{Action: tambala.AuditPayoutResolved})
	if err != nil || len(page.Items) != 1 || page.Items[0].Actor.Email != "ops@operator.example" || !strings.Contains(page.Items[0].Summary, "AIRTEL-TX-778899") {
		t.Errorf("the audit entry: %+v %v", page.Items, err)
	}
}

// TestBrowserSupportOps: a support user opens every page and finds no
// form that posts but sign-out.
func TestBrowserSupportOps(t *testing.T) {
	ctx := privateTab(t)
	v := newEnv(t)
	secret := v.staff(t, "support@operator.example", accounts.StaffSupport)
	v.staff(t, "ops@operator.example", accounts.StaffOperations)
	if err := v.engine.Operator().Approvals().SetThreshold(v.ctx, "USDT", money.FromInt(money.USDT, 100)); err != nil {
		t.Fatal(err)
	}
	_ = v.engine.Operator().Fund(v.ctx, v.org.ID, money.FromInt(money.USDT, 500), "big") // pending
	o := v.toBank(t, "Chikondi Banda")
	srv := v.server(t)
	v.signInPages(t, ctx, srv.URL, "support@operator.example", secret)
	const posting = `[...document.querySelectorAll("form")].filter(f => f.method === "post" && !f.action.endsWith("/console/sign-out")).length`
	for _, page := range []struct{ path, wait string }{
		{"/console/desk", "queue-accepted"}, {"/console/orders/" + o.ID, "order-summary"}, {"/console/corridors", "corridors"},
		{"/console/orgs", "orgs"}, {"/console/orgs/" + v.org.ID, "org-summary"}, {"/console/approvals", "pending"},
		{"/console/operations", "inflight"}, {"/console/audit", "audit"}, {"/console/staff", "staff"},
	} {
		do1(t, ctx, page.path, chromedp.Navigate(srv.URL+page.path), chromedp.WaitVisible(chromedp.ID(page.wait)))
		if n := count(t, ctx, posting); n != 0 {
			t.Errorf("%s: %d forms that post", page.path, n)
		}
		if n := count(t, ctx, `document.querySelectorAll("form").length`); n < 1 {
			t.Errorf("%s: no sign-out form", page.path)
		}
	}
	do1(t, ctx, "approvals", chromedp.Navigate(srv.URL+"/console/approvals"), chromedp.WaitVisible(chromedp.ID("pending")))
	if s := text(t, ctx, "#pending tbody"); !strings.Contains(s, "Needs the operations role.") {
		t.Errorf("support's pending row: %q", s)
	}
}
