package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
)

// The people of organizations' portals, on the admin listener: the
// operator's invitations, users, their sessions and TOTP, an
// organization's TOTP requirement, and the audit trail, each thin over
// Engine.People(). Every change is written to the audit trail with the
// operator as its actor and the request's address and id (see
// Admin.handle).

// acceptPath is the page for accepting the invitation inv of token,
// relative to its listener's root: the console's (the admin listener's)
// for a staff member's invitation or password reset, the portal's (the
// public listener's) for an organization user's. The token rides in the
// query, not the path: request logs record the path only.
func acceptPath(inv tambala.Invitation, token string) string {
	if inv.Role == accounts.RoleStaff {
		return "/console/invitations/accept?token=" + url.QueryEscape(token)
	}
	return "/portal/invitations/accept?token=" + url.QueryEscape(token)
}

func (a *Admin) peopleRoutes() {
	a.handleJSON("POST /admin/orgs/{org}/invitations", a.invite)
	a.handle("GET /admin/orgs/{org}/invitations", a.listInvitations)
	a.handle("DELETE /admin/orgs/{org}/invitations/{id}", a.revokeInvitation)
	a.handle("GET /admin/orgs/{org}/users", a.listUsers)
	a.handle("GET /admin/users/{id}", a.getUser)
	a.handle("POST /admin/users/{id}/disable", a.disableUser)
	a.handle("POST /admin/users/{id}/enable", a.enableUser)
	a.handle("POST /admin/users/{id}/sessions/end", a.endSessions)
	a.handle("POST /admin/users/{id}/totp/reset", a.resetTOTP)
	a.handle("POST /admin/users/{id}/password-reset", a.resetPassword)
	a.handleJSON("PUT /admin/orgs/{org}/totp-required", a.setTOTPRequired)
	a.handle("GET /admin/audit", a.auditTrail)
	a.handle("GET /admin/orgs/{org}/audit", a.orgAuditTrail)
	a.staffRoutes()
}

// invite is POST /admin/orgs/{org}/invitations with {"email","role"?}:
// 201 {"invitation":{...},"token":"inv_...","accept_path":"..."}, the
// token shown in this answer only.
func (a *Admin) invite(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string        `json:"email"`
		Role  accounts.Role `json:"role"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	inv, err := a.engine.People().InviteUser(r.Context(), tambala.InviteUser{Org: r.PathValue("org"), Email: in.Email, Role: in.Role})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeRaw(w, http.StatusCreated, render.NewInvitation(inv.Token, acceptPath(inv.Invitation, inv.Token), inv.Invitation))
}

func (a *Admin) listInvitations(w http.ResponseWriter, r *http.Request) {
	a.writeInvitations(w, r, r.PathValue("org"))
}

func (a *Admin) revokeInvitation(w http.ResponseWriter, r *http.Request) {
	a.writeRevokedInvitation(w, r, r.PathValue("org"))
}

// writeInvitations answers the invitations of org ("" the staff's).
func (a *Admin) writeInvitations(w http.ResponseWriter, r *http.Request, org string) {
	list, err := a.engine.People().Invitations(r.Context(), org)
	a.reply(w, r, http.StatusOK, map[string]any{"invitations": renderAll(list, renderInvitation)}, err)
}

// writeRevokedInvitation revokes the invitation {id} of org ("" the
// staff's) and answers it.
func (a *Admin) writeRevokedInvitation(w http.ResponseWriter, r *http.Request, org string) {
	inv, err := a.engine.People().RevokeInvitation(r.Context(), org, r.PathValue("id"))
	a.reply(w, r, http.StatusOK, json.RawMessage(renderInvitation(inv)), err)
}

// listUsers is GET /admin/orgs/{org}/users: {"org_id","totp_required",
// "users"}, the organization's TOTP requirement read with its users.
func (a *Admin) listUsers(w http.ResponseWriter, r *http.Request) {
	org := r.PathValue("org")
	acc := a.engine.People()
	users, err := acc.Users(r.Context(), org)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	required, err := acc.TOTPRequired(r.Context(), org)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := renderAll(users, renderUser)
	writeJSON(w, http.StatusOK, map[string]any{"org_id": org, "totp_required": required, "users": out})
}

func (a *Admin) getUser(w http.ResponseWriter, r *http.Request) {
	u, err := a.engine.People().User(r.Context(), r.PathValue("id"))
	a.reply(w, r, http.StatusOK, renderUser(u), err)
}

func (a *Admin) disableUser(w http.ResponseWriter, r *http.Request) {
	u, err := a.engine.People().DisableUser(r.Context(), r.PathValue("id"))
	a.reply(w, r, http.StatusOK, renderUser(u), err)
}

func (a *Admin) enableUser(w http.ResponseWriter, r *http.Request) {
	u, err := a.engine.People().EnableUser(r.Context(), r.PathValue("id"))
	a.reply(w, r, http.StatusOK, renderUser(u), err)
}

// endSessions is POST /admin/users/{id}/sessions/end: {"user_id",
// "sessions_ended"}, how many sessions were live.
func (a *Admin) endSessions(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	n, err := a.engine.People().EndSessions(r.Context(), id)
	a.reply(w, r, http.StatusOK, map[string]any{"user_id": id, "sessions_ended": n}, err)
}

// resetPassword is POST /admin/users/{id}/password-reset, no body: 201
// {"invitation":{...,"kind":"password_reset"},"token":"inv_...",
// "accept_path":"..."} as invite's, the token shown in this answer only.
// The user sets a new password on the accept page; their TOTP stays.
func (a *Admin) resetPassword(w http.ResponseWriter, r *http.Request) {
	inv, err := a.engine.People().ResetPassword(r.Context(), r.PathValue("id"), 0)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeRaw(w, http.StatusCreated, render.NewInvitation(inv.Token, acceptPath(inv.Invitation, inv.Token), inv.Invitation))
}

func (a *Admin) resetTOTP(w http.ResponseWriter, r *http.Request) {
	u, err := a.engine.People().ResetTOTP(r.Context(), r.PathValue("id"))
	a.reply(w, r, http.StatusOK, renderUser(u), err)
}

// setTOTPRequired is PUT /admin/orgs/{org}/totp-required with
// {"required": bool}: {"org_id","totp_required"}.
func (a *Admin) setTOTPRequired(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Required *bool `json:"required"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	org := r.PathValue("org")
	if in.Required == nil {
		// An unknown organization is not_found before its body is read.
		err := required("required")
		if _, lookupErr := a.engine.Operator().Organization(r.Context(), org); lookupErr != nil {
			err = lookupErr
		}
		writeError(w, r, a.log, err)
		return
	}
	err := a.engine.People().SetTOTPRequired(r.Context(), org, *in.Required)
	a.reply(w, r, http.StatusOK, json.RawMessage(render.PortalSettings(org, *in.Required)), err)
}

