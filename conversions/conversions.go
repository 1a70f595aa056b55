package conversions

import (
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
)

// Status is where a conversion is: processing, then completed or failed
// (both terminal).
type Status string

const (
	Processing Status = "processing"
	Completed  Status = "completed"
	Failed     Status = "failed"
)

// Terminal reports whether a conversion in status s can change no more.
func (s Status) Terminal() bool { return s == Completed || s == Failed }

// Failure codes of a failed conversion.
const (
	FailureProviderDeclined = "provider_declined"
	FailureOther            = "other"
)

// Failure says why a conversion failed.
type Failure struct {
	Code    string
	Message string
}

// FailureFor is the failure of a conversion the converter failed with
// code: provider_declined keeps its code, anything else is other.
func FailureFor(code string) *Failure {
	if code == FailureProviderDeclined {
		return &Failure{Code: code, Message: "The conversion provider declined the conversion."}
	}
	return &Failure{Code: FailureOther, Message: "The conversion failed."}
}

// Conversion is an organization's conversion of From into To at Rate.
type Conversion struct {
	ID        string
	Org       string
	From, To  money.Amount
	Rate      money.Rate
	Status    Status
	Failure   *Failure
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Event types.
const (
	EventCompleted = "conversion.completed"
	EventFailed    = "conversion.failed"
)

// Posting is one ledger movement a move asks the engine to post, in the
// transaction that stores the conversion, with the move's time: a
// movement between the organization and the desk, described as an
// order's are (EntryID conversion:<id>:hold|capture|credit|release,
// HoldID conversion:<id>:hold, Ref the conversion id).
type Posting = orders.Posting

// ErrEnded is returned by a move of a conversion that has ended.
var ErrEnded = errors.New("conversions: the conversion has ended")

// HoldID is the hold of conversion id, which is also its hold's entry.
func HoldID(id string) string { return "conversion:" + id + ":hold" }

// New makes conversion id of org, from q's amounts and rate: processing,
// its From amount held.
func New(id, org string, q quotes.Quote, now time.Time) (Conversion, []Posting) {
	c := Conversion{ID: id, Org: org, From: q.From, To: q.To, Rate: q.Rate, Status: Processing, CreatedAt: now, UpdatedAt: now}
	return c, []Posting{{Kind: orders.KindPlaceHold, EntryID: HoldID(id), HoldID: HoldID(id), Org: org, Amount: c.From, Ref: id}}
}

// Complete ends a processing conversion as completed: the hold captured
// to the desk and To credited from it, with event conversion.completed.
func Complete(c Conversion, now time.Time) (Conversion, []Posting, string, error) {
	if c.Status != Processing {
		return c, nil, "", fmt.Errorf("%w: %s is %s", ErrEnded, c.ID, c.Status)
	}
	c.Status, c.UpdatedAt = Completed, now
	return c, []Posting{
		{Kind: orders.KindCaptureHold, EntryID: "conversion:" + c.ID + ":capture", HoldID: HoldID(c.ID), Amount: c.From, System: orders.Desk, Ref: c.ID},
		{Kind: orders.KindCredit, EntryID: "conversion:" + c.ID + ":credit", Org: c.Org, Amount: c.To, System: orders.Desk, Ref: c.ID},
	}, EventCompleted, nil
}

// Fail ends a processing conversion as failed with the failure for code
// (FailureFor): the hold released, with event conversion.failed.
func Fail(c Conversion, code string, now time.Time) (Conversion, []Posting, string, error) {
	if c.Status != Processing {
		return c, nil, "", fmt.Errorf("%w: %s is %s", ErrEnded, c.ID, c.Status)
	}
	c.Status, c.Failure, c.UpdatedAt = Failed, FailureFor(code), now
	return c, []Posting{{Kind: orders.KindReleaseHold, EntryID: "conversion:" + c.ID + ":release", HoldID: HoldID(c.ID), Ref: c.ID}}, EventFailed, nil
}
