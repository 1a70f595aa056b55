package approvals

import (
	"errors"
	"strings"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/money"
)

// Kind is the money move an approval holds.
type Kind string

const (
	// Funding is the operator crediting an organization from its float.
	Funding Kind = "funding"
	// Deposit is a stablecoin deposit the operator records by hand.
	Deposit Kind = "deposit"
	// RefundReturned is the desk recording that a failed to-bank order's
	// stablecoin came back, crediting the organization.
	RefundReturned Kind = "refund_returned"
	// Trade is an OTC trade the operator records: the organization's MWK
	// credited from the float at the client rate.
	Trade Kind = "otc_trade"
	// Collection is a /v1 collection the operator records by hand,
	// credited net of its fee.
	Collection Kind = "collection"
	// PayoutFailed is the operator resolving a payout in flight as
	// failed: its hold (amount and fee) returns to the organization's
	// available balance.
	PayoutFailed Kind = "payout_failed"
	// PayoutClawback is the operator recording a provider's clawback of
	// a succeeded payout: its amount returns to the organization.
	PayoutClawback Kind = "payout_clawback"
	// ThresholdChange is a change that weakens four-eyes in an asset:
	// removing its threshold, or raising it (Weakens). Its Amount is the
	// new threshold, or the asset's zero for a removal.
	ThresholdChange Kind = "threshold_change"
)

// Status is where an approval stands.
type Status string

const (
	Pending  Status = "pending"
	Approved Status = "approved"
	Rejected Status = "rejected"
)

// PartyKind is who asked for or decided an approval.
type PartyKind string

const (
	// Staff is a signed-in staff user.
	Staff PartyKind = "staff"
	// Automation is the operator's automation (the admin token): it may
	// ask and reject, never approve.
	Automation PartyKind = "automation"
)

// Party is one side of an approval.
type Party struct {
	Kind   PartyKind
	UserID string // a staff user's id; "" for the automation
	Email  string
}

// Approval is a money move waiting for a second pair of eyes.
type Approval struct {
	ID   string
	Kind Kind
	Org  string
	// Amount is what the move credits.
	Amount money.Amount
	// Key is what makes the request once: a funding's ref, a deposit's
	// network and tx_ref, an order's id. The same request again finds
	// this approval.
	Key string
	// Role is the staff role that may approve: operations for fundings
	// and deposits, desk for refunds returned.
	Role string
	// Details are what the move needs besides Amount (a deposit's
	// network and tx_ref, the order's id), as the engine stores them.
	Details     map[string]string
	RequestedBy Party
	RequestedAt time.Time
	Status      Status
	DecidedBy   Party
	DecidedAt   time.Time
	// Reason is a rejection's.
	Reason string
}

// Errors of the rules; each carries its errcode.
var (
	ErrNotPending   = errors.New("approvals: not pending")
	ErrOwnRequest   = errors.New("approvals: the requester cannot approve")
	ErrNotStaff     = errors.New("approvals: only staff approve")
	ErrWrongRole    = errors.New("approvals: role does not approve this")
	ErrReason       = errors.New("approvals: reason")
	ErrDifferentAsk = errors.New("approvals: a different request under the same key")
	ErrSuspended    = errors.New("approvals: the approver's approvals are suspended")
	ErrSelfConfirm  = errors.New("approvals: a hold is confirmed by another staff admin")
)

// Needed reports whether amount needs an approval under threshold: when a
// threshold is set for the amount's asset and the amount is above it.
// The zero threshold (not set) needs none.
func Needed(threshold, amount money.Amount) bool {
	return threshold.IsSet() && threshold.Asset() == amount.Asset() && amount.Cmp(threshold) > 0
}

// Weakens reports whether changing an asset's threshold from prev to next
// (the zero Amount: none) lets more money move on one credential: next
// removes a threshold that was set, or raises it. Setting a first
// threshold, lowering one or setting the same is stricter or equal.
func Weakens(prev, next money.Amount) bool {
	if !prev.IsSet() {
		return false
	}
	if !next.IsSet() {
		return true
	}
	return next.Asset() != prev.Asset() || next.Cmp(prev) > 0
}

// CheckThreshold checks a threshold for asset as: the zero Amount (none)
// or a positive amount of as (else validation_error).
func CheckThreshold(as money.Asset, threshold money.Amount) error {
	if threshold.IsSet() && (threshold.Asset() != as || threshold.Sign() <= 0) {
		return errcode.Newf(errcode.ValidationError, "The threshold must be a positive %s amount.", as.Code)
	}
	return nil
}

// Replay decides a request for kind, org and amount asked again under the
// key of a, its approval: other figures are conflict (Same); pending, the
// request waits again (wait); approved, its move was made and the caller
// answers as it did (nil); rejected, conflict.
func (a Approval) Replay(kind Kind, org string, amount money.Amount) (wait bool, err error) {
	if err := a.Same(kind, org, amount); err != nil {
		return false, err
	}
	switch a.Status {
	case Pending:
		return true, nil
	case Rejected:
		return false, errcode.Newf(errcode.Conflict, "This request was rejected (%s): make a new one under another reference.", a.Reason)
	}
	return false, nil
}

