package render

import (
	"net/netip"
	"testing"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/audit"
)

func TestUserBytes(t *testing.T) {
	u := accounts.UserView{ID: "u", Org: "o", Email: "ada@example.com", Role: "org_admin", Status: "active", CreatedAt: pinAt}
	pin(t, User(u), `{"id":"u","org_id":"o","email":"ada@example.com","role":"org_admin","staff_roles":[],"status":"active","totp_enrolled":false,"recovery_codes_left":0,"created_at":"2026-03-04T05:06:07.891Z","disabled_at":null}`)
	u.Status, u.TOTPEnrolled, u.RecoveryCodesLeft, u.DisabledAt = "disabled", true, 9, pinAt2
	pin(t, User(u), `{"id":"u","org_id":"o","email":"ada@example.com","role":"org_admin","staff_roles":[],"status":"disabled","totp_enrolled":true,"recovery_codes_left":9,"created_at":"2026-03-04T05:06:07.891Z","disabled_at":"2026-03-04T06:36:07.891Z"}`)
	// One of the operator's staff: no organization, their roles.
	u = accounts.UserView{ID: "s", Email: "grace@example.com", Role: "staff", StaffRoles: []accounts.StaffRole{"admin", "desk"}, Status: "active", CreatedAt: pinAt}
	pin(t, User(u), `{"id":"s","org_id":null,"email":"grace@example.com","role":"staff","staff_roles":["admin","desk"],"status":"active","totp_enrolled":false,"recovery_codes_left":0,"created_at":"2026-03-04T05:06:07.891Z","disabled_at":null}`)
}

func TestInvitationBytes(t *testing.T) {
	i := accounts.InvitationView{ID: "i", Org: "o", Email: "ada@example.com", Role: "org_admin", InvitedBy: "operator", Status: "pending",
		CreatedAt: pinAt, ExpiresAt: pinAt2}
	pin(t, Invitation(i), `{"id":"i","kind":"invitation","org_id":"o","email":"ada@example.com","role":"org_admin","staff_roles":[],"status":"pending","invited_by":"operator","created_at":"2026-03-04T05:06:07.891Z","expires_at":"2026-03-04T06:36:07.891Z","accepted_at":null,"user_id":null,"revoked_at":null}`)
	pin(t, NewInvitation("inv_t", "/p?token=inv_t", i), `{"invitation":{"id":"i","kind":"invitation","org_id":"o","email":"ada@example.com","role":"org_admin","staff_roles":[],"status":"pending","invited_by":"operator","created_at":"2026-03-04T05:06:07.891Z","expires_at":"2026-03-04T06:36:07.891Z","accepted_at":null,"user_id":null,"revoked_at":null},"token":"inv_t","accept_path":"/p?token=inv_t"}`)
	i.Status, i.AcceptedAt, i.UserID = "accepted", pinAt2, "u"
	pin(t, Invitation(i), `{"id":"i","kind":"invitation","org_id":"o","email":"ada@example.com","role":"org_admin","staff_roles":[],"status":"accepted","invited_by":"operator","created_at":"2026-03-04T05:06:07.891Z","expires_at":"2026-03-04T06:36:07.891Z","accepted_at":"2026-03-04T06:36:07.891Z","user_id":"u","revoked_at":null}`)
	i.ResetOf = "u"
	pin(t, Invitation(i), `{"id":"i","kind":"password_reset","org_id":"o","email":"ada@example.com","role":"org_admin","staff_roles":[],"status":"accepted","invited_by":"operator","created_at":"2026-03-04T05:06:07.891Z","expires_at":"2026-03-04T06:36:07.891Z","accepted_at":"2026-03-04T06:36:07.891Z","user_id":"u","revoked_at":null}`)
	// An invitation to the operator's staff.
	s := accounts.InvitationView{ID: "i", Email: "grace@example.com", Role: "staff", StaffRoles: []accounts.StaffRole{"support"}, InvitedBy: "automation",
		Status: "pending", CreatedAt: pinAt, ExpiresAt: pinAt2}
	pin(t, Invitation(s), `{"id":"i","kind":"invitation","org_id":null,"email":"grace@example.com","role":"staff","staff_roles":["support"],"status":"pending","invited_by":"automation","created_at":"2026-03-04T05:06:07.891Z","expires_at":"2026-03-04T06:36:07.891Z","accepted_at":null,"user_id":null,"revoked_at":null}`)
	pin(t, NewInvitation("inv_t", "/p?token=inv_t", s), `{"invitation":{"id":"i","kind":"invitation","org_id":null,"email":"grace@example.com","role":"staff","staff_roles":["support"],"status":"pending","invited_by":"automation","created_at":"2026-03-04T05:06:07.891Z","expires_at":"2026-03-04T06:36:07.891Z","accepted_at":null,"user_id":null,"revoked_at":null},"token":"inv_t","accept_path":"/p?token=inv_t"}`)
}

func TestPortalSettingsBytes(t *testing.T) {
	pin(t, PortalSettings("o", true), `{"org_id":"o","totp_required":true}`)
}

func TestAuditEntryBytes(t *testing.T) {
	a := audit.Entry{ID: "a", At: pinAt, Actor: audit.Actor{Kind: "operator"}, Org: "o", Action: "user.disabled", Target: "u", Summary: "status active -> disabled"}
	pin(t, AuditEntry(a), `{"id":"a","at":"2026-03-04T05:06:07.891Z","org_id":"o","actor":{"kind":"operator","user_id":null,"email":null},"action":"user.disabled","target":"u","summary":"status active -\u003e disabled","address":null,"request_id":null}`)
	a.Actor, a.Address, a.RequestID = audit.Actor{Kind: "user", ID: "u", Email: "ada@example.com"}, netip.MustParseAddr("192.0.2.7"), "req-1"
	pin(t, AuditEntry(a), `{"id":"a","at":"2026-03-04T05:06:07.891Z","org_id":"o","actor":{"kind":"user","user_id":"u","email":"ada@example.com"},"action":"user.disabled","target":"u","summary":"status active -\u003e disabled","address":"192.0.2.7","request_id":"req-1"}`)
}
