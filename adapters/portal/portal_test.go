package portal_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/portal"
)

func TestHeadersOnEveryPage(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	// Issue #36: the accept page of a token that is not valid is refused
	// on arrival (401), so the page is read with a pending invitation's.
	inv, err := f.engine.People().InviteUser(f.ctx, tambala.InviteUser{Org: f.org.ID, Email: "headers@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, token string }{
		{"/portal/sign-in", ""}, {"/portal/", token}, {"/portal/keys", token}, {"/portal/allowlist", token},
		{"/portal/audit", token}, {"/portal/nowhere", ""}, {"/portal/invitations/accept?token=" + url.QueryEscape(inv.Token), ""},
	} {
		w := do(h, "GET", c.path, c.token, nil)
		if w.Code != http.StatusOK && c.path != "/portal/nowhere" {
			t.Errorf("%s: status %d", c.path, w.Code)
		}
		hd := w.Header()
		if got := hd.Get("Content-Security-Policy"); got != portal.ContentSecurityPolicy {
			t.Errorf("%s: CSP %q", c.path, got)
		}
		for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
			"Cache-Control": "no-store", "Content-Type": "text/html; charset=utf-8"} {
			if got := hd.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", c.path, k, got, want)
			}
		}
		if strings.Contains(w.Body.String(), "<script>") || strings.Contains(w.Body.String(), " style=") {
			t.Errorf("%s: inline script or style", c.path)
		}
	}
	for _, p := range []string{"/portal/static/style.css", "/portal/static/copy.js"} {
		w := do(h, "GET", p, "", nil)
		if w.Code != http.StatusOK || w.Header().Get("Content-Security-Policy") == "" || w.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %v", p, w.Code, w.Header())
		}
	}
	const want = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
	if portal.ContentSecurityPolicy != want {
		t.Errorf("CSP %q", portal.ContentSecurityPolicy)
	}
}

func sessionCookie(t *testing.T, w *httptest.ResponseRecorder) *http.Cookie {
	t.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Name == portal.SecureCookieName || c.Name == portal.InsecureCookieName {
			return c
		}
	}
	t.Fatalf("no session cookie; status %d, body %s", w.Code, w.Body)
	return nil
}

