package payouts

import (
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/wiretime"
	"github.com/tambalapay/tambala/money"
)

// TimeFormat is the wire's one timestamp format: UTC, millisecond
// precision (internal/wiretime's layout). The renderings (internal/render)
// and the engine's records that keep a time as text use it.
const TimeFormat = wiretime.Layout

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return wiretime.Format(t) }

// Status is a payout's state.
type Status string

const (
	Received  Status = "received"
	Validated Status = "validated"
	Held      Status = "held"
	Submitted Status = "submitted"
	Pending   Status = "pending"
	Succeeded Status = "succeeded"
	Failed    Status = "failed"
	Reversed  Status = "reversed"
)

// Statuses lists every status, in lifecycle order.
var Statuses = []Status{Received, Validated, Held, Submitted, Pending, Succeeded, Failed, Reversed}

// Terminal reports whether s is terminal.
func (s Status) Terminal() bool { return s == Succeeded || s == Failed || s == Reversed }

// ParseStatus checks a status filter.
func ParseStatus(s string) (Status, error) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, nil
		}
	}
	return "", errcode.Newf(errcode.ValidationError, "status must be one of received, validated, held, submitted, pending, succeeded, failed, reversed")
}

// Rail is how a payout is paid.
type Rail string

const (
	Bank Rail = "bank"
	Momo Rail = "momo"
)

// FailureCode is the complete vocabulary of payout failures.
type FailureCode string

const (
	RecipientAccountInvalid FailureCode = "recipient_account_invalid"
	Declined                FailureCode = "declined"
	ProviderUnavailable     FailureCode = "provider_unavailable"
	TemporarilyUnavailable  FailureCode = "temporarily_unavailable"
)

// failureMessages is the one table of fixed failure messages.
var failureMessages = map[FailureCode]string{
	RecipientAccountInvalid: "The provider rejected the destination account.",
	Declined:                "The provider declined the payout.",
	ProviderUnavailable:     "The provider timed out or is unavailable.",
	TemporarilyUnavailable:  "A temporary condition prevented the payout; no funds were deducted.",
}

// FailureFor maps any provider outcome code to the vocabulary: unknown
// codes become declined.
func FailureFor(code string) Failure {
	c := FailureCode(code)
	if _, ok := failureMessages[c]; !ok {
		c = Declined
	}
	return Failure{Code: c, Message: failureMessages[c]}
}

// Failure is why a payout failed.
type Failure struct {
	Code    FailureCode
	Message string
}

// Destination is the validated snapshot of where the money goes.
type Destination struct {
	InstitutionID   int
	AccountNumber   string // bank
	MobileNumber    string // momo
	BeneficiaryName string
}

// Payout is a payout's full state.
type Payout struct {
	ID          string
	Org         string
	Rail        Rail
	Amount      money.Amount
	HeldFee     money.Amount  // the fee priced at accept, held with the amount
	Fee         *money.Amount // the provider's observed fee; nil while unknown
	Status      Status
	Destination Destination
	Failure     *Failure
	CreatedAt   time.Time
	UpdatedAt   time.Time
	TerminalAt  *time.Time
}

// ErrTransition is a move the state machine does not allow.
var ErrTransition = errors.New("payouts: transition not allowed")

func (p Payout) move(to Status, from ...Status) (Payout, error) {
	for _, f := range from {
		if p.Status == f {
			p.Status = to
			return p, nil
		}
	}
	return p, fmt.Errorf("%w: %s -> %s", ErrTransition, p.Status, to)
}

// Submit moves held -> submitted (handed to the provider).
func (p Payout) Submit(now time.Time) (Payout, error) {
	p, err := p.move(Submitted, Held)
	p.UpdatedAt = now
	return p, err
}

// MarkPending moves submitted -> pending (the provider acknowledged it).
func (p Payout) MarkPending(now time.Time) (Payout, error) {
	p, err := p.move(Pending, Submitted)
	p.UpdatedAt = now
	return p, err
}

// Succeed moves pending -> succeeded with the provider's observed fee (nil
// when it reported none) and sets terminal_at.
func (p Payout) Succeed(fee *money.Amount, now time.Time) (Payout, error) {
	p, err := p.move(Succeeded, Pending)
	if err != nil {
		return p, err
	}
	if fee != nil {
		f := *fee
		p.Fee = &f
	}
	p.UpdatedAt, p.TerminalAt = now, &now
	return p, nil
}

// Fail moves pending -> failed: fee 0.00, failure set, terminal_at set. The
// caller releases the hold in the same transaction.
func (p Payout) Fail(f Failure, now time.Time) (Payout, error) {
	p, err := p.move(Failed, Pending)
	if err != nil {
		return p, err
	}
	zero := money.Zero(money.MWK)
	p.Fee, p.Failure = &zero, &f
	p.UpdatedAt, p.TerminalAt = now, &now
	return p, nil
}

// Reverse moves succeeded -> reversed on a provider clawback; terminal_at
// and the fee do not change and there is no failure.
func (p Payout) Reverse(now time.Time) (Payout, error) {
	p, err := p.move(Reversed, Succeeded)
	p.UpdatedAt = now
	return p, err
}