// auditTrail is GET /admin/audit?org=&before_id=&limit=: every
// organization's entries, or org's, newest first, narrowed by
// actor_kind, actor (a user's id or email), action, target, since and
// until (RFC 3339 times; since inclusive, until exclusive).
func (a *Admin) auditTrail(w http.ResponseWriter, r *http.Request) {
	a.serveAudit(w, r, r.URL.Query().Get("org"))
}

// orgAuditTrail is GET /admin/orgs/{org}/audit?before_id=&limit=.
func (a *Admin) orgAuditTrail(w http.ResponseWriter, r *http.Request) {
	a.serveAudit(w, r, r.PathValue("org"))
}

// serveAudit answers one page of the audit trail: {"entries","has_more",
// "next_before_id"}. An organization named (org set) must exist:
// not_found otherwise, never an empty page for a mistyped id.
func (a *Admin) serveAudit(w http.ResponseWriter, r *http.Request, org string) {
	if org != "" {
		if _, err := a.engine.Operator().Organization(r.Context(), org); err != nil {
			writeError(w, r, a.log, err)
			return
		}
	}
	q := r.URL.Query()
	page, err := parsePage(q.Get("limit"), q.Get("before_id"))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	f, err := auditFilter(q, org)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	res, err := a.engine.People().AuditTrail(r.Context(), page, f)
	items := renderAll(res.Items, renderAuditEntry)
	a.reply(w, r, http.StatusOK, pageJSON("entries", items, res.HasMore, res.NextBeforeID), err)
}

// auditFilter reads the audit trail's filters from q.
func auditFilter(q url.Values, org string) (tambala.AuditFilter, error) {
	f := tambala.AuditFilter{Org: org, ActorKind: tambala.AuditActorKind(q.Get("actor_kind")), Actor: q.Get("actor"),
		Action: tambala.AuditAction(q.Get("action")), Target: q.Get("target")}
	switch f.ActorKind {
	case "", tambala.ActorUser, tambala.ActorStaff, tambala.ActorAutomation, tambala.ActorSystem:
	default:
		return f, errcode.Newf(errcode.ValidationError, "actor_kind must be user, staff, automation or system.")
	}
	for _, t := range []struct {
		name string
		out  *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		v := q.Get(t.name)
		if v == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return f, errcode.Newf(errcode.ValidationError, "%s must be an RFC 3339 time.", t.name)
		}
		*t.out = at
	}
	return f, nil
}
