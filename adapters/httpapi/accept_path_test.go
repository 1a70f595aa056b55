package httpapi_test

import (
	"testing"
)

// TestStaffResetAcceptPath: a staff member's password reset links to the
// console's accept page (the admin listener's), an organization user's
// to the portal's; each is accepted at that face only.
func TestStaffResetAcceptPath(t *testing.T) {
	e := newEnv(t)
	var staff staffInvitedJSON
	e.admin(t, "POST", "/admin/staff/invitations", map[string]any{"email": "grace@example.com", "roles": []string{"desk"}}).
		want(t, 201, "").decode(t, &staff)
	g, err := e.Engine.StaffSessions().AcceptInvitation(portalCtx("192.0.2.7"), staff.Token, peoplePassword)
	if err != nil {
		t.Fatal(err)
	}
	var reset staffInvitedJSON
	e.admin(t, "POST", "/admin/users/"+g.ID+"/password-reset", nil).want(t, 201, "").decode(t, &reset)
	if reset.AcceptPath != "/console/invitations/accept?token="+reset.Token {
		t.Errorf("a staff reset's accept_path %q", reset.AcceptPath)
	}
	if _, err := e.Engine.Sessions().AcceptInvitation(portalCtx("192.0.2.7"), reset.Token, "a new staff passphrase"); err == nil {
		t.Error("a staff reset was accepted at the portal")
	}
	if _, err := e.Engine.StaffSessions().AcceptInvitation(portalCtx("192.0.2.7"), reset.Token, "a new staff passphrase"); err != nil {
		t.Errorf("a staff reset at the console: %v", err)
	}
}
