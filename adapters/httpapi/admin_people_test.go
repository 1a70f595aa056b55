package httpapi_test

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tambalapay/tambala"
)

// The admin API's routes for the people of organizations' portals and the
// audit trail. Every exchange goes through e.admin / e.adminWith, so each
// is checked against the admin OpenAPI document.

const peoplePassword = "correct horse battery staple"

// unknownID is a well-formed id nothing has.
const unknownID = "0190c4d2-7f3a-7b1e-8a2b-000000000000"

// invited is the 201 answer of POST /admin/orgs/{org}/invitations.
type invited struct {
	Invitation invitationJSON `json:"invitation"`
	Token      string         `json:"token"`
	AcceptPath string         `json:"accept_path"`
}

type invitationJSON struct {
	ID         string  `json:"id"`
	Kind       string  `json:"kind"`
	Org        string  `json:"org_id"`
	Email      string  `json:"email"`
	Role       string  `json:"role"`
	Status     string  `json:"status"`
	InvitedBy  string  `json:"invited_by"`
	CreatedAt  string  `json:"created_at"`
	ExpiresAt  string  `json:"expires_at"`
	AcceptedAt *string `json:"accepted_at"`
	UserID     *string `json:"user_id"`
	RevokedAt  *string `json:"revoked_at"`
}

type userJSON struct {
	ID                string  `json:"id"`
	Org               string  `json:"org_id"`
	Email             string  `json:"email"`
	Role              string  `json:"role"`
	Status            string  `json:"status"`
	TOTPEnrolled      bool    `json:"totp_enrolled"`
	RecoveryCodesLeft int     `json:"recovery_codes_left"`
	CreatedAt         string  `json:"created_at"`
	DisabledAt        *string `json:"disabled_at"`
}

type userListJSON struct {
	Org          string     `json:"org_id"`
	TOTPRequired bool       `json:"totp_required"`
	Users        []userJSON `json:"users"`
}

type auditJSON struct {
	ID    string `json:"id"`
	At    string `json:"at"`
	Org   string `json:"org_id"`
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

type auditPageJSON struct {
	Entries      []auditJSON `json:"entries"`
	HasMore      bool        `json:"has_more"`
	NextBeforeID *string     `json:"next_before_id"`
}

func (e *testEnv) invite(t *testing.T, org, email string) invited {
	t.Helper()
	var out invited
	e.admin(t, "POST", "/admin/orgs/"+org+"/invitations", map[string]any{"email": email}).want(t, 201, "").decode(t, &out)
	return out
}

func (e *testEnv) invitations(t *testing.T, org string) []invitationJSON {
	t.Helper()
	var out struct {
		Invitations []invitationJSON `json:"invitations"`
	}
	e.admin(t, "GET", "/admin/orgs/"+org+"/invitations", nil).want(t, 200, "").decode(t, &out)
	return out.Invitations
}

func (e *testEnv) users(t *testing.T, org string) userListJSON {
	t.Helper()
	var out userListJSON
	e.admin(t, "GET", "/admin/orgs/"+org+"/users", nil).want(t, 200, "").decode(t, &out)
	return out
}

func (e *testEnv) audit(t *testing.T, path string) auditPageJSON {
	t.Helper()
	var out auditPageJSON
	e.admin(t, "GET", path, nil).want(t, 200, "").decode(t, &out)
	return out
}

// portalCtx is a portal caller's context: its address and request id.
func portalCtx(addr string) context.Context {
	return tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr(addr), RequestID: "portal-req"})
}

