package accounts

import "time"

// UserView is a person who signs in to the portal, as the engine shows
// them: never their password hash, TOTP secret or recovery codes.
type UserView struct {
	ID    string
	Email string
	Role  Role
	// Org is the organization the user administers; "" for staff.
	Org string
	// StaffRoles are a staff user's roles; none for an organization's.
	StaffRoles        []StaffRole
	Status            Status
	TOTPEnrolled      bool
	RecoveryCodesLeft int
	CreatedAt         time.Time
	// DisabledAt is zero while the user is active.
	DisabledAt time.Time
	// ApprovalsSuspended says a staff user approves nothing: their
	// password or second factor was reset, or their invitation issued,
	// by someone else, and no other staff admin has confirmed them yet.
	ApprovalsSuspended bool
}

// InvitationView is the operator's invitation of an email address to an
// organization, or to the operator's staff, as the engine shows it: never
// its token.
type InvitationView struct {
	ID    string
	Email string
	Org   string
	Role  Role
	// StaffRoles are a staff invitee's roles.
	StaffRoles []StaffRole
	InvitedBy  string
	// ResetOf is, for a password reset, the user whose password it
	// resets; empty for an invitation that makes a user.
	ResetOf string
	// Status is where the invitation stands at the time of the read.
	Status     InvitationStatus
	CreatedAt  time.Time
	ExpiresAt  time.Time
	AcceptedAt time.Time // zero until accepted
	UserID     string    // the user the acceptance made
	RevokedAt  time.Time // zero unless revoked
}
