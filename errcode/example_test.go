package errcode_test

import (
	"errors"
	"fmt"

	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/errcode"
)

func Example() {
	// A domain error carries a stable code through any wrapping.
	err := fmt.Errorf("create payout: %w", errcode.New(errcode.InsufficientFunds))
	code := errcode.Of(err)
	fmt.Println(code, httpapi.Status(code), errcode.Message(err))
	fmt.Println(errors.Is(err, errcode.New(errcode.InsufficientFunds)))

	// An error without a code is an internal error; its text never reaches
	// the caller.
	err = fmt.Errorf("ledger: %w", errors.New("disk full on /var/lib/tambala"))
	code = errcode.Of(err)
	fmt.Println(code, httpapi.Status(code), errcode.Message(err))
	// Output:
	// insufficient_funds 402 The available balance does not cover this amount.
	// true
	// internal_error 500 Internal error. Retry with the same Idempotency-Key.
}

func ExampleNewf() {
	err := errcode.Newf(errcode.MobileNumberInstitutionMismatch, "This number belongs to %s.", "TNM Mpamba")
	fmt.Println(errcode.Of(err), httpapi.Status(errcode.Of(err)))
	fmt.Println(errcode.Message(err))
	// Output:
	// mobile_number_institution_mismatch 422
	// This number belongs to TNM Mpamba.
}

func Example_sentinels() {
	// A host branches on a code with its sentinel, whatever the message
	// and however the error was wrapped.
	err := fmt.Errorf("quote: %w", errcode.Newf(errcode.AmountBelowMinimum, "The amount is below 1000.00 MWK."))
	switch {
	case errors.Is(err, errcode.ErrInsufficientFunds):
		fmt.Println("fund the organization")
	case errors.Is(err, errcode.ErrAmountBelowMinimum):
		fmt.Println("ask for more:", errcode.Message(err))
	}
	// Output:
	// ask for more: The amount is below 1000.00 MWK.
}
