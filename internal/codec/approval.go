package codec

import "time"

// ApprovalRecord is the stored form of a four-eyes approval
// (approvals.Approval): the amount as its asset's code and canonical
// text, the parties flattened, the times absent while unset.
type ApprovalRecord struct {
	ID               string            `json:"id"`
	Kind             string            `json:"kind"`
	Org              string            `json:"org_id"`
	Asset            string            `json:"asset"`
	Amount           string            `json:"amount"`
	Key              string            `json:"key"`
	Role             string            `json:"role"`
	Details          map[string]string `json:"details,omitempty"`
	RequestedByKind  string            `json:"requested_by_kind"`
	RequestedByID    string            `json:"requested_by_id,omitempty"`
	RequestedByEmail string            `json:"requested_by_email,omitempty"`
	RequestedAt      time.Time         `json:"requested_at"`
	Status           string            `json:"status"`
	DecidedByKind    string            `json:"decided_by_kind,omitempty"`
	DecidedByID      string            `json:"decided_by_id,omitempty"`
	DecidedByEmail   string            `json:"decided_by_email,omitempty"`
	DecidedAt        *time.Time        `json:"decided_at,omitempty"`
	Reason           string            `json:"reason,omitempty"`
}