func TestAdminPeople_InviteListRevoke(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	other, _ := e.newOrg(t, orgSpec{name: "other"})
	base := "/admin/orgs/" + o.ID

	if got := e.invitations(t, o.ID); len(got) != 0 {
		t.Fatalf("a new organization has invitations: %+v", got)
	}
	inv := e.invite(t, o.ID, "  Ada@Example.COM ")
	i := inv.Invitation
	if !strings.HasPrefix(inv.Token, "inv_") || inv.AcceptPath != "/portal/invitations/accept?token="+inv.Token {
		t.Errorf("token %q, accept_path %q", inv.Token, inv.AcceptPath)
	}
	if i.Kind != "invitation" || i.Org != o.ID || i.Email != "ada@example.com" || i.Role != "org_admin" || i.Status != "pending" ||
		i.InvitedBy != "automation" || i.AcceptedAt != nil || i.UserID != nil || i.RevokedAt != nil {
		t.Errorf("invitation = %+v", i)
	}
	if i.CreatedAt != "2026-03-02T09:00:00.000Z" || i.ExpiresAt != "2026-03-05T09:00:00.000Z" {
		t.Errorf("created_at %s, expires_at %s: want the clock's time and 72 hours later", i.CreatedAt, i.ExpiresAt)
	}
	// An explicit role.
	e.admin(t, "POST", base+"/invitations", map[string]any{"email": "grace@example.com", "role": "org_admin"}).want(t, 201, "")

	list := e.invitations(t, o.ID)
	if len(list) != 2 || list[0].ID != i.ID || list[0].Status != "pending" || list[1].Email != "grace@example.com" {
		t.Fatalf("invitations = %+v", list)
	}
	if got := e.invitations(t, other.ID); len(got) != 0 {
		t.Errorf("another organization lists %d invitations", len(got))
	}

	// Revoke: only under its organization; twice answers it as it is.
	e.admin(t, "DELETE", "/admin/orgs/"+other.ID+"/invitations/"+i.ID, nil).want(t, 404, "not_found")
	e.admin(t, "DELETE", base+"/invitations/"+unknownID, nil).want(t, 404, "not_found")
	e.admin(t, "DELETE", base+"/invitations/not-an-id", nil).want(t, 404, "not_found")
	var revoked invitationJSON
	e.admin(t, "DELETE", base+"/invitations/"+i.ID, nil).want(t, 200, "").decode(t, &revoked)
	if revoked.ID != i.ID || revoked.Status != "revoked" || revoked.RevokedAt == nil {
		t.Errorf("revoked = %+v", revoked)
	}
	e.admin(t, "DELETE", base+"/invitations/"+i.ID, nil).want(t, 200, "").decode(t, &revoked)
	if revoked.Status != "revoked" {
		t.Errorf("revoked again = %+v", revoked)
	}
	if list := e.invitations(t, o.ID); list[0].Status != "revoked" || list[1].Status != "pending" {
		t.Errorf("after revoking: %+v", list)
	}
	// A revoked invitation's token accepts nothing.
	if _, err := e.Engine.Sessions().AcceptInvitation(portalCtx("192.0.2.7"), inv.Token, peoplePassword); err == nil {
		t.Error("a revoked invitation was accepted")
	}
	if got := e.users(t, o.ID); len(got.Users) != 0 {
		t.Errorf("users after a refused acceptance: %+v", got.Users)
	}
}

