package money

import (
	"errors"

	"github.com/tambalapay/tambala/errcode"
)

// Reasons a parse fails; match them with errors.Is on a *ParseError.
var (
	ErrEmpty            = errors.New("amount is missing")
	ErrNotANumber       = errors.New("amount must be a decimal string or a JSON integer")
	ErrFractionalNumber = errors.New("a fractional amount must be sent as a string")
	ErrExponent         = errors.New("amount must not use an exponent")
	ErrSign             = errors.New("amount must not carry a sign")
	ErrWhitespace       = errors.New("amount must not contain whitespace")
	ErrMalformed        = errors.New("amount is not a decimal number")
	ErrTooManyDecimals  = errors.New("amount has more decimal places than the asset carries")
	ErrTooLarge         = errors.New("amount is too large")
)

// ErrAssetMismatch is returned by arithmetic on amounts of different assets.
var ErrAssetMismatch = errors.New("money: amounts of different assets")

// ErrInexact is returned when exact arithmetic would have to round.
var ErrInexact = errors.New("money: result is not exact")

// ParseError is the detail of a rejected amount or rate. Parsers return it
// as the cause of an *errcode.Error with code validation_error.
type ParseError struct {
	Input  string    // the rejected text, truncated to 40 bytes
	Asset  AssetCode // the asset it was parsed for, if any
	Reason error     // one of the Err* reasons above
}

func (e *ParseError) Error() string {
	return "money: " + e.Reason.Error() + " (" + quoteInput(e.Input) + ")"
}

func (e *ParseError) Unwrap() error { return e.Reason }

// PublicMessage is the message shown to API callers.
func (e *ParseError) PublicMessage() string {
	if errors.Is(e.Reason, ErrTooManyDecimals) && e.Asset != "" {
		return string(e.Asset) + " " + e.Reason.Error()
	}
	return e.Reason.Error()
}

func quoteInput(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "\"" + s + "\""
}

// parseErr returns the rejection as the one coded error type: an
// *errcode.Error with code validation_error whose cause is the
// *ParseError, so that errors.Is(err, errcode.New(errcode.ValidationError))
// and errors.As(err, &*ParseError) both hold.
func parseErr(input string, a *Asset, reason error) error {
	e := &ParseError{Input: input, Reason: reason}
	if len(e.Input) > 40 {
		e.Input = e.Input[:40]
	}
	if a != nil {
		e.Asset = a.Code
	}
	return &errcode.Error{Code: errcode.ValidationError, Message: e.PublicMessage(), Err: e}
}
