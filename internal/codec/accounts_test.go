package codec

import (
	"testing"
	"time"
)

func TestAccountsRecordBytes(t *testing.T) {
	pinRecord(t, UserRecord{ID: "u", Email: "a@b.co", Role: "org_admin", Org: "o", PasswordHash: "$argon2id$x", CreatedAt: pinAt,
		TOTP: TOTPRecord{Secret: "S", Enrolled: true, EnrolledAt: &pinAt2, LastStep: 7,
			RecoveryCodes: []RecoveryCodeRecord{{Salt: "00", Hash: "ff", UsedAt: &pinAt2}}}},
		`{"id":"u","email":"a@b.co","role":"org_admin","org_id":"o","password_hash":"$argon2id$x","totp":{"secret":"S","enrolled":true,"enrolled_at":"2026-03-04T06:36:07.891234567Z","last_step":7,"recovery_codes":[{"salt":"00","hash":"ff","used_at":"2026-03-04T06:36:07.891234567Z"}]},"created_at":"2026-03-04T05:06:07.891234567Z"}`)
	pinRecord(t, InvitationRecord{ID: "i", TokenHash: "ab", Email: "a@b.co", Org: "o", Role: "org_admin", InvitedBy: "operator",
		CreatedAt: pinAt, ExpiresAt: pinAt2},
		`{"id":"i","token_hash":"ab","email":"a@b.co","org_id":"o","role":"org_admin","invited_by":"operator","created_at":"2026-03-04T05:06:07.891234567Z","expires_at":"2026-03-04T06:36:07.891234567Z"}`)
	pinRecord(t, InvitationRecord{ID: "i", TokenHash: "ab", Email: "a@b.co", Org: "o", Role: "org_admin", InvitedBy: "operator",
		ResetOf: "u", CreatedAt: pinAt, ExpiresAt: pinAt2},
		`{"id":"i","token_hash":"ab","email":"a@b.co","org_id":"o","role":"org_admin","invited_by":"operator","reset_of":"u","created_at":"2026-03-04T05:06:07.891234567Z","expires_at":"2026-03-04T06:36:07.891234567Z"}`)
	pinRecord(t, SessionRecord{TokenHash: "ab", UserID: "u", Stage: "signed_in", SignedInAt: pinAt, CreatedAt: pinAt, LastSeenAt: pinAt2,
		EndedAt: &pinAt2, EndReason: "logout"},
		`{"token_hash":"ab","user_id":"u","stage":"signed_in","signed_in_at":"2026-03-04T05:06:07.891234567Z","created_at":"2026-03-04T05:06:07.891234567Z","last_seen_at":"2026-03-04T06:36:07.891234567Z","ended_at":"2026-03-04T06:36:07.891234567Z","end_reason":"logout"}`)
	pinRecord(t, ThrottleRecord{Failures: []time.Time{pinAt}, Lockouts: 1, LockedUntil: &pinAt2},
		`{"failures":["2026-03-04T05:06:07.891234567Z"],"lockouts":1,"locked_until":"2026-03-04T06:36:07.891234567Z"}`)
	pinRecord(t, PortalSettingsRecord{TOTPRequired: true}, `{"totp_required":true}`)
	pinRecord(t, AuditRecord{ID: "a", At: pinAt, ActorKind: "user", ActorID: "u", ActorEmail: "a@b.co", Org: "o",
		Action: "user.signed_in", Target: "u", Summary: "s", Address: "192.0.2.1", RequestID: "r"},
		`{"id":"a","at":"2026-03-04T05:06:07.891234567Z","actor_kind":"user","actor_id":"u","actor_email":"a@b.co","org_id":"o","action":"user.signed_in","target":"u","summary":"s","address":"192.0.2.1","request_id":"r"}`)
}