// TestAdminPeople_BadInputCreatesNothing: a bad body is validation_error,
// an unknown organization not_found, and neither leaves an invitation or
// an audit entry.
func TestAdminPeople_BadInputCreatesNothing(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	setup := len(e.audit(t, "/admin/audit").Entries) // the setup's own entries
	base := "/admin/orgs/" + o.ID
	for _, b := range []any{
		map[string]any{"email": "not an email"},
		map[string]any{"email": "no-at-sign.example.com"},
		map[string]any{"email": ""},
		map[string]any{},
		map[string]any{"email": 5},
		map[string]any{"email": "ada@example.com", "role": "owner"},
		map[string]any{"email": "ada@example.com", "role": "operator"},
		map[string]any{"email": "ada@example.com", "role": 1},
		map[string]any{"email": strings.Repeat("a", 250) + "@example.com"},
		`{"email":"ada@example.com","email":"bob@example.com"}`,
		`{"email":`,
		`[1]`,
	} {
		e.admin(t, "POST", base+"/invitations", b).want(t, 400, "validation_error")
	}
	e.adminWith(t, "POST", base+"/invitations", `email=ada@example.com`, map[string]string{"Authorization": "Bearer " + adminToken, "Content-Type": "application/x-www-form-urlencoded"}).
		want(t, 415, "unsupported_media_type")
	e.admin(t, "POST", "/admin/orgs/"+unknownID+"/invitations", map[string]any{"email": "ada@example.com"}).want(t, 404, "not_found")
	e.admin(t, "POST", "/admin/orgs/nope/invitations", map[string]any{"email": "ada@example.com"}).want(t, 404, "not_found")
	e.admin(t, "GET", "/admin/orgs/"+unknownID+"/invitations", nil).want(t, 404, "not_found")
	e.admin(t, "GET", "/admin/orgs/"+unknownID+"/users", nil).want(t, 404, "not_found")
	e.admin(t, "GET", "/admin/orgs/"+unknownID+"/audit", nil).want(t, 404, "not_found")
	e.admin(t, "GET", "/admin/audit?org="+unknownID, nil).want(t, 404, "not_found")
	e.admin(t, "PUT", "/admin/orgs/"+unknownID+"/totp-required", map[string]any{"required": true}).want(t, 404, "not_found")
	e.admin(t, "PUT", "/admin/orgs/"+unknownID+"/totp-required", map[string]any{}).want(t, 404, "not_found")
	for _, p := range []string{"", "/disable", "/enable", "/sessions/end", "/totp/reset", "/password-reset"} {
		method := "POST"
		if p == "" {
			method = "GET"
		}
		e.admin(t, method, "/admin/users/"+unknownID+p, nil).want(t, 404, "not_found")
	}

	if got := e.invitations(t, o.ID); len(got) != 0 {
		t.Errorf("refused invitations were made: %+v", got)
	}
	if got := e.audit(t, "/admin/audit"); len(got.Entries) != setup {
		t.Errorf("refused calls left audit entries: %+v", got.Entries[:len(got.Entries)-setup])
	}
}

