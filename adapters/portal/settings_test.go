package portal_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/money"
)

// fakeSender answers every delivery with status and response, and keeps
// the signatures it was given.
type fakeSender struct {
	status   int
	response string
	mu       sync.Mutex
	sigs     []string
}

func (s *fakeSender) Send(_ context.Context, _ string, _ []byte, sig string) (tambala.SendResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sigs = append(s.sigs, sig)
	return tambala.SendResult{StatusCode: s.status, Response: []byte(s.response)}, nil
}

// newSenderFixture is newFixture over an engine that delivers webhooks
// with sender (a sandbox engine).
func newSenderFixture(t *testing.T, email string, sender tambala.WebhookSender) *fixture {
	t.Helper()
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	e, err := tambala.New(s, &tambala.Options{People: tambala.PeopleOptions{PasswordParams: accounts.TestParams},
		Webhooks: sender, Dispatcher: tambala.DispatcherOptions{Concurrency: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.1")})
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := e.People().InviteUser(ctx, tambala.InviteUser{Org: org.ID, Email: email})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sessions().AcceptInvitation(ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	return &fixture{engine: e, org: org, email: email, ctx: ctx}
}

// collect makes up n /v1 collections of the organization, each an event.
func (f *fixture) collect(t *testing.T, token string, n int) {
	t.Helper()
	p, err := f.engine.Sessions().Principal(f.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := f.engine.Client(p).V1().SimulateCollection(f.ctx, tambala.SimulatedCollection{Amount: money.FromInt(money.MWK, 100)}); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) orgNow(t *testing.T, token string) tambala.Organization {
	t.Helper()
	a, err := f.engine.Sessions().Admin(f.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	org, err := a.Organization(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	return org
}

func TestSettingsPagesHeaders(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	for _, p := range []string{"/portal/webhook", "/portal/deliveries", "/portal/floor", "/portal/account"} {
		w := do(h, "GET", p, token, nil)
		if w.Code != http.StatusOK {
			t.Errorf("%s: status %d", p, w.Code)
		}
		hd := w.Header()
		for k, want := range map[string]string{"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
			"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
			"Cache-Control": "no-store", "Content-Type": "text/html; charset=utf-8"} {
			if got := hd.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", p, k, got, want)
			}
		}
		body := w.Body.String()
		if strings.Contains(body, "<script>") || strings.Contains(body, " style=") {
			t.Errorf("%s: inline script or style", p)
		}
		if !strings.Contains(body, `href="`+p+`" aria-current="page"`) {
			t.Errorf("%s: the nav does not mark the page", p)
		}
		// Without a session: the sign-in page.
		if w := do(h, "GET", p, "", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/portal/sign-in" {
			t.Errorf("%s without a session: %d %s", p, w.Code, w.Header().Get("Location"))
		}
	}
}

func TestSettingsCSRF(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	other := f.signIn(t)
	forms := []struct {
		path string
		form url.Values
	}{
		{"/portal/webhook", url.Values{"url": {"https://hooks.example.com/tambala"}}},
		{"/portal/floor", url.Values{"amount": {"5000"}}},
		{"/portal/account/password", url.Values{"current": {password}, "new": {"a brand new password 1"}, "repeat": {"a brand new password 1"}}},
		{"/portal/account/totp", url.Values{}},
		{"/portal/account/totp/confirm", url.Values{"code": {"123456"}}},
	}
	for _, csrf := range []string{"", "nope", accounts.CSRFToken(other)} {
		for _, c := range forms {
			form := url.Values{}
			for k, v := range c.form {
				form[k] = v
			}
			if csrf != "" {
				form.Set("csrf", csrf)
			}
			w := do(h, "POST", c.path, token, form)
			if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "nothing was changed") {
				t.Errorf("%s with csrf %q: status %d", c.path, csrf, w.Code)
			}
			if strings.Contains(w.Body.String(), "whsec_") || strings.Contains(w.Body.String(), "totp-secret") {
				t.Errorf("%s with csrf %q: %s", c.path, csrf, w.Body)
			}
		}
	}
	// Nothing changed: no endpoint, no floor, the old password, no TOTP.
	a, err := f.engine.Sessions().Admin(f.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if _, set, err := a.WebhookEndpoint(f.ctx); err != nil || set {
		t.Errorf("an endpoint was set: %v %v", set, err)
	}
	if org := f.orgNow(t, token); org.BalanceFloorMWK.IsSet() {
		t.Errorf("a floor was set: %s", org.BalanceFloorMWK)
	}
	f.signIn(t) // the old password still works
	si, err := f.engine.Sessions().Session(f.ctx, other)
	if err != nil {
		t.Fatalf("the other session ended: %v", err)
	}
	if si.User.TOTPEnrolled {
		t.Error("TOTP enrolled")
	}
}

func TestWebhookPage(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	csrf := accounts.CSRFToken(token)
	w := do(h, "GET", "/portal/webhook", token, nil)
	if !strings.Contains(w.Body.String(), `id="no-endpoint"`) {
		t.Errorf("no endpoint yet: %s", w.Body)
	}
	for _, bad := range []string{"", "http://hooks.example.com/x", "ftp://hooks.example.com", "not a url"} {
		w := do(h, "POST", "/portal/webhook", token, url.Values{"csrf": {csrf}, "url": {bad}})
		body := w.Body.String()
		if w.Code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="url-error"`) ||
			!strings.Contains(body, `aria-describedby="url-hint url-error"`) || !strings.Contains(body, `aria-invalid="true"`) {
			t.Errorf("%q: %d %s", bad, w.Code, body)
		}
		if strings.Contains(body, "whsec_") {
			t.Errorf("%q: a secret shown", bad)
		}
	}
	w = do(h, "POST", "/portal/webhook", token, url.Values{"csrf": {csrf}, "url": {"http://hooks.example.com/x"}})
	if !strings.Contains(w.Body.String(), "url must be https") {
		t.Errorf("the engine's message is not shown: %s", w.Body)
	}

	// Set: the secret is shown once, with the copy button and its script.
	secretRE := regexp.MustCompile(`id="webhook-secret">(whsec_[^<]+)<`)
	w = do(h, "POST", "/portal/webhook", token, url.Values{"csrf": {csrf}, "url": {"https://hooks.example.com/tambala"}})
	m := secretRE.FindStringSubmatch(w.Body.String())
	if w.Code != http.StatusOK || m == nil || !strings.Contains(w.Body.String(), `data-copy="webhook-secret"`) ||
		!strings.Contains(w.Body.String(), `src="/portal/static/copy.js"`) || !strings.Contains(w.Body.String(), "rotates the secret") {
		t.Fatalf("set: %d %s", w.Code, w.Body)
	}
	secret := m[1]
	for _, p := range []string{"/portal/webhook", "/portal/deliveries", "/portal/audit", "/portal/"} {
		w := do(h, "GET", p, token, nil)
		if strings.Contains(w.Body.String(), secret) || strings.Contains(w.Body.String(), "whsec_") {
			t.Errorf("%s shows the secret again", p)
		}
	}
	w = do(h, "GET", "/portal/webhook", token, nil)
	if !strings.Contains(w.Body.String(), `<code id="current-url">https://hooks.example.com/tambala</code>`) {
		t.Errorf("the current URL: %s", w.Body)
	}

	// Replacing it rotates the secret; in the sandbox http to loopback is allowed.
	w = do(h, "POST", "/portal/webhook", token, url.Values{"csrf": {csrf}, "url": {"http://127.0.0.1:9/hook"}})
	m = secretRE.FindStringSubmatch(w.Body.String())
	if w.Code != http.StatusOK || m == nil || m[1] == secret || !strings.Contains(w.Body.String(), "the old one no longer signs") {
		t.Errorf("replace: %d %s", w.Code, w.Body)
	}
}

func TestDeliveriesPage(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	sender := &fakeSender{status: 500, response: evil}
	f := newSenderFixture(t, "ada@example.com", sender)
	h := f.handler()
	token := f.signIn(t)
	w := do(h, "GET", "/portal/deliveries", token, nil)
	if !strings.Contains(w.Body.String(), `id="no-deliveries"`) {
		t.Errorf("no deliveries yet: %s", w.Body)
	}
	a, err := f.engine.Sessions().Admin(f.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.SetWebhookEndpoint(f.ctx, "https://hooks.example.com/"+url.PathEscape(evil)); err != nil {
		t.Fatal(err)
	}
	f.collect(t, token, 12)
	if _, err := f.engine.Work().ProcessDeliveries(f.ctx); err != nil {
		t.Fatal(err)
	}
	w = do(h, "GET", "/portal/deliveries", token, nil)
	body := w.Body.String()
	if w.Code != http.StatusOK || strings.Contains(body, evil) || !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Fatalf("the response is not escaped: %d %s", w.Code, body)
	}
	if n := strings.Count(body, `class="delivery"`); n != 10 {
		t.Errorf("%d deliveries on the first page", n)
	}
	if !strings.Contains(body, `<td class="status">500</td>`) || !strings.Contains(body, "collection.") {
		t.Errorf("status or event type missing: %s", body)
	}
	sender.mu.Lock()
	sig := sender.sigs[len(sender.sigs)-1]
	sender.mu.Unlock()
	if sig == "" || !strings.Contains(body, sig) {
		t.Errorf("the signature header %q is not shown", sig)
	}
	// The body sent, escaped in a <pre>.
	if !strings.Contains(body, `<pre class="body">{&#34;`) {
		t.Errorf("the body is not shown escaped: %s", body)
	}
	m := regexp.MustCompile(`href="(/portal/deliveries\?before=[^"]+)" id="older"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no link to older deliveries")
	}
	w = do(h, "GET", strings.ReplaceAll(m[1], "&amp;", "&"), token, nil)
	if n := strings.Count(w.Body.String(), `class="delivery"`); n != 2 || strings.Contains(w.Body.String(), `id="older"`) {
		t.Errorf("second page: %d deliveries", n)
	}
}

func TestFloorPage(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	csrf := accounts.CSRFToken(token)
	if w := do(h, "GET", "/portal/floor", token, nil); !strings.Contains(w.Body.String(), "no balance floor") {
		t.Errorf("no floor yet: %s", w.Body)
	}
	for _, bad := range []string{"abc", "-5", "12.345", "1,000", "5e3", "<b>5</b>"} {
		w := do(h, "POST", "/portal/floor", token, url.Values{"csrf": {csrf}, "amount": {bad}})
		body := w.Body.String()
		if w.Code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="amount-error"`) ||
			!strings.Contains(body, `aria-describedby="amount-hint amount-error"`) || strings.Contains(body, "<b>5") {
			t.Errorf("%q: %d %s", bad, w.Code, body)
		}
	}
	if org := f.orgNow(t, token); org.BalanceFloorMWK.IsSet() {
		t.Errorf("a floor was set: %s", org.BalanceFloorMWK)
	}
	w := do(h, "POST", "/portal/floor", token, url.Values{"csrf": {csrf}, "amount": {"5000.5"}})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "MWK 5000.50") {
		t.Errorf("set: %d %s", w.Code, w.Body)
	}
	if org := f.orgNow(t, token); org.BalanceFloorMWK.String() != "5000.50" {
		t.Errorf("floor %s", org.BalanceFloorMWK)
	}
	if w := do(h, "GET", "/portal/floor", token, nil); !strings.Contains(w.Body.String(), `value="5000.50"`) {
		t.Errorf("the current floor: %s", w.Body)
	}
	w = do(h, "POST", "/portal/floor", token, url.Values{"csrf": {csrf}, "amount": {""}})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "no balance floor") {
		t.Errorf("clear: %d %s", w.Code, w.Body)
	}
	if org := f.orgNow(t, token); org.BalanceFloorMWK.IsSet() {
		t.Errorf("the floor was not cleared: %s", org.BalanceFloorMWK)
	}
}

func TestChangePassword(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	other := f.signIn(t)
	csrf := accounts.CSRFToken(token)
	const next = "a brand new password 1"
	for _, c := range []struct{ current, new, repeat, field, text string }{
		{"", next, next, "current", "Enter your current password."},
		{password, "short", "short", "new", "Use at least"},
		{password, next, next + "x", "repeat", "The two new passwords differ."},
		{"not my password", next, next, "current", "The current password is incorrect."},
	} {
		w := do(h, "POST", "/portal/account/password", token, url.Values{"csrf": {csrf}, "current": {c.current}, "new": {c.new}, "repeat": {c.repeat}})
		body := w.Body.String()
		if w.Code < 400 || !strings.Contains(body, `<p class="error" id="`+c.field+`-error">`+c.text) || !strings.Contains(body, `-error"`) {
			t.Errorf("%+v: %d %s", c, w.Code, body)
		}
	}
	w := do(h, "POST", "/portal/account/password", token, url.Values{"csrf": {csrf}, "current": {password}, "new": {next}, "repeat": {next}})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "other sessions are signed out") {
		t.Fatalf("change: %d %s", w.Code, w.Body)
	}
	if _, err := f.engine.Sessions().Session(f.ctx, other); err == nil {
		t.Error("the other session goes on")
	}
	if w := do(h, "GET", "/portal/account", token, nil); w.Code != http.StatusOK {
		t.Errorf("this session ended: %d", w.Code)
	}
	if _, err := f.engine.Sessions().SignIn(f.ctx, f.email, password); err == nil {
		t.Error("the old password still signs in")
	}
	if res, err := f.engine.Sessions().SignIn(f.ctx, f.email, next); err != nil || res.Stage != accounts.StageSignedIn {
		t.Errorf("the new password: %v", err)
	}
}

func TestAccountTOTP(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	csrf := url.Values{"csrf": {accounts.CSRFToken(token)}}
	if w := do(h, "GET", "/portal/account", token, nil); !strings.Contains(w.Body.String(), "Not enabled") || !strings.Contains(w.Body.String(), `id="begin-totp"`) {
		t.Fatalf("not enrolled: %s", w.Body)
	}
	secretRE := regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`)
	w := do(h, "POST", "/portal/account/totp", token, csrf)
	m := secretRE.FindStringSubmatch(w.Body.String())
	if w.Code != http.StatusOK || m == nil || !strings.Contains(w.Body.String(), `id="totp-url">otpauth://`) {
		t.Fatalf("begin: %d %s", w.Code, w.Body)
	}
	// A wrong code: the error beside the field, and a new secret.
	w = do(h, "POST", "/portal/account/totp/confirm", token, url.Values{"csrf": csrf["csrf"], "code": {"000000"}})
	m2 := secretRE.FindStringSubmatch(w.Body.String())
	if w.Code < 400 || m2 == nil || m2[1] == m[1] || !strings.Contains(w.Body.String(), `id="code-error"`) ||
		!strings.Contains(w.Body.String(), `aria-describedby="code-error"`) {
		t.Fatalf("wrong code: %d %s", w.Code, w.Body)
	}
	code, err := accounts.TOTPCode(m2[1], time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w = do(h, "POST", "/portal/account/totp/confirm", token, url.Values{"csrf": csrf["csrf"], "code": {code}})
	codes := regexp.MustCompile(`<li><code>([^<]+)</code></li>`).FindAllStringSubmatch(w.Body.String(), -1)
	if w.Code != http.StatusOK || len(codes) == 0 {
		t.Fatalf("confirm: %d %s", w.Code, w.Body)
	}
	c := sessionCookie(t, w)
	if c.Value == token {
		t.Error("the session was not replaced")
	}
	w = do(h, "GET", "/portal/account", c.Value, nil)
	if !strings.Contains(w.Body.String(), "Enabled.") || strings.Contains(w.Body.String(), `id="begin-totp"`) ||
		!regexp.MustCompile(`id="recovery-left">\d+<`).MatchString(w.Body.String()) {
		t.Errorf("enrolled: %s", w.Body)
	}
	if strings.Contains(w.Body.String(), codes[0][1]) {
		t.Error("the recovery codes are shown again")
	}
	// Enrolled: no second enrolment from here.
	w = do(h, "POST", "/portal/account/totp", c.Value, url.Values{"csrf": {accounts.CSRFToken(c.Value)}})
	if w.Code != http.StatusConflict || strings.Contains(w.Body.String(), "totp-secret") {
		t.Errorf("begin again: %d", w.Code)
	}
}
