package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
)

// TestUsedInvitationOnArrival: a used invitation link says "already
// accepted" when it is opened, with a link to sign in and no password
// form; an expired one says so too.
func TestUsedInvitationOnArrival(t *testing.T) {
	f := newFixture(t, "")
	inv, err := f.engine.People().InviteUser(f.ctx, tambala.InviteUser{Org: f.org.ID, Email: "bo@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.engine.Sessions().AcceptInvitation(f.ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	w := do(f.handler(), "GET", "/portal/invitations/accept?token="+url.QueryEscape(inv.Token), "", nil)
	body := w.Body.String()
	if w.Code != http.StatusUnauthorized || !strings.Contains(body, "already accepted") || strings.Contains(body, `id="password"`) ||
		!strings.Contains(body, `href="/portal/sign-in"`) {
		t.Errorf("a used link: %d %s", w.Code, body)
	}
}

// TestStaffInvitationNotAtPortal: the portal answers a staff member's
// invitation link as not valid, on arrival and on a submit, and does not
// use it up.
func TestStaffInvitationNotAtPortal(t *testing.T) {
	f := newFixture(t, "")
	inv, err := f.engine.People().InviteUser(f.ctx, tambala.InviteUser{Email: "desk@operator.example",
		StaffRoles: []accounts.StaffRole{accounts.StaffDesk}})
	if err != nil {
		t.Fatal(err)
	}
	h := f.handler()
	w := do(h, "GET", "/portal/invitations/accept?token="+url.QueryEscape(inv.Token), "", nil)
	if body := w.Body.String(); w.Code != http.StatusUnauthorized || !strings.Contains(body, "not valid") || strings.Contains(body, `id="password"`) {
		t.Errorf("a staff link at the portal: %d %s", w.Code, body)
	}
	w = do(h, "POST", "/portal/invitations/accept", "", url.Values{"token": {inv.Token}, "password": {password}, "confirm": {password}})
	if w.Code != http.StatusUnauthorized || w.Header().Get("Location") != "" {
		t.Errorf("a staff invitation accepted at the portal: %d %s", w.Code, w.Header().Get("Location"))
	}
	if _, err := f.engine.StaffSessions().AcceptInvitation(f.ctx, inv.Token, password); err != nil {
		t.Errorf("the staff invitation was used up at the portal: %v", err)
	}
}
