package codec

import "time"

// UserRecord is the stored form of a portal user (accounts.User): the
// argon2id hash of the password in its PHC string, never the password,
// and the TOTP secret as the authenticator app has it (the code needs
// it). disabled_at is absent while the user is active.
type UserRecord struct {
	ID           string     `json:"id"`
	Email        string     `json:"email"`
	Role         string     `json:"role"`
	Org          string     `json:"org_id"`
	StaffRoles   []string   `json:"staff_roles,omitempty"`
	PasswordHash string     `json:"password_hash"`
	TOTP         TOTPRecord `json:"totp"`
	CreatedAt    time.Time  `json:"created_at"`
	DisabledAt   *time.Time `json:"disabled_at,omitempty"`
}

// TOTPRecord is a user's second factor (accounts.TOTP): secret is empty
// when no enrolment was begun.
type TOTPRecord struct {
	Secret        string               `json:"secret"`
	Enrolled      bool                 `json:"enrolled"`
	EnrolledAt    *time.Time           `json:"enrolled_at,omitempty"`
	LastStep      int64                `json:"last_step"`
	RecoveryCodes []RecoveryCodeRecord `json:"recovery_codes"`
}

// RecoveryCodeRecord is one recovery code as stored: its salt and the
// SHA-256 of salt and code, hex, and when it was used.
type RecoveryCodeRecord struct {
	Salt   string     `json:"salt"`
	Hash   string     `json:"hash"`
	UsedAt *time.Time `json:"used_at,omitempty"`
}

// InvitationRecord is the stored form of an invitation
// (accounts.Invitation), kept under the SHA-256 of its token, which
// token_hash repeats in hex; never the token itself.
type InvitationRecord struct {
	ID         string   `json:"id"`
	TokenHash  string   `json:"token_hash"`
	Email      string   `json:"email"`
	Org        string   `json:"org_id"`
	Role       string   `json:"role"`
	StaffRoles []string `json:"staff_roles,omitempty"`
	InvitedBy  string   `json:"invited_by"`
	// ResetOf is the user a password reset is of; absent for an
	// invitation that makes a user.
	ResetOf    string     `json:"reset_of,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	AcceptedAt *time.Time `json:"accepted_at,omitempty"`
	UserID     string     `json:"user_id,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

// SessionRecord is the stored form of a portal session
// (accounts.Session), kept under the SHA-256 of its token; never the
// token itself.
type SessionRecord struct {
	TokenHash  string     `json:"token_hash"`
	UserID     string     `json:"user_id"`
	Stage      string     `json:"stage"`
	SignedInAt time.Time  `json:"signed_in_at"`
	CreatedAt  time.Time  `json:"created_at"`
	LastSeenAt time.Time  `json:"last_seen_at"`
	EndedAt    *time.Time `json:"ended_at,omitempty"`
	EndReason  string     `json:"end_reason,omitempty"`
}

// ThrottleRecord is the failed sign-ins of one account or client address
// (accounts.Throttle). An account's (accounts.AccountThrottle) is its cap
// in the record's own fields and, in Pairs, the throttle of each client
// address key that failed on it (absent in records written before #33,
// which read as no pair).
type ThrottleRecord struct {
	Failures    []time.Time               `json:"failures"`
	Lockouts    int                       `json:"lockouts"`
	LockedUntil *time.Time                `json:"locked_until,omitempty"`
	Pairs       map[string]ThrottleRecord `json:"pairs,omitempty"`
}

// PortalSettingsRecord is an organization's portal settings, kept apart
// from its OrgRecord so that an organization's stored bytes do not change.
type PortalSettingsRecord struct {
	TOTPRequired bool `json:"totp_required"`
}

// AuditRecord is one entry of the audit trail (the engine's AuditEntry):
// address is empty when the client address is unknown.
type AuditRecord struct {
	ID         string    `json:"id"`
	At         time.Time `json:"at"`
	ActorKind  string    `json:"actor_kind"`
	ActorID    string    `json:"actor_id,omitempty"`
	ActorEmail string    `json:"actor_email,omitempty"`
	Org        string    `json:"org_id"`
	Action     string    `json:"action"`
	Target     string    `json:"target,omitempty"`
	Summary    string    `json:"summary,omitempty"`
	Address    string    `json:"address,omitempty"`
	RequestID  string    `json:"request_id,omitempty"`
}
