package console_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/console"
	"github.com/tambalapay/tambala/orders"
)

func TestSignInRedirects(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	if w := do(h, "GET", "/console/desk", "", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/sign-in" {
		t.Fatalf("without a session: %d %q", w.Code, w.Header().Get("Location"))
	}
	if w := do(h, "GET", "/console/sign-in", "", nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `action="/console/sign-in"`) {
		t.Fatalf("sign-in page: %d", w.Code)
	}
}

func TestCSRF(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	o := v.toBank(t, "Chikondi Banda")
	h := v.handler()
	target := "/console/orders/" + o.ID + "/moves/processing"

	for _, csrf := range []string{"", "forged"} {
		w := do(h, "POST", target, token, url.Values{"csrf": {csrf}, "confirm": {"yes"}})
		if w.Code != http.StatusForbidden {
			t.Errorf("csrf %q: %d", csrf, w.Code)
		}
		if s := v.status(t, o.ID); s != orders.Accepted {
			t.Fatalf("a forged form moved the order to %s", s)
		}
	}
	// Without "I confirm": the error beside the checkbox, nothing moved.
	w := do(h, "POST", target, token, url.Values{"csrf": {accounts.CSRFToken(token)}})
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="confirm-processing-error"`) {
		t.Fatalf("unconfirmed: %d %s", w.Code, w.Body.String())
	}
	if s := v.status(t, o.ID); s != orders.Accepted {
		t.Fatalf("an unconfirmed move moved the order to %s", s)
	}
	w = do(h, "POST", target, token, url.Values{"csrf": {accounts.CSRFToken(token)}, "confirm": {"yes"}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("confirmed: %d %s", w.Code, w.Body.String())
	}
	if s := v.status(t, o.ID); s != orders.Processing {
		t.Fatalf("after the move: %s", s)
	}
	// A sign-out form without the token is refused too.
	if w := do(h, "POST", "/console/sign-out", token, url.Values{}); w.Code != http.StatusForbidden {
		t.Errorf("sign-out without csrf: %d", w.Code)
	}
	// A form from another origin is refused before the session, even
	// with the right token.
	r := httptest.NewRequest("POST", "/console/orders/"+o.ID+"/moves/complete",
		strings.NewReader(url.Values{"csrf": {accounts.CSRFToken(token)}, "confirm": {"yes"}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Sec-Fetch-Site", "cross-site")
	r.AddCookie(&http.Cookie{Name: console.InsecureCookieName, Value: token})
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusForbidden || v.status(t, o.ID) != orders.Processing {
		t.Errorf("a cross-site form: %d, order %s", w.Code, v.status(t, o.ID))
	}
}

func TestHeaders(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	o := v.fromBank(t)
	h := v.handler()
	if _, err := v.engine.Operator().Desk().MoveOrder(v.ctx, o.ID, orders.Instructions{BankName: "Standard Bank", AccountName: "Desk Ltd", AccountNumber: "9100"}); err != nil {
		t.Fatal(err)
	}
	v.upload(t, o.ID)

	for _, path := range []string{"/console/desk", "/console/orders/" + o.ID, "/console/corridors", "/console/sign-in"} {
		w := do(h, "GET", path, token, nil)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d", path, w.Code)
		}
		hd := w.Header()
		if hd.Get("Content-Security-Policy") != console.ContentSecurityPolicy || !strings.Contains(console.ContentSecurityPolicy, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, hd.Get("Content-Security-Policy"))
		}
		if hd.Get("Cache-Control") != "no-store" || hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, hd)
		}
	}
	page := do(h, "GET", "/console/orders/"+o.ID, token, nil).Body.String()
	// A PDF is framed without the sandbox attribute, which stops
	// Chromium's PDF viewer: the response's own sandbox policy holds.
	if !strings.Contains(page, `<iframe class="proof" src="/console/orders/`+o.ID+`/proof"`) {
		t.Errorf("the order page frames no proof: %s", page)
	}
	w := do(h, "GET", "/console/orders/"+o.ID+"/proof", token, nil)
	hd := w.Header()
	if w.Code != http.StatusOK || w.Body.String() != string(pdf) {
		t.Fatalf("proof: %d %q", w.Code, w.Body.String())
	}
	for k, want := range map[string]string{"Content-Type": "application/pdf", "X-Content-Type-Options": "nosniff",
		"Content-Disposition": "inline", "Cache-Control": "no-store", "X-Frame-Options": "SAMEORIGIN",
		"Content-Security-Policy": console.ProofSecurityPolicy} {
		if hd.Get(k) != want {
			t.Errorf("proof %s: %q, want %q", k, hd.Get(k), want)
		}
	}
	if csp := hd.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox") || !strings.Contains(csp, "frame-ancestors 'self'") {
		t.Errorf("proof CSP %q", csp)
	}
	if w := do(h, "GET", "/console/orders/"+o.ID+"/proof", "", nil); w.Code != http.StatusSeeOther {
		t.Errorf("the proof without a session: %d", w.Code)
	}
}

func TestOrgAdminRefused(t *testing.T) {
	v := newEnv(t)
	inv, err := v.engine.People().InviteUser(v.ctx, tambala.InviteUser{Org: v.org.ID, Email: "ada@acme.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.engine.Sessions().AcceptInvitation(v.ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	h := v.handler()
	// The console's sign-in (Engine.StaffSessions) answers an organization's
	// user as an email no user has (#33): no session is opened at all.
	w := do(h, "POST", "/console/sign-in", "", url.Values{"email": {"ada@acme.example"}, "password": {password}})
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "The email or password is incorrect.") {
		t.Fatalf("an org admin signing in: %d %s", w.Code, w.Body.String())
	}
	for _, c := range w.Result().Cookies() {
		if c.Name == console.InsecureCookieName && c.Value != "" {
			t.Fatalf("an org admin's password opened a console session: %v", c)
		}
	}
	// A portal session of the org admin opens no console page either.
	res, err := v.engine.Sessions().SignIn(v.ctx, "ada@acme.example", password)
	if err != nil {
		t.Fatal(err)
	}
	if w := do(h, "GET", "/console/desk", res.Token, nil); w.Code != http.StatusForbidden {
		t.Errorf("an org admin's session on the desk: %d", w.Code)
	}
	if _, err := v.engine.Sessions().Operator(v.ctx, res.Token); err == nil {
		t.Error("the engine gave an org admin the operator's face")
	}
}

func TestSupportSeesNoForms(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "support@operator.example", accounts.StaffSupport)
	token := v.signIn(t, "support@operator.example", secret)
	to := v.toBank(t, "Chikondi Banda")
	from := v.fromBank(t)
	h := v.handler()
	for _, path := range []string{"/console/desk", "/console/orders/" + to.ID, "/console/orders/" + from.ID, "/console/corridors"} {
		w := do(h, "GET", path, token, nil)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d", path, w.Code)
		}
		body := w.Body.String()
		if n := forms(body); n != 1 { // sign out
			t.Errorf("%s: %d forms for a support user", path, n)
		}
		if !strings.Contains(body, "support@operator.example") || !strings.Contains(body, "(support)") {
			t.Errorf("%s: the signed-in user is not shown", path)
		}
	}
	if body := do(h, "GET", "/console/desk", token, nil).Body.String(); !strings.Contains(body, to.ID) || !strings.Contains(body, from.ID) {
		t.Errorf("the desk lacks the orders: %s", body)
	}
	// A move posted by hand: the engine refuses it.
	w := do(h, "POST", "/console/orders/"+to.ID+"/moves/processing", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "confirm": {"yes"}})
	if w.Code != http.StatusForbidden {
		t.Errorf("a support user's move: %d", w.Code)
	}
	if s := v.status(t, to.ID); s != orders.Accepted {
		t.Errorf("a support user moved the order to %s", s)
	}
}

func TestIllegalMoveRefused(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	o := v.toBank(t, "Chikondi Banda")
	h := v.handler()
	page := do(h, "GET", "/console/orders/"+o.ID, token, nil).Body.String()
	for _, offered := range []string{`id="move-processing"`, `id="move-cancel"`, `id="move-fail"`} {
		if !strings.Contains(page, offered) {
			t.Errorf("an accepted to-bank order lacks %s", offered)
		}
	}
	for _, hidden := range []string{`id="move-complete"`, `id="move-instructions"`, `id="move-confirm-funds"`, `id="move-coins-sent"`, `value="beneficiary_rejected"`} {
		if strings.Contains(page, hidden) {
			t.Errorf("an accepted to-bank order offers %s", hidden)
		}
	}
	w := do(h, "POST", "/console/orders/"+o.ID+"/moves/complete", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "confirm": {"yes"}})
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "cannot take complete") {
		t.Fatalf("complete from accepted: %d %s", w.Code, w.Body.String())
	}
	if s := v.status(t, o.ID); s != orders.Accepted {
		t.Fatalf("the illegal move moved the order to %s", s)
	}
	// A failure code the state does not allow, posted by hand.
	w = do(h, "POST", "/console/orders/"+o.ID+"/moves/fail", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "confirm": {"yes"}, "code": {"not_delivered"}})
	if w.Code != http.StatusConflict || v.status(t, o.ID) != orders.Accepted {
		t.Fatalf("fail not_delivered from accepted: %d", w.Code)
	}
	// An unknown move.
	if w := do(h, "POST", "/console/orders/"+o.ID+"/moves/teleport", token, url.Values{"csrf": {accounts.CSRFToken(token)}}); w.Code != http.StatusNotFound {
		t.Errorf("an unknown move: %d", w.Code)
	}
}

func TestReplacedProofRefused(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	o := v.fromBank(t)
	if _, err := v.engine.Operator().Desk().MoveOrder(v.ctx, o.ID, orders.Instructions{BankName: "Standard Bank", AccountName: "Desk Ltd", AccountNumber: "9100"}); err != nil {
		t.Fatal(err)
	}
	first := v.upload(t, o.ID).Proof.ID
	if _, err := v.engine.Operator().Desk().MoveOrder(v.ctx, o.ID, orders.RejectProof{ProofID: first, Reason: "blurred"}); err != nil {
		t.Fatal(err)
	}
	v.upload(t, o.ID)
	h := v.handler()
	// The form the desk loaded before the new proof names the old one.
	w := do(h, "POST", "/console/orders/"+o.ID+"/moves/confirm-funds", token, url.Values{"csrf": {accounts.CSRFToken(token)}, "confirm": {"yes"}, "proof_id": {first}})
	if w.Code != http.StatusConflict {
		t.Fatalf("confirming a replaced proof: %d", w.Code)
	}
	if s := v.status(t, o.ID); s != orders.ProofSubmitted {
		t.Fatalf("after confirming a replaced proof: %s", s)
	}
}

func TestEscapedBeneficiary(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	o := v.toBank(t, `<script>alert("x")</script> & Co`)
	body := do(v.handler(), "GET", "/console/orders/"+o.ID, token, nil).Body.String()
	if strings.Contains(body, "<script>") || !strings.Contains(body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; Co") {
		t.Errorf("the beneficiary is not escaped: %s", body)
	}
}

func TestCorridors(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	h := v.handler()
	body := do(h, "GET", "/console/corridors", token, nil).Body.String()
	if !strings.Contains(body, "1750.5") || !strings.Contains(body, "automation") || !strings.Contains(body, `id="corridor-form-MWK"`) {
		t.Fatalf("corridors: %s", body)
	}
	csrf := accounts.CSRFToken(token)
	w := do(h, "POST", "/console/corridors/MWK", token, url.Values{"csrf": {csrf}, "rate_off_ramp": {"abc"}, "rate_on_ramp": {"1800"}, "min": {"1000"}, "open": {"yes"}})
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="MWK.rate_off_ramp-error"`) {
		t.Fatalf("a bad rate: %d %s", w.Code, w.Body.String())
	}
	w = do(h, "POST", "/console/corridors/MWK", token, url.Values{"csrf": {csrf}, "rate_off_ramp": {"1760"}, "rate_on_ramp": {"1810"}, "min": {"2000"}, "max": {""}, "open": {"yes"}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("saving: %d %s", w.Code, w.Body.String())
	}
	body = do(h, "GET", "/console/corridors", token, nil).Body.String()
	if !strings.Contains(body, "1760") || !strings.Contains(body, "desk@operator.example, ") {
		t.Errorf("after saving: %s", body)
	}
}