func TestCookieFlags(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	form := url.Values{"email": {"ada@example.com"}, "password": {password}}

	// Plain HTTP with InsecureCookies (a loopback sandbox).
	w := do(f.handler(), "POST", "/portal/sign-in", "", form)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/portal/" {
		t.Fatalf("sign in: %d %s", w.Code, w.Header().Get("Location"))
	}
	c := sessionCookie(t, w)
	if c.Name != portal.InsecureCookieName || c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode ||
		c.Path != "/portal" || c.MaxAge != 0 || !c.Expires.IsZero() {
		t.Errorf("insecure cookie: %+v", c)
	}

	// Over TLS, or without InsecureCookies: the __Host- cookie.
	for _, h := range []struct {
		name string
		h    http.Handler
		tls  bool
	}{{"tls", f.handler(), true}, {"default", portal.New(f.engine, nil), false}} {
		r := httptest.NewRequest("POST", "/portal/sign-in", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if h.tls {
			r.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		h.h.ServeHTTP(w, r)
		c := sessionCookie(t, w)
		if c.Name != portal.SecureCookieName || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode ||
			c.Path != "/" || c.MaxAge != 0 || !c.Expires.IsZero() {
			t.Errorf("%s: secure cookie: %+v", h.name, c)
		}
	}

	// Signing out clears it.
	token := c.Value
	w = do(f.handler(), "POST", "/portal/sign-out", token, url.Values{"csrf": {accounts.CSRFToken(token)}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("sign out: %d", w.Code)
	}
	if c := sessionCookie(t, w); c.MaxAge >= 0 || c.Value != "" {
		t.Errorf("sign-out cookie: %+v", c)
	}
	if _, err := f.engine.Sessions().Session(f.ctx, token); err == nil {
		t.Error("the session outlived sign-out")
	}
}

func TestCSRF(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	other := f.signIn(t)
	a, err := f.engine.Sessions().Admin(f.ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := a.CreateKey(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, csrf := range []string{"", "nope", accounts.CSRFToken(other)} {
		for _, c := range []struct {
			path string
			form url.Values
		}{
			{"/portal/keys", url.Values{}},
			{"/portal/keys/" + key.ID + "/revoke", url.Values{}},
			{"/portal/allowlist", url.Values{"addresses": {"192.0.2.10"}}},
			{"/portal/sign-out", url.Values{}},
		} {
			if csrf != "" {
				c.form.Set("csrf", csrf)
			}
			w := do(h, "POST", c.path, token, c.form)
			if w.Code != http.StatusForbidden {
				t.Errorf("%s with csrf %q: status %d", c.path, csrf, w.Code)
			}
		}
	}
	keys, _ := a.Keys(f.ctx)
	org, _ := a.Organization(f.ctx)
	if len(keys) != 1 || !keys[0].Active() || len(org.Allowlist) != 0 {
		t.Errorf("a forged form changed something: keys %+v, allowlist %v", keys, org.Allowlist)
	}
	if _, err := f.engine.Sessions().Session(f.ctx, token); err != nil {
		t.Errorf("a forged sign-out ended the session: %v", err)
	}
	trail, _ := f.engine.Sessions().AuditTrail(f.ctx, token, tambala.PageRequest{})
	for _, e := range trail.Items {
		if e.Action == tambala.AuditAllowlistChanged || e.Action == tambala.AuditKeyRevoked || e.Action == tambala.AuditSignedOut {
			t.Errorf("audited %s", e.Action)
		}
	}

	// With the token, the same form works.
	w := do(h, "POST", "/portal/allowlist", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "addresses": {"192.0.2.10\n2001:db8::1"}})
	if w.Code != http.StatusOK {
		t.Fatalf("allowlist with csrf: %d %s", w.Code, w.Body)
	}
	org, _ = a.Organization(f.ctx)
	if len(org.Allowlist) != 2 {
		t.Errorf("allowlist %v", org.Allowlist)
	}
}

func TestCrossOriginFormRefused(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	r := httptest.NewRequest("POST", "/portal/sign-in", strings.NewReader(url.Values{"email": {f.email}, "password": {password}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	w := httptest.NewRecorder()
	f.handler().ServeHTTP(w, r)
	if w.Code != http.StatusForbidden || len(w.Result().Cookies()) != 0 {
		t.Errorf("cross-site sign-in: %d", w.Code)
	}
}

func TestValuesAreEscaped(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	// An audit summary and an email carrying markup: the operator invites
	// an address whose local part holds it (quoted), and a sign-in fails
	// with it.
	_, _ = f.engine.People().InviteUser(f.ctx, tambala.InviteUser{Org: f.org.ID, Email: `"<script>alert(1)</script>"@example.com`})
	w := do(h, "POST", "/portal/sign-in", "", url.Values{"email": {evil}, "password": {"x"}})
	if strings.Contains(w.Body.String(), evil) || !strings.Contains(w.Body.String(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("sign-in form echoes the email unescaped: %s", w.Body)
	}
	w = do(h, "POST", "/portal/allowlist", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "addresses": {evil}})
	if w.Code != http.StatusUnprocessableEntity || strings.Contains(w.Body.String(), evil) {
		t.Errorf("allowlist echoes markup unescaped: %d %s", w.Code, w.Body)
	}
	if !strings.Contains(w.Body.String(), `aria-describedby="addresses-hint addresses-error"`) || !strings.Contains(w.Body.String(), `id="addresses-error"`) {
		t.Errorf("the error is not beside the field: %s", w.Body)
	}
	w = do(h, "GET", "/portal/audit", token, nil)
	if strings.Contains(w.Body.String(), "<script>alert") {
		t.Errorf("audit page has markup unescaped: %s", w.Body)
	}
	w = do(h, "GET", "/portal/invitations/accept?token="+url.QueryEscape(`"><script>alert(1)</script>`), "", nil)
	if strings.Contains(w.Body.String(), "<script>alert") {
		t.Errorf("accept page has markup unescaped: %s", w.Body)
	}
}

func TestAPIKeyOpensNoPage(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	full, _, err := f.engine.Operator().CreateKey(f.ctx, f.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	h := f.handler()
	for _, p := range []string{"/portal/", "/portal/keys", "/portal/audit"} {
		r := httptest.NewRequest("GET", p, nil)
		r.Header.Set("Authorization", "Bearer "+full)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/portal/sign-in" {
			t.Errorf("%s with an API key: %d %s", p, w.Code, w.Header().Get("Location"))
		}
		// Nor as the cookie.
		w = do(h, "GET", p, full, nil)
		if w.Code != http.StatusSeeOther {
			t.Errorf("%s with an API key as the cookie: %d", p, w.Code)
		}
	}
}

func TestSessionOpensNoAPI(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	token := f.signIn(t)
	api := httpapi.New(f.engine, nil)
	for _, set := range []func(*http.Request){
		func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) },
		func(r *http.Request) { r.AddCookie(&http.Cookie{Name: portal.InsecureCookieName, Value: token}) },
		func(r *http.Request) { r.AddCookie(&http.Cookie{Name: portal.SecureCookieName, Value: token}) },
	} {
		r := httptest.NewRequest("GET", "/v1/ping", nil)
		set(r)
		w := httptest.NewRecorder()
		api.ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized {
			t.Errorf("/v1/ping with a session: %d %s", w.Code, w.Body)
		}
	}
}

func TestSignInErrors(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	w := do(h, "POST", "/portal/sign-in", "", url.Values{"email": {f.email}, "password": {"wrong password!"}})
	body := w.Body.String()
	if w.Code != http.StatusUnauthorized || !strings.Contains(body, "The email or password is incorrect.") ||
		!strings.Contains(body, `aria-describedby="password-error"`) {
		t.Errorf("wrong password: %d %s", w.Code, body)
	}
	throttled := false
	for range 30 {
		w = do(h, "POST", "/portal/sign-in", "", url.Values{"email": {f.email}, "password": {"wrong password!"}})
		if w.Code == http.StatusTooManyRequests {
			throttled = strings.Contains(w.Body.String(), "Too many sign-in attempts")
			break
		}
	}
	if !throttled {
		t.Errorf("never throttled with the engine's message: %d %s", w.Code, w.Body)
	}
	// The throttle keys on the client address the handler put in the context.
	trail, err := f.engine.People().AuditTrail(context.Background(), tambala.PageRequest{Limit: 1}, tambala.AuditFilter{Org: f.org.ID})
	if err != nil || len(trail.Items) != 1 || trail.Items[0].Address != netip.MustParseAddr("192.0.2.1") || trail.Items[0].RequestID == "" {
		t.Errorf("audit of a portal sign-in: %+v %v", trail.Items, err)
	}
}

func TestAcceptInvitation(t *testing.T) {
	f := newFixture(t, "")
	inv, err := f.engine.People().InviteUser(f.ctx, tambala.InviteUser{Org: f.org.ID, Email: "bo@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	h := f.handler()
	w := do(h, "POST", "/portal/invitations/accept", "", url.Values{"token": {inv.Token}, "password": {"short"}, "confirm": {"short"}})
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="password-error"`) {
		t.Errorf("short password: %d %s", w.Code, w.Body)
	}
	w = do(h, "POST", "/portal/invitations/accept", "", url.Values{"token": {inv.Token}, "password": {password}, "confirm": {password}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/portal/sign-in?accepted=1" {
		t.Fatalf("accept: %d %s", w.Code, w.Body)
	}
	w = do(h, "POST", "/portal/invitations/accept", "", url.Values{"token": {inv.Token}, "password": {password}, "confirm": {password}})
	if w.Code != http.StatusUnauthorized {
		t.Errorf("accepted twice: %d", w.Code)
	}
}

func TestSecondFactorAndEnrolment(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	if err := f.engine.People().SetTOTPRequired(f.ctx, f.org.ID, true); err != nil {
		t.Fatal(err)
	}
	h := f.handler()
	w := do(h, "POST", "/portal/sign-in", "", url.Values{"email": {f.email}, "password": {password}})
	if w.Header().Get("Location") != "/portal/enrol" {
		t.Fatalf("sign in: %d %s", w.Code, w.Header().Get("Location"))
	}
	token := sessionCookie(t, w).Value
	if w := do(h, "GET", "/portal/", token, nil); w.Header().Get("Location") != "/portal/enrol" {
		t.Errorf("overview before enrolment: %d %s", w.Code, w.Header().Get("Location"))
	}
	w = do(h, "GET", "/portal/enrol", token, nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "otpauth://") {
		t.Fatalf("enrol page: %d %s", w.Code, w.Body)
	}
	w = do(h, "POST", "/portal/enrol", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "code": {"000000"}})
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `id="code-error"`) {
		t.Errorf("wrong code: %d %s", w.Code, w.Body)
	}
	if w := do(h, "POST", "/portal/enrol", token, url.Values{"code": {"000000"}}); w.Code != http.StatusForbidden {
		t.Errorf("enrol without csrf: %d", w.Code)
	}
}

func TestInsecureCookieNotReadOverTLS(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	token := f.signIn(t)
	r := httptest.NewRequest("GET", "/portal/", nil)
	r.TLS = &tls.ConnectionState{}
	r.AddCookie(&http.Cookie{Name: portal.InsecureCookieName, Value: token})
	w := httptest.NewRecorder()
	f.handler().ServeHTTP(w, r)
	if w.Code != http.StatusSeeOther {
		t.Errorf("a plain-HTTP cookie over TLS: %d", w.Code)
	}
}

func TestKeyLimitAndOverviewWithoutV2(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	h := f.handler()
	token := f.signIn(t)
	w := do(h, "GET", "/portal/", token, nil)
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, "12345.00") || strings.Contains(body, `id="balances"`) || strings.Contains(body, `id="page-error"`) {
		t.Errorf("overview of an organization without /v2: %d %s", w.Code, body)
	}
	csrf := url.Values{"csrf": {accounts.CSRFToken(token)}}
	for i := range 3 {
		w := do(h, "POST", "/portal/keys", token, csrf)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `id="full-key"`) {
			t.Fatalf("key %d: %d %s", i, w.Code, w.Body)
		}
		if w.Header().Get("Cache-Control") != "no-store" {
			t.Error("the page of a full key may be cached")
		}
	}
	w = do(h, "GET", "/portal/keys", token, nil)
	if !strings.Contains(w.Body.String(), `id="create-key" disabled aria-describedby="create-key-reason"`) ||
		!strings.Contains(w.Body.String(), "at most 3 active keys") {
		t.Errorf("at the limit: %s", w.Body)
	}
	w = do(h, "POST", "/portal/keys", token, csrf)
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), `id="page-error"`) {
		t.Errorf("a fourth key: %d %s", w.Code, w.Body)
	}
}

func TestEnrolThenSecondFactor(t *testing.T) {
	f := newFixture(t, "ada@example.com")
	if err := f.engine.People().SetTOTPRequired(f.ctx, f.org.ID, true); err != nil {
		t.Fatal(err)
	}
	h := f.handler()
	w := do(h, "POST", "/portal/sign-in", "", url.Values{"email": {f.email}, "password": {password}})
	token := sessionCookie(t, w).Value
	w = do(h, "GET", "/portal/enrol", token, nil)
	m := regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`).FindStringSubmatch(w.Body.String())
	if m == nil {
		t.Fatalf("no secret on the enrolment page: %s", w.Body)
	}
	code, err := accounts.TOTPCode(m[1], time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w = do(h, "POST", "/portal/enrol", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "code": {code}})
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `id="recovery-codes"`) || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("confirming: %d %s", w.Code, w.Body)
	}
	codes := regexp.MustCompile(`<li><code>([^<]+)</code></li>`).FindAllStringSubmatch(w.Body.String(), -1)
	if len(codes) == 0 {
		t.Fatalf("no recovery codes: %s", w.Body)
	}
	signedIn := sessionCookie(t, w).Value
	if w := do(h, "GET", "/portal/", signedIn, nil); w.Code != http.StatusOK {
		t.Fatalf("overview after enrolling: %d", w.Code)
	}

	// The next sign-in asks for a code: a recovery code works.
	w = do(h, "POST", "/portal/sign-in", "", url.Values{"email": {f.email}, "password": {password}})
	if w.Header().Get("Location") != "/portal/second-factor" {
		t.Fatalf("second sign in: %s", w.Header().Get("Location"))
	}
	pending := sessionCookie(t, w).Value
	if w := do(h, "GET", "/portal/keys", pending, nil); w.Header().Get("Location") != "/portal/second-factor" {
		t.Errorf("keys before the second factor: %d %s", w.Code, w.Header().Get("Location"))
	}
	w = do(h, "POST", "/portal/second-factor", pending, url.Values{"csrf": {accounts.CSRFToken(pending)}, "code": {"not-a-code"}})
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), `id="code-error"`) {
		t.Errorf("wrong code: %d %s", w.Code, w.Body)
	}
	w = do(h, "POST", "/portal/second-factor", pending, url.Values{"csrf": {accounts.CSRFToken(pending)}, "code": {codes[0][1]}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/portal/" {
		t.Fatalf("recovery code: %d %s", w.Code, w.Body)
	}
	if w := do(h, "GET", "/portal/", sessionCookie(t, w).Value, nil); w.Code != http.StatusOK {
		t.Errorf("overview after the second factor: %d", w.Code)
	}
}
