package codec

import "time"

// HoldRecord is the stored form of an approvals.Hold: a staff member (or
// an invitee, by email) whose approvals wait for another staff admin's
// confirmation, why, and who caused it.
type HoldRecord struct {
	UserID  string    `json:"user_id,omitempty"`
	Email   string    `json:"email"`
	Cause   string    `json:"cause"`
	ByKind  string    `json:"by_kind"`
	ByID    string    `json:"by_id,omitempty"`
	ByEmail string    `json:"by_email,omitempty"`
	At      time.Time `json:"at"`
}