// TestAdminPeople_UsersSessionsAndTOTP: an accepted invitation makes a
// user, whom the operator reads, disables, enables, signs out everywhere
// and resets the TOTP of; the organization's TOTP requirement is set and
// read back.
func TestAdminPeople_UsersSessionsAndTOTP(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	base := "/admin/orgs/" + o.ID
	inv := e.invite(t, o.ID, "ada@example.com")

	ctx := portalCtx("192.0.2.7")
	u, err := e.Engine.Sessions().AcceptInvitation(ctx, inv.Token, peoplePassword)
	if err != nil {
		t.Fatal(err)
	}
	list := e.users(t, o.ID)
	if list.Org != o.ID || list.TOTPRequired || len(list.Users) != 1 {
		t.Fatalf("users = %+v", list)
	}
	got := list.Users[0]
	if got.ID != u.ID || got.Org != o.ID || got.Email != "ada@example.com" || got.Role != "org_admin" || got.Status != "active" ||
		got.TOTPEnrolled || got.RecoveryCodesLeft != 0 || got.DisabledAt != nil || got.CreatedAt != "2026-03-02T09:00:00.000Z" {
		t.Errorf("user = %+v", got)
	}
	// A user renders without any secret: exactly these fields.
	m := e.admin(t, "GET", "/admin/users/"+u.ID, nil).want(t, 200, "").obj(t)
	var fields []string
	for f := range m {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	if want := []string{"created_at", "disabled_at", "email", "id", "org_id", "recovery_codes_left", "role", "staff_roles", "status", "totp_enrolled"}; !slices.Equal(fields, want) {
		t.Errorf("user fields %v, want %v", fields, want)
	}
	// The accepted invitation says so, and can no longer be revoked; the
	// email is taken.
	if l := e.invitations(t, o.ID); l[0].Status != "accepted" || l[0].UserID == nil || *l[0].UserID != u.ID || l[0].AcceptedAt == nil {
		t.Errorf("accepted invitation = %+v", l[0])
	}
	e.admin(t, "DELETE", base+"/invitations/"+inv.Invitation.ID, nil).want(t, 409, "conflict")
	e.admin(t, "POST", base+"/invitations", map[string]any{"email": "ADA@example.com"}).want(t, 409, "conflict")

	// Sessions: two sign-ins, ended at once.
	for range 2 {
		if _, err := e.Engine.Sessions().SignIn(ctx, "ada@example.com", peoplePassword); err != nil {
			t.Fatal(err)
		}
	}
	var ended struct {
		UserID string `json:"user_id"`
		N      int    `json:"sessions_ended"`
	}
	e.admin(t, "POST", "/admin/users/"+u.ID+"/sessions/end", nil).want(t, 200, "").decode(t, &ended)
	if ended.UserID != u.ID || ended.N != 2 {
		t.Errorf("sessions ended = %+v, want 2", ended)
	}
	e.admin(t, "POST", "/admin/users/"+u.ID+"/sessions/end", nil).want(t, 200, "").decode(t, &ended)
	if ended.N != 0 {
		t.Errorf("sessions ended again = %d, want 0", ended.N)
	}

	// Disable, which ends the session signed in since; then enable.
	signed, err := e.Engine.Sessions().SignIn(ctx, "ada@example.com", peoplePassword)
	if err != nil {
		t.Fatal(err)
	}
	var du userJSON
	e.admin(t, "POST", "/admin/users/"+u.ID+"/disable", nil).want(t, 200, "").decode(t, &du)
	if du.Status != "disabled" || du.DisabledAt == nil {
		t.Errorf("disabled = %+v", du)
	}
	if _, err := e.Engine.Sessions().Session(ctx, signed.Token); err == nil {
		t.Error("a session outlived its user's disabling")
	}
	if _, err := e.Engine.Sessions().SignIn(ctx, "ada@example.com", peoplePassword); err == nil {
		t.Error("a disabled user signed in")
	}
	e.admin(t, "POST", "/admin/users/"+u.ID+"/disable", nil).want(t, 200, "").decode(t, &du)
	if du.Status != "disabled" {
		t.Errorf("disabled twice = %+v", du)
	}
	if l := e.users(t, o.ID); l.Users[0].Status != "disabled" {
		t.Errorf("listed after disabling: %+v", l.Users[0])
	}
	e.admin(t, "POST", "/admin/users/"+u.ID+"/enable", nil).want(t, 200, "").decode(t, &du)
	if du.Status != "active" || du.DisabledAt != nil {
		t.Errorf("enabled = %+v", du)
	}
	if _, err := e.Engine.Sessions().SignIn(ctx, "ada@example.com", peoplePassword); err != nil {
		t.Errorf("an enabled user cannot sign in: %v", err)
	}

	// TOTP: required, read back with the users, reset.
	var ps struct {
		Org      string `json:"org_id"`
		Required bool   `json:"totp_required"`
	}
	e.admin(t, "PUT", base+"/totp-required", map[string]any{"required": true}).want(t, 200, "").decode(t, &ps)
	if ps.Org != o.ID || !ps.Required {
		t.Errorf("settings = %+v", ps)
	}
	if !e.users(t, o.ID).TOTPRequired {
		t.Error("the users list does not show TOTP required")
	}
	for _, b := range []any{map[string]any{}, map[string]any{"required": nil}, map[string]any{"required": "yes"}, `{"required":tru}`} {
		e.admin(t, "PUT", base+"/totp-required", b).want(t, 400, "validation_error")
	}
	if !e.users(t, o.ID).TOTPRequired {
		t.Error("a refused change moved the TOTP requirement")
	}
	e.admin(t, "PUT", base+"/totp-required", map[string]any{"required": false}).want(t, 200, "").decode(t, &ps)
	if ps.Required || e.users(t, o.ID).TOTPRequired {
		t.Error("TOTP still required after turning it off")
	}
	e.admin(t, "POST", "/admin/users/"+u.ID+"/totp/reset", nil).want(t, 200, "").decode(t, &du)
	if du.ID != u.ID || du.TOTPEnrolled || du.RecoveryCodesLeft != 0 {
		t.Errorf("after a TOTP reset: %+v", du)
	}
}

// TestAdminPeople_AuditTrail: the operator's acts and the user's own are
// read back newest first, with their actor, address and request id, in
// pages; the invitation's token appears in the 201 answer only.
func TestAdminPeople_AuditTrail(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	other, _ := e.newOrg(t, orgSpec{name: "other"})
	base := "/admin/orgs/" + o.ID
	setup := len(e.audit(t, base+"/audit").Entries) // the setup's own entries
	withID := func(id string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + adminToken, "Request-Id": id}
	}

	var inv invited
	e.adminWith(t, "POST", base+"/invitations", map[string]any{"email": "ada@example.com"}, withID("req-invite")).want(t, 201, "").decode(t, &inv)
	e.Clock.Advance(time.Second)
	u, err := e.Engine.Sessions().AcceptInvitation(portalCtx("192.0.2.7"), inv.Token, peoplePassword)
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(time.Second)
	e.adminWith(t, "POST", "/admin/users/"+u.ID+"/disable", nil, withID("req-disable")).want(t, 200, "")
	e.Clock.Advance(time.Second)
	e.adminWith(t, "POST", "/admin/users/"+u.ID+"/enable", nil, withID("req-enable")).want(t, 200, "")
	e.Clock.Advance(time.Second)
	e.admin(t, "PUT", base+"/totp-required", map[string]any{"required": true}).want(t, 200, "")
	e.admin(t, "PUT", base+"/totp-required", map[string]any{"required": true}).want(t, 200, "") // no change, no entry
	e.admin(t, "POST", "/admin/users/"+u.ID+"/sessions/end", nil).want(t, 200, "")
	e.admin(t, "POST", "/admin/users/"+u.ID+"/totp/reset", nil).want(t, 200, "")
	second := e.invite(t, o.ID, "grace@example.com")
	e.admin(t, "DELETE", base+"/invitations/"+second.Invitation.ID, nil).want(t, 200, "")
	e.invite(t, other.ID, "linus@example.com")

	all := e.audit(t, base+"/audit")
	page := all
	page.Entries = page.Entries[:len(page.Entries)-setup]
	var actions []string
	for _, en := range page.Entries {
		actions = append(actions, en.Action)
	}
	want := []string{"invitation.revoked", "user.invited", "user.totp_reset", "user.sessions_ended", "org.totp_required_changed",
		"user.enabled", "user.disabled", "invitation.accepted", "user.invited"}
	if !slices.Equal(actions, want) || page.HasMore || page.NextBeforeID != nil {
		t.Fatalf("audit actions %v (has_more %t), want %v", actions, page.HasMore, want)
	}
	for i := 1; i < len(page.Entries); i++ {
		if page.Entries[i-1].ID <= page.Entries[i].ID || page.Entries[i-1].At < page.Entries[i].At {
			t.Errorf("entries %d and %d are not newest first: %+v, %+v", i-1, i, page.Entries[i-1], page.Entries[i])
		}
	}
	byAction := map[string]auditJSON{}
	for _, en := range page.Entries {
		if _, seen := byAction[en.Action]; !seen {
			byAction[en.Action] = en
		}
		if en.Org != o.ID {
			t.Errorf("entry of another organization: %+v", en)
		}
	}
	// The operator's acts: the caller's address and the Request-Id sent.
	for action, reqID := range map[string]string{"user.disabled": "req-disable", "user.enabled": "req-enable"} {
		en := byAction[action]
		if en.Actor.Kind != "automation" || en.Actor.UserID != nil || en.Actor.Email != nil || en.Target != u.ID ||
			en.Address == nil || *en.Address != "127.0.0.1" || en.RequestID == nil || *en.RequestID != reqID {
			t.Errorf("%s entry = %+v", action, en)
		}
	}
	first := page.Entries[len(page.Entries)-1]
	if first.Action != "user.invited" || first.Target != inv.Invitation.ID || first.RequestID == nil || *first.RequestID != "req-invite" ||
		!strings.Contains(first.Summary, "ada@example.com") || first.At != "2026-03-02T09:00:00.000Z" {
		t.Errorf("invited entry = %+v", first)
	}
	// An entry without a Request-Id sent carries the one the handler made.
	if en := byAction["org.totp_required_changed"]; en.RequestID == nil || *en.RequestID == "" || en.Address == nil {
		t.Errorf("totp required entry = %+v", en)
	}
	// The user's own act: the user as actor, the portal caller's address.
	acc := byAction["invitation.accepted"]
	if acc.Actor.Kind != "user" || acc.Actor.UserID == nil || *acc.Actor.UserID != u.ID || acc.Actor.Email == nil ||
		*acc.Actor.Email != "ada@example.com" || acc.Address == nil || *acc.Address != "192.0.2.7" || acc.RequestID == nil || *acc.RequestID != "portal-req" {
		t.Errorf("accepted entry = %+v", acc)
	}

	// Pages of 4, following next_before_id, give the same entries.
	var paged []auditJSON
	path := base + "/audit?limit=4"
	for n := 0; ; n++ {
		p := e.audit(t, path)
		paged = append(paged, p.Entries...)
		if !p.HasMore {
			break
		}
		if p.NextBeforeID == nil || n > 5 {
			t.Fatalf("page %d: has_more without a cursor: %+v", n, p)
		}
		path = base + "/audit?limit=4&before_id=" + *p.NextBeforeID
	}
	if len(paged) != len(all.Entries) {
		t.Errorf("paged %d entries, want %d", len(paged), len(all.Entries))
	}
	for i := range paged {
		if i < len(page.Entries) && paged[i].ID != page.Entries[i].ID {
			t.Errorf("paged entry %d is %s, want %s", i, paged[i].ID, page.Entries[i].ID)
		}
	}

	// The filtered read of every organization's trail is the same; the
	// whole trail holds the other organization's entry, first.
	if f := e.audit(t, "/admin/audit?org="+o.ID); len(f.Entries) != len(all.Entries) || f.Entries[0].ID != page.Entries[0].ID {
		t.Errorf("GET /admin/audit?org= lists %d entries, want %d", len(f.Entries), len(all.Entries))
	}
	others := e.audit(t, "/admin/orgs/"+other.ID+"/audit")
	every := e.audit(t, "/admin/audit")
	if len(every.Entries) != len(all.Entries)+len(others.Entries) || every.Entries[0].Org != other.ID || every.Entries[0].Action != "user.invited" {
		t.Errorf("GET /admin/audit = %+v", every)
	}
	if p := e.audit(t, "/admin/audit?limit=1"); len(p.Entries) != 1 || !p.HasMore || p.NextBeforeID == nil || *p.NextBeforeID != every.Entries[0].ID {
		t.Errorf("first page of one = %+v", p)
	}
	for _, q := range []string{"limit=0", "limit=201", "limit=x", "before_id=" + unknownID} {
		e.admin(t, "GET", base+"/audit?"+q, nil).want(t, 400, "validation_error")
		e.admin(t, "GET", "/admin/audit?"+q, nil).want(t, 400, "validation_error")
	}

	// The token was shown once: no read, list or entry carries it.
	for _, r := range []*resp{
		e.admin(t, "GET", "/admin/audit", nil).want(t, 200, ""),
		e.admin(t, "GET", base+"/audit", nil).want(t, 200, ""),
		e.admin(t, "GET", base+"/invitations", nil).want(t, 200, ""),
		e.admin(t, "GET", base+"/users", nil).want(t, 200, ""),
		e.admin(t, "GET", "/admin/users/"+u.ID, nil).want(t, 200, ""),
	} {
		for _, tok := range []string{inv.Token, second.Token} {
			if strings.Contains(string(r.Body), tok) || strings.Contains(string(r.Body), strings.TrimPrefix(tok, "inv_")) {
				t.Errorf("a read shows an invitation token: %s", truncate(r.Body))
			}
		}
	}
}

