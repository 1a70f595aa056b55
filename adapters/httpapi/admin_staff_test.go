package httpapi_test

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The admin API's routes for the operator's own staff: their invitations,
// their users and their staff roles. Every exchange goes through e.admin /
// e.adminWith, so each is checked against the admin OpenAPI document.

// staffInvitationJSON is an invitation as the staff routes answer it:
// org_id null and the staff roles.
type staffInvitationJSON struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Org        *string  `json:"org_id"`
	Email      string   `json:"email"`
	Role       string   `json:"role"`
	StaffRoles []string `json:"staff_roles"`
	Status     string   `json:"status"`
	InvitedBy  string   `json:"invited_by"`
	AcceptedAt *string  `json:"accepted_at"`
	UserID     *string  `json:"user_id"`
	RevokedAt  *string  `json:"revoked_at"`
}

type staffInvitedJSON struct {
	Invitation staffInvitationJSON `json:"invitation"`
	Token      string              `json:"token"`
	AcceptPath string              `json:"accept_path"`
}

type staffUserJSON struct {
	ID         string   `json:"id"`
	Org        *string  `json:"org_id"`
	Email      string   `json:"email"`
	Role       string   `json:"role"`
	StaffRoles []string `json:"staff_roles"`
	Status     string   `json:"status"`
	DisabledAt *string  `json:"disabled_at"`
}

type staffUserListJSON struct {
	Org          *string         `json:"org_id"`
	TOTPRequired bool            `json:"totp_required"`
	Users        []staffUserJSON `json:"users"`
}

// staffAuditJSON is an audit entry with its org_id as sent: null or not.
type staffAuditJSON struct {
	ID    string  `json:"id"`
	Org   *string `json:"org_id"`
	Actor struct {
		Kind   string  `json:"kind"`
		UserID *string `json:"user_id"`
		Email  *string `json:"email"`
	} `json:"actor"`
	Action    string  `json:"action"`
	Target    string  `json:"target"`
	Summary   string  `json:"summary"`
	Address   *string `json:"address"`
	RequestID *string `json:"request_id"`
}

func (e *testEnv) staffInvitations(t *testing.T) []staffInvitationJSON {
	t.Helper()
	var out struct {
		Invitations []staffInvitationJSON `json:"invitations"`
	}
	e.admin(t, "GET", "/admin/staff/invitations", nil).want(t, 200, "").decode(t, &out)
	return out.Invitations
}

func (e *testEnv) staffUsers(t *testing.T) staffUserListJSON {
	t.Helper()
	var out staffUserListJSON
	r := e.admin(t, "GET", "/admin/staff/users", nil).want(t, 200, "")
	r.decode(t, &out)
	if m := r.obj(t); m["org_id"] != nil || m["totp_required"] != true {
		t.Errorf("staff users: org_id %v, totp_required %v; want null and true", m["org_id"], m["totp_required"])
	}
	return out
}

// staffAudit is the whole trail, newest first, org_id as sent.
func (e *testEnv) staffAudit(t *testing.T) []staffAuditJSON {
	t.Helper()
	var out struct {
		Entries []staffAuditJSON `json:"entries"`
		HasMore bool             `json:"has_more"`
	}
	e.admin(t, "GET", "/admin/audit?limit=200", nil).want(t, 200, "").decode(t, &out)
	if out.HasMore {
		t.Fatal("the audit trail is over a page of 200")
	}
	return out.Entries
}

func withRequestID(id string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + adminToken, "Request-Id": id}
}

