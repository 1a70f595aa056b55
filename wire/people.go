package wire

// User is a user (a person of an organization, or staff).
type User struct {
	ID                string   `json:"id"`
	Org               *string  `json:"org_id"`
	Email             string   `json:"email"`
	Role              string   `json:"role"`
	StaffRoles        []string `json:"staff_roles"`
	Status            string   `json:"status"`
	TOTPEnrolled      bool     `json:"totp_enrolled"`
	RecoveryCodesLeft int      `json:"recovery_codes_left"`
	CreatedAt         string   `json:"created_at"`
	DisabledAt        *string  `json:"disabled_at"`
	// ApprovalsSuspended is set on a staff list's users only.
	ApprovalsSuspended *bool `json:"approvals_suspended,omitempty"`
}

// Users is a list of users: an organization's, or the staff.
type Users struct {
	Org          *string `json:"org_id"`
	TOTPRequired bool    `json:"totp_required"`
	Users        []User  `json:"users"`
}

// TOTPRequired says whether an organization's people must use TOTP.
type TOTPRequired struct {
	Org          string `json:"org_id"`
	TOTPRequired bool   `json:"totp_required"`
}

// SessionsEnded is the answer of ending a user's sessions.
type SessionsEnded struct {
	User  string `json:"user_id"`
	Ended int    `json:"sessions_ended"`
}

// Invitation is an invitation to become a user.
type Invitation struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Org        *string  `json:"org_id"`
	Email      string   `json:"email"`
	Role       string   `json:"role"`
	StaffRoles []string `json:"staff_roles"`
	Status     string   `json:"status"`
	InvitedBy  string   `json:"invited_by"`
	CreatedAt  string   `json:"created_at"`
	ExpiresAt  string   `json:"expires_at"`
	AcceptedAt *string  `json:"accepted_at"`
	UserID     *string  `json:"user_id"`
	RevokedAt  *string  `json:"revoked_at"`
}

// Invitations is a list of invitations.
type Invitations struct {
	Invitations []Invitation `json:"invitations"`
}

// NewInvitation is an invitation just made: the token is in this answer
// only.
type NewInvitation struct {
	Invitation Invitation `json:"invitation"`
	Token      string     `json:"token"`
	AcceptPath string     `json:"accept_path"`
}

// AuditEntry is an entry of the audit trail.
type AuditEntry struct {
	ID        string     `json:"id"`
	At        string     `json:"at"`
	Org       *string    `json:"org_id"`
	Actor     AuditActor `json:"actor"`
	Action    string     `json:"action"`
	Target    string     `json:"target"`
	Summary   string     `json:"summary"`
	Address   *string    `json:"address"`
	RequestID *string    `json:"request_id"`
}

// AuditActor is who made an audited change.
type AuditActor struct {
	Kind   string  `json:"kind"`
	UserID *string `json:"user_id"`
	Email  *string `json:"email"`
}

// AuditPage is a page of the audit trail.
type AuditPage struct {
	Entries      []AuditEntry `json:"entries"`
	HasMore      bool         `json:"has_more"`
	NextBeforeID *string      `json:"next_before_id"`
}

// Delivery is a webhook delivery.
type Delivery struct {
	ID        string            `json:"id"`
	EventType string            `json:"event_type"`
	URL       string            `json:"url"`
	State     string            `json:"state"`
	Attempts  []DeliveryAttempt `json:"attempts"`
	Body      string            `json:"body"`
	CreatedAt string            `json:"created_at"`
}

// DeliveryAttempt is one attempt of a delivery.
type DeliveryAttempt struct {
	At         string `json:"at"`
	StatusCode int    `json:"status_code"`
	Error      string `json:"error,omitempty"`
	Duration   int64  `json:"duration_ns"`
	Response   string `json:"response,omitempty"`
	Signature  string `json:"signature"`
}

// Deliveries is a page of deliveries.
type Deliveries struct {
	Deliveries   []Delivery `json:"deliveries"`
	HasMore      bool       `json:"has_more"`
	NextBeforeID *string    `json:"next_before_id"`
}
