package orders

import (
	"strings"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Direction says which way an order moves money.
type Direction string

const (
	// ToBank sells a stablecoin for the corridor currency, paid by the desk
	// to the beneficiary's bank account.
	ToBank Direction = "to_bank"
	// FromBank buys a stablecoin with the corridor currency the
	// organization wires to the desk.
	FromBank Direction = "from_bank"
)

// Status is an order's state in the to-bank or from-bank state machine.
type Status string

const (
	// To-bank only.
	Accepted   Status = "accepted"
	Processing Status = "processing"

	// From-bank only.
	AwaitingInstructions Status = "awaiting_instructions"
	AwaitingFunds        Status = "awaiting_funds"
	ProofSubmitted       Status = "proof_submitted"
	FundsConfirmed       Status = "funds_confirmed"
	Expired              Status = "expired"

	// Both directions.
	Completed Status = "completed"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// Statuses lists every status: to-bank's, then from-bank's, then the shared
// terminal ones.
var Statuses = []Status{Accepted, Processing, AwaitingInstructions, AwaitingFunds, ProofSubmitted,
	FundsConfirmed, Expired, Completed, Failed, Cancelled}

// Terminal reports whether s is terminal: completed, failed, cancelled or
// expired. A failed to-bank order may still see its refund returned.
func (s Status) Terminal() bool {
	return s == Completed || s == Failed || s == Cancelled || s == Expired
}

// ParseStatus checks a status filter (the order list's status parameter).
func ParseStatus(s string) (Status, error) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, nil
		}
	}
	names := make([]string, len(Statuses))
	for i, st := range Statuses {
		names[i] = string(st)
	}
	return "", errcode.Newf(errcode.ValidationError, "status must be one of %s.", strings.Join(names, ", "))
}

// FailureCode is the complete vocabulary of order failures (reference 7.3).
type FailureCode string

const (
	UnableToFill        FailureCode = "unable_to_fill"
	BeneficiaryRejected FailureCode = "beneficiary_rejected"
	FundsNotReceived    FailureCode = "funds_not_received"
	NotDelivered        FailureCode = "not_delivered"
	Other               FailureCode = "other"
)

// failureMessages is the one table of the fixed failure messages
// (decisions.md, "Order failure messages").
var failureMessages = map[FailureCode]string{
	UnableToFill:        "The desk could not fill the order.",
	BeneficiaryRejected: "The beneficiary's bank rejected the payment.",
	FundsNotReceived:    "The desk did not receive the funds.",
	NotDelivered:        "The payment could not be delivered.",
	Other:               "The order failed.",
}

// FailureCodes returns the failure codes a direction allows, in this
// order: to-bank unable_to_fill, beneficiary_rejected,
// not_delivered, other; from-bank unable_to_fill, funds_not_received,
// other. Which of them each state allows is in Apply.
func FailureCodes(d Direction) []FailureCode {
	switch d {
	case ToBank:
		return []FailureCode{UnableToFill, BeneficiaryRejected, NotDelivered, Other}
	case FromBank:
		return []FailureCode{UnableToFill, FundsNotReceived, Other}
	}
	return nil
}

// FailureMessage is the fixed message of a code; ok is false for a code
// outside the vocabulary.
func FailureMessage(c FailureCode) (msg string, ok bool) {
	msg, ok = failureMessages[c]
	return msg, ok
}

// Failure is why an order failed: a code and its fixed message.
type Failure struct {
	Code    FailureCode
	Message string
}

// RefundStatus is where the refund of a to-bank order that failed after
// its coins left stands.
type RefundStatus string

const (
	RefundPending  RefundStatus = "pending"
	RefundReturned RefundStatus = "returned"
)

// Refund is present on a to-bank order that failed after the coins left.
type Refund struct {
	Status RefundStatus
}

// Beneficiary is the to-bank payee, kept and echoed exactly as sent.
// Branch is nil when it was absent or null.
type Beneficiary struct {
	Name          string
	BankName      string
	AccountNumber string
	Branch        *string
}

// Funding is the from-bank funding instructions, set once when the desk
// issues them and never changed. Amount is the order's from_amount (its
// asset is the funding asset) and Deadline its expires_at.
type Funding struct {
	BankName      string
	AccountName   string
	AccountNumber string
	Reference     string
	Amount        money.Amount
	Deadline      time.Time
}

// Proof is the newest funding proof of a from-bank order. The bytes and
// the older proofs are the engine's (every proof is kept for audit);
// RejectedReason is nil unless the desk rejected this proof.
type Proof struct {
	ID             string
	SHA256         string // lowercase hex of the bytes' SHA-256
	ContentType    string // application/pdf, image/png or image/jpeg
	Size           int64
	UploadedAt     time.Time
	RejectedReason *string
}

// Order is an order's full state. Values are immutable by convention: New
// and Apply return new ones and never change the pointers of the order they
// are given.
type Order struct {
	ID        string
	Org       string
	QuoteID   string
	ClientRef string
	Direction Direction
	// From is what the caller pays (a stablecoin to-bank, the corridor
	// currency from-bank) and To what the beneficiary receives or the
	// organization is credited; both frozen from the quote.
	From money.Amount
	To   money.Amount
	Rate money.Rate // corridor currency per one stablecoin, from the quote

	Status      Status
	Failure     *Failure     // set only in failed
	Refund      *Refund      // to-bank, failed after the coins left
	Beneficiary *Beneficiary // to-bank only
	Funding     *Funding     // from-bank, from awaiting_funds on
	Proof       *Proof       // from-bank, the newest funding proof

	// CoinsLeftAt is when the desk recorded the coins leaving (coins-sent):
	// internal, never rendered. Set means the hold was captured.
	CoinsLeftAt *time.Time

	CreatedAt time.Time
	UpdatedAt time.Time
}

// ExpiresAt is the funding deadline: set (ok) on a from-bank order from
// awaiting_funds on, and never moved.
func (o Order) ExpiresAt() (t time.Time, ok bool) {
	if o.Funding == nil {
		return time.Time{}, false
	}
	return o.Funding.Deadline, true
}

// HoldID is the id of a to-bank order's hold: order:<id>.
func HoldID(orderID string) string { return "order:" + orderID }

// EntryID is the ledger entry id of one of an order's postings:
// order:<id>:<step> with step hold, capture, release, refund or credit.
func EntryID(orderID, step string) string { return "order:" + orderID + ":" + step }

// clock normalises every time the package stores: UTC, millisecond
// precision, the precision of the wire.
func clock(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// cloneString copies an optional string.
func cloneString(s *string) *string {
	if s == nil {
		return nil
	}
	v := *s
	return &v
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := *t
	return &v
}

// clone deep-copies o's pointers so that a returned order never shares
// memory with the one Apply was given.
func (o Order) clone() Order {
	if o.Failure != nil {
		f := *o.Failure
		o.Failure = &f
	}
	if o.Refund != nil {
		r := *o.Refund
		o.Refund = &r
	}
	if o.Beneficiary != nil {
		b := *o.Beneficiary
		b.Branch = cloneString(b.Branch)
		o.Beneficiary = &b
	}
	if o.Funding != nil {
		f := *o.Funding
		o.Funding = &f
	}
	if o.Proof != nil {
		p := *o.Proof
		p.RejectedReason = cloneString(p.RejectedReason)
		o.Proof = &p
	}
	o.CoinsLeftAt = cloneTime(o.CoinsLeftAt)
	return o
}