// TestAdminPeople_PasswordReset: the operator issues a password reset of
// a user, answered as an invitation is (its token shown once), listed
// with the organization's invitations as kind password_reset; the user
// sets a new password with it, which ends their sessions; the trail has
// both, never the token.
func TestAdminPeople_PasswordReset(t *testing.T) {
	e := newEnv(t)
	o, _ := e.newOrg(t, orgSpec{})
	base := "/admin/orgs/" + o.ID
	inv := e.invite(t, o.ID, "ada@example.com")
	ctx := portalCtx("192.0.2.7")
	u, err := e.Engine.Sessions().AcceptInvitation(ctx, inv.Token, peoplePassword)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := e.Engine.Sessions().SignIn(ctx, "ada@example.com", peoplePassword)
	if err != nil {
		t.Fatal(err)
	}

	e.admin(t, "POST", "/admin/users/"+unknownID+"/password-reset", nil).want(t, 404, "not_found")
	e.admin(t, "POST", "/admin/users/not-an-id/password-reset", nil).want(t, 404, "not_found")

	var reset invited
	e.adminWith(t, "POST", "/admin/users/"+u.ID+"/password-reset", nil,
		map[string]string{"Authorization": "Bearer " + adminToken, "Request-Id": "req-reset"}).want(t, 201, "").decode(t, &reset)
	r := reset.Invitation
	if !strings.HasPrefix(reset.Token, "inv_") || reset.AcceptPath != "/portal/invitations/accept?token="+reset.Token {
		t.Errorf("token %q, accept_path %q", reset.Token, reset.AcceptPath)
	}
	if r.Kind != "password_reset" || r.Org != o.ID || r.Email != "ada@example.com" || r.Role != "org_admin" || r.Status != "pending" ||
		r.InvitedBy != "automation" || r.AcceptedAt != nil || r.UserID != nil || r.RevokedAt != nil {
		t.Errorf("reset = %+v", r)
	}
	if r.ExpiresAt != "2026-03-05T09:00:00.000Z" {
		t.Errorf("expires_at %s: want 72 hours after the clock's time", r.ExpiresAt)
	}
	list := e.invitations(t, o.ID)
	if len(list) != 2 || list[0].Kind != "invitation" || list[1].ID != r.ID || list[1].Kind != "password_reset" {
		t.Fatalf("invitations = %+v", list)
	}

	// Issuing changes nothing: the session lives, the password works.
	if _, err := e.Engine.Sessions().Session(ctx, signed.Token); err != nil {
		t.Fatalf("issuing a reset ended a session: %v", err)
	}
	const next = "a new password after the reset"
	got, err := e.Engine.Sessions().AcceptInvitation(ctx, reset.Token, next)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != u.ID {
		t.Errorf("the reset answered user %s, want %s", got.ID, u.ID)
	}
	if _, err := e.Engine.Sessions().Session(ctx, signed.Token); err == nil {
		t.Error("a session outlived its user's password reset")
	}
	if _, err := e.Engine.Sessions().SignIn(ctx, "ada@example.com", peoplePassword); err == nil {
		t.Error("the old password still signs in")
	}
	if _, err := e.Engine.Sessions().SignIn(ctx, "ada@example.com", next); err != nil {
		t.Errorf("the new password does not sign in: %v", err)
	}
	if l := e.invitations(t, o.ID); l[1].Status != "accepted" || l[1].UserID == nil || *l[1].UserID != u.ID {
		t.Errorf("used reset = %+v", l[1])
	}
	if l := e.users(t, o.ID); len(l.Users) != 1 {
		t.Errorf("users after a reset: %+v", l.Users)
	}
	// Used, it can no longer be revoked; a second reset can be issued.
	e.admin(t, "DELETE", base+"/invitations/"+r.ID, nil).want(t, 409, "conflict")

	var issued, done *auditJSON
	entries := e.audit(t, base+"/audit").Entries
	for i := range entries {
		switch entries[i].Action {
		case "user.password_reset_issued":
			issued = &entries[i]
		case "user.password_reset":
			done = &entries[i]
		}
		if strings.Contains(entries[i].Summary, reset.Token) || strings.Contains(entries[i].Summary, next) {
			t.Errorf("a secret in the trail: %+v", entries[i])
		}
	}
	if issued == nil || issued.Actor.Kind != "automation" || issued.Target != r.ID || issued.RequestID == nil || *issued.RequestID != "req-reset" {
		t.Errorf("issued entry = %+v", issued)
	}
	if done == nil || done.Actor.Kind != "user" || done.Actor.UserID == nil || *done.Actor.UserID != u.ID || done.Target != u.ID {
		t.Errorf("reset entry = %+v", done)
	}
}
