package ledger

import (
	"time"

	"github.com/tambalapay/tambala/money"
)

// Kind is the operation an entry records.
type Kind string

const (
	KindCredit  Kind = "credit"
	KindHold    Kind = "hold"
	KindRelease Kind = "release"
	KindCapture Kind = "capture"
	KindReverse Kind = "reverse"
	KindConvert Kind = "convert"
	KindCharge  Kind = "charge"
)

// Posting is one signed change to one account.
type Posting struct {
	Account Account
	Amount  money.Amount // positive increases the account's balance
}

// Entry is one balanced journal entry: its postings sum to zero per asset.
type Entry struct {
	ID       string
	Kind     Kind
	Ref      string    // the caller's reference (a payout id, a trade id, ...)
	HoldID   string    // the hold a hold, release or capture entry opens or closes
	Reverses string    // the entry a reverse entry undoes
	At       time.Time // when the command was posted (the caller's clock)
	Postings []Posting
	// Digest identifies the command that produced the entry, so a replay of
	// the same command is told apart from a different one under the same id.
	Digest string
}

// Hold is money set aside from an organization's available balance until it
// is released (back to available) or captured (paid out).
type Hold struct {
	ID       string
	Org      string
	Amount   money.Amount
	Ref      string
	Open     bool
	OpenedBy string // the hold entry
	ClosedBy string // the release or capture entry, once closed
}