// TestAdminStaff_InviteAcceptAndRoles: the admin token invites a staff
// user with roles, who accepts; the staff are listed apart from any
// organization's people, org_id null and TOTP required; their roles are
// replaced; every change is in the audit trail as the automation's, with
// no organization.
func TestAdminStaff_InviteAcceptAndRoles(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})

	if got := e.staffInvitations(t); len(got) != 0 {
		t.Fatalf("a new engine has staff invitations: %+v", got)
	}
	if got := e.staffUsers(t); got.Org != nil || !got.TOTPRequired || len(got.Users) != 0 {
		t.Fatalf("a new engine's staff = %+v", got)
	}

	var inv staffInvitedJSON
	r := e.adminWith(t, "POST", "/admin/staff/invitations", map[string]any{"email": " Grace@Example.COM ", "roles": []string{"support", "desk", "desk"}},
		withRequestID("req-staff-invite")).want(t, 201, "")
	r.decode(t, &inv)
	i := inv.Invitation
	if !strings.HasPrefix(inv.Token, "inv_") || inv.AcceptPath != "/console/invitations/accept?token="+inv.Token {
		t.Errorf("token %q, accept_path %q", inv.Token, inv.AcceptPath)
	}
	if i.Kind != "invitation" || i.Org != nil || i.Email != "grace@example.com" || i.Role != "staff" ||
		!slices.Equal(i.StaffRoles, []string{"desk", "support"}) || i.Status != "pending" || i.InvitedBy != "automation" ||
		i.AcceptedAt != nil || i.UserID != nil || i.RevokedAt != nil {
		t.Errorf("staff invitation = %+v", i)
	}
	if m := r.obj(t)["invitation"].(map[string]any); m["org_id"] != nil {
		t.Errorf("staff invitation org_id = %v, want null", m["org_id"])
	}
	list := e.staffInvitations(t)
	if len(list) != 1 || list[0].ID != i.ID || list[0].Status != "pending" || !slices.Equal(list[0].StaffRoles, i.StaffRoles) {
		t.Fatalf("staff invitations = %+v", list)
	}
	// An organization's lists hold nothing of the staff.
	if got := e.invitations(t, o.ID); len(got) != 0 {
		t.Errorf("the organization lists staff invitations: %+v", got)
	}

	e.Clock.Advance(time.Second)
	u, err := e.Engine.StaffSessions().AcceptInvitation(portalCtx("192.0.2.7"), inv.Token, peoplePassword)
	if err != nil {
		t.Fatal(err)
	}
	staff := e.staffUsers(t)
	if len(staff.Users) != 1 {
		t.Fatalf("staff users = %+v", staff)
	}
	if s := staff.Users[0]; s.ID != u.ID || s.Org != nil || s.Email != "grace@example.com" || s.Role != "staff" ||
		!slices.Equal(s.StaffRoles, []string{"desk", "support"}) || s.Status != "active" || s.DisabledAt != nil {
		t.Errorf("staff user = %+v", s)
	}
	if got := e.users(t, o.ID); len(got.Users) != 0 {
		t.Errorf("the organization lists staff users: %+v", got.Users)
	}
	if l := e.staffInvitations(t); l[0].Status != "accepted" || l[0].UserID == nil || *l[0].UserID != u.ID {
		t.Errorf("accepted staff invitation = %+v", l[0])
	}

	// Roles replaced, sorted without repeats; the same roles again change
	// nothing.
	e.Clock.Advance(time.Second)
	var got staffUserJSON
	e.adminWith(t, "PUT", "/admin/users/"+u.ID+"/staff-roles", map[string]any{"roles": []string{"operations", "admin", "admin"}},
		withRequestID("req-roles")).want(t, 200, "").decode(t, &got)
	if got.ID != u.ID || got.Org != nil || !slices.Equal(got.StaffRoles, []string{"admin", "operations"}) {
		t.Errorf("after setting roles: %+v", got)
	}
	before := len(e.staffAudit(t))
	e.admin(t, "PUT", "/admin/users/"+u.ID+"/staff-roles", map[string]any{"roles": []string{"admin", "operations"}}).want(t, 200, "").decode(t, &got)
	if !slices.Equal(got.StaffRoles, []string{"admin", "operations"}) {
		t.Errorf("after setting the same roles: %+v", got)
	}
	if n := len(e.staffAudit(t)); n != before {
		t.Errorf("setting the same roles wrote %d audit entries", n-before)
	}
	e.admin(t, "GET", "/admin/users/"+u.ID, nil).want(t, 200, "").decode(t, &got)
	if !slices.Equal(got.StaffRoles, []string{"admin", "operations"}) || got.Org != nil {
		t.Errorf("GET /admin/users/{id} = %+v", got)
	}

	// The trail: each change the automation's, no organization, the
	// caller's address and Request-Id.
	byAction := map[string]staffAuditJSON{}
	for _, en := range e.staffAudit(t) {
		if en.Org == nil {
			if _, seen := byAction[en.Action]; !seen {
				byAction[en.Action] = en
			}
		}
	}
	for action, want := range map[string]struct{ target, reqID string }{
		"user.invited":             {i.ID, "req-staff-invite"},
		"user.staff_roles_changed": {u.ID, "req-roles"},
	} {
		en, ok := byAction[action]
		if !ok {
			t.Errorf("no %s entry without an organization", action)
			continue
		}
		if en.Actor.Kind != "automation" || en.Actor.UserID != nil || en.Actor.Email != nil || en.Target != want.target ||
			en.Address == nil || *en.Address != "127.0.0.1" || en.RequestID == nil || *en.RequestID != want.reqID {
			t.Errorf("%s entry = %+v", action, en)
		}
	}
	if en := byAction["user.staff_roles_changed"]; !strings.Contains(en.Summary, "admin") || !strings.Contains(en.Summary, "operations") {
		t.Errorf("roles entry summary %q", en.Summary)
	}
	if en := byAction["user.invited"]; !strings.Contains(en.Summary, "grace@example.com") {
		t.Errorf("invited entry summary %q", en.Summary)
	}
	if _, ok := byAction["invitation.accepted"]; !ok {
		t.Error("no invitation.accepted entry without an organization")
	}

	// The token was shown once, in the 201 answer: no read, list or entry
	// carries it.
	if !strings.Contains(string(r.Body), inv.Token) {
		t.Error("the 201 answer does not carry the token")
	}
	for _, r := range []*resp{
		e.admin(t, "GET", "/admin/audit", nil).want(t, 200, ""),
		e.admin(t, "GET", "/admin/staff/invitations", nil).want(t, 200, ""),
		e.admin(t, "GET", "/admin/staff/users", nil).want(t, 200, ""),
		e.admin(t, "GET", "/admin/users/"+u.ID, nil).want(t, 200, ""),
	} {
		if strings.Contains(string(r.Body), inv.Token) || strings.Contains(string(r.Body), strings.TrimPrefix(inv.Token, "inv_")) {
			t.Errorf("a read shows the staff invitation's token: %s", truncate(r.Body))
		}
	}
}

