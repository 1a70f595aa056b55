package collections

import (
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// Status is the status of a collection (/v1 and /v2): settled when
// credited, reversed when the operator took it back (/v1 only).
type Status string

// Collection statuses.
const (
	Settled  Status = "settled"
	Reversed Status = "reversed"
)

// Terminal reports whether a collection in status s can change no more:
// a settled collection may still be reversed.
func (s Status) Terminal() bool { return s == Reversed }

// Event types of collections. The data of each is the collection's one
// rendering after the move.
const (
	EventSettled   = "collection.settled"
	EventReversed  = "collection.reversed"
	EventV2Settled = "collection_v2.settled"
)

// Typed causes of the errors of this package, for errors.Is; the coded
// error (errcode) the engine answers with wraps them.
var (
	// ErrNotSettled is the cause of reversing a collection that is not
	// settled (conflict).
	ErrNotSettled = errors.New("collections: the collection is not settled")
	// ErrBelowFee is the cause of an amount below its collection fee
	// (validation_error).
	ErrBelowFee = errors.New("collections: the amount is below its collection fee")
	// ErrSameAddress is the cause of a rotation whose new deposit address is
	// the one in use (service_unavailable).
	ErrSameAddress = errors.New("collections: the issuer gave the deposit address in use")
)

// Collection is MWK received for an organization on /v1, credited net of
// the collection fee: AmountMWK - Fee = AmountCredited, always.
type Collection struct {
	ID                  string
	Status              Status
	AmountMWK           money.Amount
	Fee                 money.Amount
	AmountCredited      money.Amount
	Rail                payouts.Rail
	SourceCustomerName  string
	SourceAccountNumber string
	SourceInstitution   string
	RTPReferenceNumber  string
	CreatedAt           time.Time
}

// Received describes MWK received for an organization on /v1, as the
// operator records it.
type Received struct {
	Amount              money.Amount
	Rail                payouts.Rail // default momo
	SourceCustomerName  string
	SourceAccountNumber string
	SourceInstitution   string
	RTPReferenceNumber  string
}

// Check checks r and returns it with its default: the rail momo when
// empty, else momo or bank; the amount a positive MWK amount at most
// payouts.MaxAmount (validation_error otherwise, the rail first).
func (r Received) Check() (Received, error) {
	if r.Rail == "" {
		r.Rail = payouts.Momo
	}
	if r.Rail != payouts.Momo && r.Rail != payouts.Bank {
		return r, errcode.Newf(errcode.ValidationError, "rail must be momo or bank.")
	}
	if r.Amount.Asset() != money.MWK || r.Amount.Sign() <= 0 || r.Amount.Cmp(payouts.MaxAmount) > 0 {
		return r, errcode.Newf(errcode.ValidationError, "amount_mwk must be positive and at most %s.", payouts.MaxAmount)
	}
	return r, nil
}

// Simulated is a /v1 collection the sandbox makes up: Amount received on
// Rail (default momo) from a sandbox customer.
type Simulated struct {
	Amount money.Amount
	Rail   payouts.Rail
}

// Check checks s's amount as a payout's (payouts.CheckAmount), before
// anything else of it.
func (s Simulated) Check() error { return payouts.CheckAmount(s.Amount) }

// Received is what s records: its amount and rail from the sandbox's
// customer, under the reference SIM-<ref>. Received.Check checks the
// rest.
func (s Simulated) Received(ref string) Received {
	return Received{Amount: s.Amount, Rail: s.Rail, SourceCustomerName: "Sandbox Customer", SourceAccountNumber: "265880000000",
		SourceInstitution: "Sandbox", RTPReferenceNumber: "SIM-" + ref}
}

// Fee is the /v1 collection fee of amount received on rail under the fee
// schedule s (its all-in collection rate): rate_unavailable when s cannot
// price it.
func Fee(s payouts.FeeSchedule, rail payouts.Rail, amount money.Amount) (money.Amount, error) {
	q, err := s.Quote(payouts.DirCollection, rail, amount)
	if err != nil {
		return money.Amount{}, errcode.Wrap(errcode.RateUnavailable, err)
	}
	return q.Total, nil
}

// Settle makes /v1 collection id of org from r (checked) at now, fee
// (Fee) kept: settled, AmountCredited = r.Amount - fee, with the credit
// from external (entry collection:<id>) and event collection.settled. A
// fee in another asset or above the amount is ErrBelowFee.
func Settle(id, org string, r Received, fee money.Amount, now time.Time) (Collection, []Posting, string, error) {
	credited, err := net(r.Amount, fee)
	if err != nil {
		return Collection{}, nil, "", err
	}
	c := Collection{ID: id, Status: Settled, AmountMWK: r.Amount, Fee: fee, AmountCredited: credited, Rail: r.Rail,
		SourceCustomerName: r.SourceCustomerName, SourceAccountNumber: r.SourceAccountNumber,
		SourceInstitution: r.SourceInstitution, RTPReferenceNumber: r.RTPReferenceNumber, CreatedAt: now}
	return c, []Posting{credit(EntryID(id), id, org, r.Amount, fee)}, EventSettled, nil
}

// Reverse takes settled collection c back: reversed, its credit reversed
// (entry collection:<id>:reverse) and event collection.reversed. A
// collection that is not settled is conflict (ErrNotSettled), c unchanged.
// Whether the organization's balance covers the reversal is the ledger's
// to answer.
func Reverse(c Collection) (Collection, []Posting, string, error) {
	if c.Status != Settled {
		return c, nil, "", &errcode.Error{Code: errcode.Conflict, Message: fmt.Sprintf("This collection is already %s.", c.Status), Err: ErrNotSettled}
	}
	c.Status = Reversed
	return c, []Posting{{Kind: KindReverse, EntryID: ReverseEntryID(c.ID), Of: EntryID(c.ID), Ref: c.ID}}, EventReversed, nil
}

// net is amount - fee: ErrBelowFee when fee is in another asset, negative
// or above amount.
func net(amount, fee money.Amount) (money.Amount, error) {
	if fee.Asset() != amount.Asset() || fee.Sign() < 0 || fee.Cmp(amount) > 0 {
		return money.Amount{}, fmt.Errorf("%w: fee %s %s of %s %s", ErrBelowFee, fee, fee.Asset(), amount, amount.Asset())
	}
	return amount.Sub(fee)
}
