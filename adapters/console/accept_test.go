package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
)

// TestStaffAcceptAtConsole: a staff invitation's link and a staff
// password reset's are the console's own page, which ends at the
// console's sign-in; an organization user's token is not valid here; a
// used link says so on arrival, with no password form.
func TestStaffAcceptAtConsole(t *testing.T) {
	v := newEnv(t)
	h := v.handler()
	inv, err := v.engine.People().InviteUser(v.ctx, tambala.InviteUser{Email: "new@operator.example",
		StaffRoles: []accounts.StaffRole{accounts.StaffDesk}})
	if err != nil {
		t.Fatal(err)
	}
	link := "/console/invitations/accept?token=" + url.QueryEscape(inv.Token)
	w := do(h, "GET", link, "", nil)
	if body := w.Body.String(); w.Code != http.StatusOK || !strings.Contains(body, `action="/console/invitations/accept"`) ||
		!strings.Contains(body, `id="password"`) {
		t.Fatalf("the invitation's page: %d %s", w.Code, body)
	}
	form := url.Values{"token": {inv.Token}, "password": {password}, "confirm": {password}}
	w = do(h, "POST", "/console/invitations/accept", "", form)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/sign-in?accepted=1" {
		t.Fatalf("accept: %d %s %s", w.Code, w.Header().Get("Location"), w.Body)
	}
	// Used: said on arrival, and no form.
	w = do(h, "GET", link, "", nil)
	if body := w.Body.String(); w.Code != http.StatusUnauthorized || !strings.Contains(body, "already accepted") ||
		strings.Contains(body, `id="password"`) || !strings.Contains(body, `href="/console/sign-in"`) {
		t.Errorf("a used link: %d %s", w.Code, body)
	}

	// A staff password reset is accepted here too.
	users, err := v.engine.People().Users(v.ctx, "")
	if err != nil || len(users) != 1 {
		t.Fatalf("staff users: %v %v", users, err)
	}
	reset, err := v.engine.People().ResetPassword(v.ctx, users[0].ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	w = do(h, "GET", "/console/invitations/accept?token="+url.QueryEscape(reset.Token), "", nil)
	if body := w.Body.String(); w.Code != http.StatusOK || !strings.Contains(body, "Choose a new password") {
		t.Errorf("the reset's page: %d %s", w.Code, body)
	}
	next := "another long passphrase"
	w = do(h, "POST", "/console/invitations/accept", "", url.Values{"token": {reset.Token}, "password": {next}, "confirm": {next}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/console/sign-in?accepted=1" {
		t.Errorf("the reset: %d %s %s", w.Code, w.Header().Get("Location"), w.Body)
	}

	// An organization user's invitation is not valid at the console.
	org, err := v.engine.People().InviteUser(v.ctx, tambala.InviteUser{Org: v.org.ID, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	w = do(h, "GET", "/console/invitations/accept?token="+url.QueryEscape(org.Token), "", nil)
	if body := w.Body.String(); w.Code != http.StatusUnauthorized || !strings.Contains(body, "not valid") || strings.Contains(body, `id="password"`) {
		t.Errorf("an organization's invitation at the console: %d %s", w.Code, body)
	}
	w = do(h, "POST", "/console/invitations/accept", "", url.Values{"token": {org.Token}, "password": {password}, "confirm": {password}})
	if w.Code != http.StatusUnauthorized {
		t.Errorf("an organization's invitation accepted at the console: %d", w.Code)
	}
	if _, err := v.engine.Sessions().AcceptInvitation(v.ctx, org.Token, password); err != nil {
		t.Errorf("the organization's invitation was used up at the console: %v", err)
	}
}