func TestAssetLimits(t *testing.T) {
	v := newEnv(t)
	secret := v.staff(t, "desk@operator.example", accounts.StaffDesk)
	token := v.signIn(t, "desk@operator.example", secret)
	h := v.handler()
	body := do(h, "GET", "/console/corridors", token, nil).Body.String()
	if !strings.Contains(body, `id="limits-USDT-convert"`) || !strings.Contains(body, `id="limits-form-MWK-payout"`) {
		t.Fatalf("limits: %s", body)
	}
	csrf := accounts.CSRFToken(token)
	w := do(h, "POST", "/console/limits/USDT/convert", token, url.Values{"csrf": {csrf}, "min": {"5"}, "max": {"1"}})
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), `id="USDT-convert-form-error"`) {
		t.Fatalf("min above max: %d %s", w.Code, w.Body.String())
	}
	w = do(h, "POST", "/console/limits/USDT/convert", token, url.Values{"csrf": {csrf}, "min": {"5"}, "max": {"500"}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("saving: %d %s", w.Code, w.Body.String())
	}
	l, err := v.engine.Operator().Desk().AssetLimits(v.ctx, "USDT", tambala.OpConvert)
	if err != nil || l.Min.String() != "5.000000" || l.Max.String() != "500.000000" {
		t.Errorf("limits %v %v (%v)", l.Min, l.Max, err)
	}
}
