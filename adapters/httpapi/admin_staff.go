package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/internal/render"
)

// The operator's own staff, on the admin listener: the users of no
// organization (Engine.People() with orgID ""), their invitations and
// their staff roles. The admin token is how the first staff admin is
// made. The routes mirror an organization's (admin_people.go); a staff
// user's sessions, TOTP, password and status go through the same
// /admin/users/{id}/... routes as any user's. Every change is written to
// the audit trail with the admin token (automation) as its actor, no
// organization, and the request's address and id (see Admin.handle).

func (a *Admin) staffRoutes() {
	a.handleJSON("POST /admin/staff/invitations", a.inviteStaff)
	a.handle("GET /admin/staff/invitations", a.listStaffInvitations)
	a.handle("DELETE /admin/staff/invitations/{id}", a.revokeStaffInvitation)
	a.handle("GET /admin/staff/users", a.listStaffUsers)
	a.handleJSON("PUT /admin/users/{id}/staff-roles", a.setStaffRoles)
}

// inviteStaff is POST /admin/staff/invitations with {"email","roles"}:
// 201 {"invitation":{...},"token":"inv_...","accept_path":"..."} as
// invite's, the token shown in this answer only.
func (a *Admin) inviteStaff(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string               `json:"email"`
		Roles []accounts.StaffRole `json:"roles"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	inv, err := a.engine.People().InviteUser(r.Context(), tambala.InviteUser{Email: in.Email, StaffRoles: in.Roles})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeRaw(w, http.StatusCreated, render.NewInvitation(inv.Token, acceptPath(inv.Invitation, inv.Token), inv.Invitation))
}

func (a *Admin) listStaffInvitations(w http.ResponseWriter, r *http.Request) {
	a.writeInvitations(w, r, "")
}

func (a *Admin) revokeStaffInvitation(w http.ResponseWriter, r *http.Request) {
	a.writeRevokedInvitation(w, r, "")
}

// listStaffUsers is GET /admin/staff/users: {"org_id":null,
// "totp_required":true,"users"} in the shape of listUsers'; TOTP is
// required of every staff user, always. Each user has
// "approvals_suspended" besides: true while another staff admin has not
// confirmed them since their password or TOTP was reset, or their
// invitation issued, by someone else.
func (a *Admin) listStaffUsers(w http.ResponseWriter, r *http.Request) {
	users, err := a.engine.People().Users(r.Context(), "")
	out := renderAll(users, renderStaffUser)
	a.reply(w, r, http.StatusOK, map[string]any{"org_id": nil, "totp_required": true, "users": out}, err)
}

// setStaffRoles is PUT /admin/users/{id}/staff-roles with {"roles"}: the
// staff user with their roles replaced; validation_error for an
// organization's user or for no or unknown roles.
func (a *Admin) setStaffRoles(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Roles []accounts.StaffRole `json:"roles"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	u, err := a.engine.People().SetStaffRoles(r.Context(), r.PathValue("id"), in.Roles)
	a.reply(w, r, http.StatusOK, renderUser(u), err)
}

// renderStaffUser is renderUser with "approvals_suspended" last.
func renderStaffUser(u tambala.User) json.RawMessage {
	b := renderUser(u)
	out := append([]byte(nil), b[:len(b)-1]...) // the closing brace
	out = append(out, `,"approvals_suspended":`...)
	out = strconv.AppendBool(out, u.ApprovalsSuspended)
	return append(out, '}')
}
