package portal_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
)

// TestDeliveriesPageShowsNoRawDialError: an attempt that got no answer is
// shown in its fixed wording, never the dial error itself (which named
// the address and told a closed port from a listening one).
func TestDeliveriesPageShowsNoRawDialError(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	hook := closed.URL + "/hook"
	closed.Close() // nothing listens there any more
	f := newSenderFixture(t, "ada@example.com", webhookhttp.NewSender(nil))
	h := f.handler()
	token := f.signIn(t)
	a, err := f.engine.Sessions().Admin(f.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.SetWebhookEndpoint(f.ctx, hook); err != nil {
		t.Fatal(err)
	}
	f.collect(t, token, 1)
	if _, err := f.engine.Work().ProcessDeliveries(f.ctx); err != nil {
		t.Fatal(err)
	}
	body := do(h, "GET", "/portal/deliveries", token, nil).Body.String()
	if !strings.Contains(body, `<td class="status">no response (connection refused)</td>`) {
		t.Errorf("the fixed wording is not shown: %s", body)
	}
	for _, raw := range []string{"dial tcp", "connect:", "Post &#34;", `Post "`} {
		if strings.Contains(body, raw) {
			t.Errorf("the raw dial error is shown (%q): %s", raw, body)
		}
	}
}

// TestWebhookPageRefusesInternalURLsInProduction: in production the
// portal refuses a webhook URL into the operator's own network beside the
// field, and no secret is made.
func TestWebhookPageRefusesInternalURLsInProduction(t *testing.T) {
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	e, err := tambala.New(s, &tambala.Options{Environment: tambala.Production, People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.1")})
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := e.People().InviteUser(ctx, tambala.InviteUser{Org: org.ID, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sessions().AcceptInvitation(ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	f := &fixture{engine: e, org: org, email: "ada@example.com", ctx: ctx}
	h := f.handler()
	token := f.signIn(t)
	csrf := accounts.CSRFToken(token)
	for _, bad := range []string{
		"https://127.0.0.1:1", "https://localhost/x", "https://[::1]/x", "https://169.254.169.254/latest/meta-data/",
		"https://10.0.0.1/x", "https://192.168.1.1/x", "https://metadata.google.internal/", "https://2130706433/",
	} {
		w := do(h, "POST", "/portal/webhook", token, url.Values{"csrf": {csrf}, "url": {bad}})
		body := w.Body.String()
		if w.Code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="url-error"`) || strings.Contains(body, "whsec_") {
			t.Errorf("%q: %d %s", bad, w.Code, body)
		}
	}
	if _, set, err := e.Operator().WebhookEndpoint(ctx, org.ID); err != nil || set {
		t.Errorf("an endpoint was set: %v %v", set, err)
	}
}
