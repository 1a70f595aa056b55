package render

import (
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/audit"
	"github.com/tambalapay/tambala/wire"
)

// The people of an organization's portal as the operator reads them:
// users, invitations, the organization's portal settings and the audit
// trail. Each takes the type the engine shows (accounts.UserView,
// accounts.InvitationView, audit.Entry); none has a field for a secret,
// so none can render one: no password hash, TOTP secret, recovery code,
// invitation or session token.

// User is the one rendering of a portal user (the items of
// Accounts.Users, Accounts.User and every call that changes one):
// {"id","org_id","email","role","staff_roles","status","totp_enrolled",
// "recovery_codes_left","created_at","disabled_at"}, org_id null for one
// of the operator's staff, staff_roles always an array ([] for an
// organization's user), disabled_at null while the user is active.
func User(u accounts.UserView) []byte {
	return mustMarshal(wire.User{ID: u.ID, Org: optionalText(u.Org), Email: u.Email, Role: string(u.Role),
		StaffRoles: staffRoleTexts(u.StaffRoles), Status: string(u.Status), TOTPEnrolled: u.TOTPEnrolled,
		RecoveryCodesLeft: u.RecoveryCodesLeft, CreatedAt: Time(u.CreatedAt), DisabledAt: optionalTime(u.DisabledAt)})
}

func invitation(i accounts.InvitationView) wire.Invitation {
	var user *string
	if i.UserID != "" {
		user = &i.UserID
	}
	kind := InvitationKindInvitation
	if i.ResetOf != "" {
		kind = InvitationKindPasswordReset
	}
	return wire.Invitation{ID: i.ID, Kind: kind, Org: optionalText(i.Org), Email: i.Email, Role: string(i.Role),
		StaffRoles: staffRoleTexts(i.StaffRoles), Status: string(i.Status), InvitedBy: i.InvitedBy,
		CreatedAt: Time(i.CreatedAt), ExpiresAt: Time(i.ExpiresAt), AcceptedAt: optionalTime(i.AcceptedAt), UserID: user,
		RevokedAt: optionalTime(i.RevokedAt)}
}

// The kinds of an invitation: one that makes a user, or a password reset
// of an existing user (Accounts.ResetPassword).
const (
	InvitationKindInvitation    = "invitation"
	InvitationKindPasswordReset = "password_reset"
)

// Invitation is the one rendering of an invitation (the items of
// Accounts.Invitations and Accounts.RevokeInvitation):
// {"id","kind","org_id","email","role","staff_roles","status","invited_by",
// "created_at","expires_at","accepted_at","user_id","revoked_at"}, the
// last three null until the invitation is accepted or revoked; kind is
// "invitation" or "password_reset"; org_id is null for an invitation to
// the operator's staff, and staff_roles always an array ([] for one to an
// organization).
func Invitation(i accounts.InvitationView) []byte {
	return mustMarshal(invitation(i))
}

// NewInvitation is the rendering of an invitation just made
// (Accounts.InviteUser, Accounts.ResetPassword):
// {"invitation":<Invitation>,"token","accept_path"},
// the token shown this once and acceptPath the portal's page for it,
// relative to the portal's root.
func NewInvitation(token, acceptPath string, i accounts.InvitationView) []byte {
	return mustMarshal(wire.NewInvitation{Invitation: invitation(i), Token: token, AcceptPath: acceptPath})
}

// PortalSettings is the rendering of an organization's portal settings
// (Accounts.TOTPRequired, Accounts.SetTOTPRequired):
// {"org_id","totp_required"}.
func PortalSettings(org string, totpRequired bool) []byte {
	return mustMarshal(wire.TOTPRequired{Org: org, TOTPRequired: totpRequired})
}

// AuditEntry is the one rendering of an entry of the audit trail (the
// items of People.AuditTrail and Sessions.AuditTrail):
// {"id","at","org_id","actor":{"kind","user_id","email"},"action",
// "target","summary","address","request_id"}; the organization (for an
// entry of the engine's own settings), the actor's user_id and email, the
// address and the request id are null when there are none.
func AuditEntry(a audit.Entry) []byte {
	var address string
	if a.Address.IsValid() {
		address = a.Address.String()
	}
	return mustMarshal(wire.AuditEntry{ID: a.ID, At: Time(a.At), Org: optionalText(a.Org),
		Actor:  wire.AuditActor{Kind: string(a.Actor.Kind), UserID: optionalText(a.Actor.ID), Email: optionalText(a.Actor.Email)},
		Action: string(a.Action), Target: a.Target, Summary: a.Summary, Address: optionalText(address),
		RequestID: optionalText(a.RequestID)})
}

// optionalTime is t rendered, or nil (null) when t is zero.
func optionalTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := Time(t)
	return &s
}

// staffRoleTexts is a staff user's or invitation's roles as text: an
// empty list (never null) for an organization's.
func staffRoleTexts(roles []accounts.StaffRole) []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = string(r)
	}
	return out
}

// optionalText is s, or nil (null) when s is empty.
func optionalText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