// TestAdminStaff_Refusals: bad bodies are validation_error, a taken email
// conflict, an organization's user has no staff roles, an unknown user is
// not_found; none of them changes anything or writes an audit entry.
func TestAdminStaff_Refusals(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})

	// An organization's user: staff_roles [], org_id its organization.
	orgInv := e.invite(t, o.ID, "ada@example.com")
	ada, err := e.Engine.Sessions().AcceptInvitation(portalCtx("192.0.2.7"), orgInv.Token, peoplePassword)
	if err != nil {
		t.Fatal(err)
	}
	m := e.admin(t, "GET", "/admin/users/"+ada.ID, nil).want(t, 200, "").obj(t)
	if roles, ok := m["staff_roles"].([]any); !ok || len(roles) != 0 || m["org_id"] != o.ID {
		t.Errorf("an organization's user: staff_roles %#v, org_id %v", m["staff_roles"], m["org_id"])
	}
	if l := e.admin(t, "GET", "/admin/orgs/"+o.ID+"/invitations", nil).want(t, 200, "").obj(t)["invitations"].([]any); len(l) != 1 ||
		l[0].(map[string]any)["org_id"] != o.ID || len(l[0].(map[string]any)["staff_roles"].([]any)) != 0 {
		t.Errorf("an organization's invitation = %+v", l)
	}

	staffInv := e.admin(t, "POST", "/admin/staff/invitations", map[string]any{"email": "grace@example.com", "roles": []string{"admin"}}).want(t, 201, "")
	var grace staffInvitedJSON
	staffInv.decode(t, &grace)
	g, err := e.Engine.StaffSessions().AcceptInvitation(portalCtx("192.0.2.7"), grace.Token, peoplePassword)
	if err != nil {
		t.Fatal(err)
	}
	setup := len(e.staffAudit(t))

	for _, b := range []any{
		map[string]any{"email": "linus@example.com"},
		map[string]any{"email": "linus@example.com", "roles": []string{}},
		map[string]any{"email": "linus@example.com", "roles": nil},
		map[string]any{"email": "linus@example.com", "roles": []string{"owner"}},
		map[string]any{"email": "linus@example.com", "roles": []string{"desk", "org_admin"}},
		map[string]any{"email": "linus@example.com", "roles": "desk"},
		map[string]any{"email": "linus@example.com", "roles": []int{1}},
		map[string]any{"email": "not an email", "roles": []string{"desk"}},
		map[string]any{"roles": []string{"desk"}},
		`{"email":`,
		`[1]`,
	} {
		e.admin(t, "POST", "/admin/staff/invitations", b).want(t, 400, "validation_error")
	}
	e.adminWith(t, "POST", "/admin/staff/invitations", `email=linus@example.com`,
		map[string]string{"Authorization": "Bearer " + adminToken, "Content-Type": "application/x-www-form-urlencoded"}).want(t, 415, "unsupported_media_type")
	// An email a user has already, staff's or an organization's.
	e.admin(t, "POST", "/admin/staff/invitations", map[string]any{"email": "ada@example.com", "roles": []string{"desk"}}).want(t, 409, "conflict")
	e.admin(t, "POST", "/admin/staff/invitations", map[string]any{"email": "Grace@example.com", "roles": []string{"desk"}}).want(t, 409, "conflict")

	for _, b := range []any{
		map[string]any{},
		map[string]any{"roles": []string{}},
		map[string]any{"roles": nil},
		map[string]any{"roles": []string{"owner"}},
		map[string]any{"roles": []string{"admin", "staff"}},
		map[string]any{"roles": "admin"},
		`{"roles":`,
	} {
		e.admin(t, "PUT", "/admin/users/"+g.ID+"/staff-roles", b).want(t, 400, "validation_error")
	}
	e.adminWith(t, "PUT", "/admin/users/"+g.ID+"/staff-roles", `roles=desk`,
		map[string]string{"Authorization": "Bearer " + adminToken, "Content-Type": "text/plain"}).want(t, 415, "unsupported_media_type")
	// An organization's user has no staff roles to set.
	e.admin(t, "PUT", "/admin/users/"+ada.ID+"/staff-roles", map[string]any{"roles": []string{"desk"}}).want(t, 400, "validation_error")
	e.admin(t, "PUT", "/admin/users/"+unknownID+"/staff-roles", map[string]any{"roles": []string{"desk"}}).want(t, 404, "not_found")
	e.admin(t, "PUT", "/admin/users/not-an-id/staff-roles", map[string]any{"roles": []string{"desk"}}).want(t, 404, "not_found")

	if got := e.staffInvitations(t); len(got) != 1 {
		t.Errorf("refused staff invitations were made: %+v", got)
	}
	var got staffUserJSON
	e.admin(t, "GET", "/admin/users/"+g.ID, nil).want(t, 200, "").decode(t, &got)
	if !slices.Equal(got.StaffRoles, []string{"admin"}) {
		t.Errorf("refused calls changed the staff user's roles: %+v", got)
	}
	m = e.admin(t, "GET", "/admin/users/"+ada.ID, nil).want(t, 200, "").obj(t)
	if roles, _ := m["staff_roles"].([]any); len(roles) != 0 || m["role"] != "org_admin" {
		t.Errorf("refused calls changed the organization's user: %+v", m)
	}
	if n := len(e.staffAudit(t)); n != setup {
		t.Errorf("refused calls left %d audit entries", n-setup)
	}
	// Every staff route needs the admin token.
	for _, c := range []struct{ method, path string }{
		{"GET", "/admin/staff/invitations"}, {"POST", "/admin/staff/invitations"}, {"DELETE", "/admin/staff/invitations/" + unknownID},
		{"GET", "/admin/staff/users"}, {"PUT", "/admin/users/" + g.ID + "/staff-roles"},
	} {
		e.adminWith(t, c.method, c.path, nil, nil).want(t, 401, "unauthorized")
	}
}

