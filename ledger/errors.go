package ledger

import (
	"errors"
	"fmt"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Errors of the ledger; match them with errors.Is.
var (
	// ErrInsufficientFunds: the available balance does not cover the amount.
	// Returned as an *errcode.Error with code insufficient_funds whose
	// cause is an *InsufficientFundsError (insufficientFunds).
	ErrInsufficientFunds = errors.New("ledger: insufficient funds")
	// ErrEntryIDReused: an entry id was posted again with a different command.
	ErrEntryIDReused = errors.New("ledger: entry id used by a different command")
	ErrHoldExists    = errors.New("ledger: hold id already used")
	ErrHoldNotFound  = errors.New("ledger: no such hold")
	ErrHoldClosed    = errors.New("ledger: hold already released or captured")
	// ErrCaptureExceedsHold: a capture's amount plus fee is above the hold.
	ErrCaptureExceedsHold = errors.New("ledger: capture exceeds hold")
	ErrEntryNotFound      = errors.New("ledger: no such entry")
	ErrAlreadyReversed    = errors.New("ledger: entry already reversed")
	ErrNotReversible      = errors.New("ledger: entry kind cannot be reversed")
	// ErrInvalidCommand: a command is malformed (empty id, non-positive
	// amount, mixed assets, wrong bucket).
	ErrInvalidCommand = errors.New("ledger: invalid command")
	// ErrCapacity: a posting's amount, or the balance it would leave, is
	// beyond what the ledger holds (MaxBalanceDigits). Returned as an
	// *errcode.Error with code limit_exceeded; nothing is written.
	ErrCapacity = errors.New("ledger: beyond the ledger's capacity")
)

// MaxBalanceDigits bounds every amount the ledger posts and every balance
// it writes: below 10^MaxBalanceDigits whole units of the asset. A sum of
// that size reads back exactly (money.ParseSigned reads up to
// money.MaxStoredIntegerDigits), and the engine admits at most
// money.MaxWholeUnits (10^12) per operation, so reaching it takes more
// than 10^27 accepted operations: no tenant can exhaust a shared account.
// A posting that would go beyond it is refused whole, never written.
const MaxBalanceDigits = 40

// beyondCapacity is the one way the ledger refuses an amount or balance
// beyond MaxBalanceDigits.
func beyondCapacity(what string, a Account) error {
	return &errcode.Error{
		Code:    errcode.LimitExceeded,
		Message: "The amount is above the maximum the ledger holds.",
		Err:     fmt.Errorf("%w: %s of %s", ErrCapacity, what, a),
	}
}

// InsufficientFundsError says which account fell short.
type InsufficientFundsError struct {
	Account   Account
	Available money.Amount
	Needed    money.Amount
}

func (e *InsufficientFundsError) Error() string {
	return fmt.Sprintf("ledger: insufficient funds in %s: available %s, needed %s", e.Account, e.Available, e.Needed)
}

// Is matches ErrInsufficientFunds.
func (e *InsufficientFundsError) Is(target error) bool { return target == ErrInsufficientFunds }

// PublicMessage names the asset, never the organization.
func (e *InsufficientFundsError) PublicMessage() string {
	return fmt.Sprintf("The available %s balance does not cover this amount.", e.Account.Asset.Code)
}

// insufficientFunds is the one way the ledger reports a shortfall: the
// engine's one coded error type, with the detail as its cause.
func insufficientFunds(d *InsufficientFundsError) error {
	return &errcode.Error{Code: errcode.InsufficientFunds, Message: d.PublicMessage(), Err: d}
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidCommand, fmt.Sprintf(format, args...))
}
