package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/console"
)

// TestStaffNotAtPortal (#33): a staff member's email and password at the
// public /portal/sign-in get the answer of an email no user has, open no
// session, and however many wrong ones are sent there, the staff member
// still signs in at the console.
func TestStaffNotAtPortal(t *testing.T) {
	f := newFixture(t, "ada@acme.example")
	inv, err := f.engine.People().InviteUser(f.ctx, tambala.InviteUser{Email: "desk@operator.example",
		StaffRoles: []accounts.StaffRole{accounts.StaffDesk}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.engine.StaffSessions().AcceptInvitation(f.ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	h := f.handler()
	signIn := func(email, pw string) (int, string, bool) {
		w := do(h, "POST", "/portal/sign-in", "", url.Values{"email": {email}, "password": {pw}})
		cookie := false
		for _, c := range w.Result().Cookies() {
			cookie = cookie || c.Value != ""
		}
		return w.Code, w.Body.String(), cookie
	}
	unknownCode, unknownBody, _ := signIn("nobody@operator.example", password)
	code, body, cookie := signIn("desk@operator.example", password)
	if code != unknownCode || code != http.StatusUnauthorized || cookie {
		t.Fatalf("a staff member's right password at the portal: %d (an unknown email: %d), cookie %t", code, unknownCode, cookie)
	}
	if body != strings.ReplaceAll(unknownBody, "nobody@operator.example", "desk@operator.example") {
		t.Errorf("the portal's answer tells a staff email from an unknown one:\n%s\n%s", body, unknownBody)
	}

	for range 2 * accounts.AccountPolicy.MaxFailures {
		signIn("desk@operator.example", "a wrong password here")
	}
	cons := console.New(f.engine, &console.Options{InsecureCookies: true})
	w := do(cons, "POST", "/console/sign-in", "", url.Values{"email": {"desk@operator.example"}, "password": {password}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/enrol" {
		t.Fatalf("the staff member at the console after wrong passwords at the portal: %d %s", w.Code, w.Header().Get("Location"))
	}
	trail, err := f.engine.People().AuditTrail(f.ctx, tambala.PageRequest{Limit: tambala.MaxPageSize}, tambala.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range trail.Items {
		if e.Action == tambala.AuditSignInFailed || e.Action == tambala.AuditLockedOut {
			t.Errorf("the portal recorded a staff sign-in: %+v", e)
		}
	}
}