// TestAdminStaff_Revoke: a staff invitation is revoked under the staff
// only, twice answers it as it is, its token then accepts nothing; an
// accepted one cannot be; the revocation is the automation's, no
// organization.
func TestAdminStaff_Revoke(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	orgInv := e.invite(t, o.ID, "ada@example.com")

	var inv staffInvitedJSON
	e.admin(t, "POST", "/admin/staff/invitations", map[string]any{"email": "grace@example.com", "roles": []string{"desk"}}).want(t, 201, "").decode(t, &inv)
	id := inv.Invitation.ID

	// Each under its own: a staff invitation is not an organization's, nor
	// the reverse.
	e.admin(t, "DELETE", "/admin/orgs/"+o.ID+"/invitations/"+id, nil).want(t, 404, "not_found")
	e.admin(t, "DELETE", "/admin/staff/invitations/"+orgInv.Invitation.ID, nil).want(t, 404, "not_found")
	e.admin(t, "DELETE", "/admin/staff/invitations/"+unknownID, nil).want(t, 404, "not_found")
	e.admin(t, "DELETE", "/admin/staff/invitations/not-an-id", nil).want(t, 404, "not_found")

	var revoked staffInvitationJSON
	e.adminWith(t, "DELETE", "/admin/staff/invitations/"+id, nil, withRequestID("req-revoke")).want(t, 200, "").decode(t, &revoked)
	if revoked.ID != id || revoked.Status != "revoked" || revoked.RevokedAt == nil || revoked.Org != nil ||
		!slices.Equal(revoked.StaffRoles, []string{"desk"}) {
		t.Errorf("revoked = %+v", revoked)
	}
	e.admin(t, "DELETE", "/admin/staff/invitations/"+id, nil).want(t, 200, "").decode(t, &revoked)
	if revoked.Status != "revoked" {
		t.Errorf("revoked again = %+v", revoked)
	}
	if l := e.staffInvitations(t); len(l) != 1 || l[0].Status != "revoked" {
		t.Errorf("after revoking: %+v", l)
	}
	if _, err := e.Engine.StaffSessions().AcceptInvitation(portalCtx("192.0.2.7"), inv.Token, peoplePassword); err == nil {
		t.Error("a revoked staff invitation was accepted")
	}
	if got := e.staffUsers(t); len(got.Users) != 0 {
		t.Errorf("staff users after a refused acceptance: %+v", got.Users)
	}

	var entry *staffAuditJSON
	for _, en := range e.staffAudit(t) {
		if en.Action == "invitation.revoked" && en.Target == id {
			if entry != nil {
				t.Error("revoking twice wrote two entries")
			}
			entry = &en
		}
	}
	if entry == nil || entry.Org != nil || entry.Actor.Kind != "automation" || entry.Address == nil || *entry.Address != "127.0.0.1" ||
		entry.RequestID == nil || *entry.RequestID != "req-revoke" {
		t.Errorf("revoked entry = %+v", entry)
	}

	// An accepted staff invitation cannot be revoked.
	var second staffInvitedJSON
	e.admin(t, "POST", "/admin/staff/invitations", map[string]any{"email": "linus@example.com", "roles": []string{"support"}}).want(t, 201, "").decode(t, &second)
	if _, err := e.Engine.StaffSessions().AcceptInvitation(portalCtx("192.0.2.7"), second.Token, peoplePassword); err != nil {
		t.Fatal(err)
	}
	e.admin(t, "DELETE", "/admin/staff/invitations/"+second.Invitation.ID, nil).want(t, 409, "conflict")
}