// New is a pending approval of a move asked for by by at now.
func New(id string, kind Kind, org string, amount money.Amount, key, role string, details map[string]string, by Party, now time.Time) Approval {
	return Approval{ID: id, Kind: kind, Org: org, Amount: amount, Key: key, Role: role, Details: details,
		RequestedBy: by, RequestedAt: now, Status: Pending}
}

// Same checks that a request again under a's key asks for the same move:
// conflict (ErrDifferentAsk) otherwise.
func (a Approval) Same(kind Kind, org string, amount money.Amount) error {
	if a.Kind != kind || a.Org != org || !a.Amount.Equal(amount) {
		return coded(errcode.Conflict, "A request with this reference waits for approval with other figures.", ErrDifferentAsk)
	}
	return nil
}

// Approve returns a approved by by, who holds roles, at now: conflict
// (ErrNotPending) unless pending; forbidden when by is not staff
// (ErrNotStaff), asked for it (ErrOwnRequest) or lacks a's role
// (ErrWrongRole).
func (a Approval) Approve(by Party, roles []string, now time.Time) (Approval, error) {
	if err := a.decidable(by, roles); err != nil {
		return a, err
	}
	if by.Kind != Staff {
		return a, coded(errcode.Forbidden, "A staff member approves: the automation cannot.", ErrNotStaff)
	}
	if a.RequestedBy.Kind == Staff && a.RequestedBy.UserID == by.UserID {
		return a, coded(errcode.Forbidden, "You asked for this: a second staff member must approve it.", ErrOwnRequest)
	}
	a.Status, a.DecidedBy, a.DecidedAt = Approved, by, now
	return a, nil
}

// Reject returns a rejected by by at now with reason (1 to 500 bytes once
// trimmed, no control or invisible character: validation_error,
// ErrReason). The requester may withdraw their own; the automation may
// reject. conflict (ErrNotPending) unless pending; forbidden
// (ErrWrongRole) for staff without a's role.
func (a Approval) Reject(by Party, roles []string, reason string, now time.Time) (Approval, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || len(reason) > 500 {
		return a, coded(errcode.ValidationError, "reason must be 1 to 500 characters.", ErrReason)
	}
	if err := textrule.CheckChars("reason", reason); err != nil {
		return a, err
	}
	if err := a.decidable(by, roles); err != nil {
		return a, err
	}
	a.Status, a.DecidedBy, a.DecidedAt, a.Reason = Rejected, by, now, reason
	return a, nil
}

func (a Approval) decidable(by Party, roles []string) error {
	if a.Status != Pending {
		return coded(errcode.Conflict, "This approval was "+string(a.Status)+" already.", ErrNotPending)
	}
	if by.Kind == Staff {
		for _, r := range roles {
			if r == a.Role {
				return nil
			}
		}
		return coded(errcode.Forbidden, "Only staff with the "+a.Role+" role decide this approval.", ErrWrongRole)
	}
	return nil
}

// AdminRole is the staff role that confirms a Hold.
const AdminRole = "admin"

// Hold suspends a staff member's approvals: their password or second
// factor was reset, or their account made from an invitation, through a
// one-time token someone else was given (the admin token's caller, or a
// staff admin). Whoever saw the token may be the one signing in, so the
// account does not count as a second pair of eyes until another staff
// admin confirms it.
type Hold struct {
	// UserID is the held staff member; Email their address.
	UserID string
	Email  string
	// Cause is what made the hold: "password_reset", "totp_reset" or
	// "invitation".
	Cause string
	// By made the reset or the invitation.
	By Party
	At time.Time
}

// Suspended is the error of an approval by a staff member under a hold:
// forbidden (ErrSuspended).
func Suspended() error {
	return coded(errcode.Forbidden, "Your approvals are suspended since your password, second factor or invitation was reset "+
		"by someone else: another staff admin must confirm your account first.", ErrSuspended)
}

// Confirm checks that by, who holds roles and is held themself when
// byHeld, may lift h: a staff member (ErrNotStaff) with the admin role
// (ErrWrongRole), under no hold (ErrSuspended), neither the held member
// nor who made the hold (ErrSelfConfirm); each forbidden.
func (h Hold) Confirm(by Party, roles []string, byHeld bool) error {
	if by.Kind != Staff {
		return coded(errcode.Forbidden, "A staff admin confirms a staff member: the automation cannot.", ErrNotStaff)
	}
	admin := false
	for _, r := range roles {
		admin = admin || r == AdminRole
	}
	if !admin {
		return coded(errcode.Forbidden, "Only staff with the admin role confirm a staff member.", ErrWrongRole)
	}
	if byHeld {
		return Suspended()
	}
	if by.UserID == h.UserID || (h.By.Kind == Staff && h.By.UserID == by.UserID) {
		return coded(errcode.Forbidden, "Another staff admin must confirm this: not the member held, nor who reset or invited them.", ErrSelfConfirm)
	}
	return nil
}

func coded(code errcode.Code, msg string, cause error) error {
	return &errcode.Error{Code: code, Message: msg, Err: cause}
}
