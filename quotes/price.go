package quotes

import (
	"errors"
	"fmt"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Price derives the side of a quote the caller did not fix, by the
// rounding table of the package documentation. dir is the pair's
// direction, rate the direction's rate (corridor currency per one
// stablecoin), from and to the pair's assets; exactly one of fixedFrom and
// fixedTo is set (the other the zero Amount).
//
// The fixed side is returned as given, never rounded: it must be an amount
// of its asset that fits the asset's decimals and is above zero (else
// validation_error). A derived side of zero is amount_below_minimum.
// Either side above money.Max of its asset is limit_exceeded
// (money.CheckMax), so that no quote can move more than any operation
// accepts. Limits (corridor min and max, conversion limits) are the
// caller's next step: Corridor.Limits, Limits.Check.
func Price(dir Direction, rate money.Rate, from, to money.Asset, fixedFrom, fixedTo money.Amount) (fromAmt, toAmt money.Amount, err error) {
	if !dir.Valid() {
		return money.Amount{}, money.Amount{}, fmt.Errorf("quotes: unknown direction %q", dir)
	}
	if rate.IsZero() || rate.Decimal().Sign() <= 0 {
		return money.Amount{}, money.Amount{}, errors.New("quotes: pricing needs a positive rate")
	}
	if fixedFrom.IsSet() == fixedTo.IsSet() {
		return money.Amount{}, money.Amount{}, errExactlyOneAmount()
	}
	// The stablecoin side is from on ToBank, to on FromBank; C is the other.
	if fixedFrom.IsSet() {
		if fromAmt, err = checkFixed("from_amount", fixedFrom, from); err != nil {
			return money.Amount{}, money.Amount{}, err
		}
		if dir == ToBank {
			toAmt, err = money.Mul(fromAmt, rate, to, money.RoundDown) // S × R → C, down
		} else {
			toAmt, err = money.Quo(fromAmt, rate, to, money.RoundUp) // C ÷ R → S, up
		}
		if err != nil {
			return money.Amount{}, money.Amount{}, fmt.Errorf("quotes: deriving to_amount: %w", err)
		}
		if err := checkDerived("to_amount", toAmt); err != nil {
			return money.Amount{}, money.Amount{}, err
		}
		return fromAmt, toAmt, nil
	}
	if toAmt, err = checkFixed("to_amount", fixedTo, to); err != nil {
		return money.Amount{}, money.Amount{}, err
	}
	if dir == ToBank {
		fromAmt, err = money.Quo(toAmt, rate, from, money.RoundUp) // C ÷ R → S, up
	} else {
		fromAmt, err = money.Mul(toAmt, rate, from, money.RoundDown) // S × R → C, down
	}
	if err != nil {
		return money.Amount{}, money.Amount{}, fmt.Errorf("quotes: deriving from_amount: %w", err)
	}
	if err := checkDerived("from_amount", fromAmt); err != nil {
		return money.Amount{}, money.Amount{}, err
	}
	return fromAmt, toAmt, nil
}

func errExactlyOneAmount() error {
	return errcode.Newf(errcode.ValidationError, "Exactly one of from_amount and to_amount is required.")
}

// checkFixed returns a, a caller's fixed amount, as an amount of asset: it
// must be of that asset's code, fit its decimals, be above zero and within
// the wire's size bound.
func checkFixed(field string, a money.Amount, asset money.Asset) (money.Amount, error) {
	if a.Asset().Code != asset.Code {
		return money.Amount{}, fmt.Errorf("quotes: %s is in %s, the pair has %s", field, a.Asset().Code, asset.Code)
	}
	if a.Asset() != asset {
		// Same code, other decimals: it must fit the configured ones.
		fit, err := money.FromDecimal(asset, a.Decimal())
		if err != nil {
			return money.Amount{}, errcode.Newf(errcode.ValidationError,
				"%s has more decimal places than %s carries (%d).", field, asset.Code, asset.Decimals)
		}
		a = fit
	}
	if err := (money.AmountField{Name: field}).Check(a); err != nil {
		return money.Amount{}, err
	}
	return a, nil
}

func checkDerived(field string, a money.Amount) error {
	if a.Sign() <= 0 {
		return errcode.Newf(errcode.AmountBelowMinimum,
			"The amount is below the minimum: %s rounds to %s %s at this rate.", field, a, a.Asset().Code)
	}
	return money.CheckMax(field, a)
}

// ParseAmount is a quote request's amount check, for one side: s in
// the grammar of money.Parse, at most asset's decimals (more is
// validation_error, never rounded), greater than zero; above money.Max is
// limit_exceeded.
// field names the side in messages. It is money.BindAmount.
func ParseAmount(field, s string, asset money.Asset) (money.Amount, error) {
	return money.BindAmount(field, asset, s)
}

func fieldErr(field string, err error) error {
	return &errcode.Error{Code: errcode.ValidationError, Message: field + ": " + errcode.Message(err), Err: err}
}

// Limits are a minimum and a maximum, each optional, of one asset: a
// corridor's (Corridor.Limits, on the corridor-currency side) or those of
// (asset, operation) (conversions check them on the from side).
type Limits struct {
	Min, Max money.Amount
}

// Check returns amount_below_minimum when a is below Min and limit_exceeded
// when it is above Max; both bounds are inclusive. A limit of another asset
// than a's is a programming error (an uncoded error).
func (l Limits) Check(a money.Amount) error {
	if l.Min.IsSet() {
		if l.Min.Asset() != a.Asset() {
			return fmt.Errorf("quotes: a minimum in %s for an amount in %s", l.Min.Asset().Code, a.Asset().Code)
		}
		if a.Cmp(l.Min) < 0 {
			return errcode.Newf(errcode.AmountBelowMinimum, "The amount is below the minimum of %s %s.", l.Min, l.Min.Asset().Code)
		}
	}
	if l.Max.IsSet() {
		if l.Max.Asset() != a.Asset() {
			return fmt.Errorf("quotes: a maximum in %s for an amount in %s", l.Max.Asset().Code, a.Asset().Code)
		}
		if a.Cmp(l.Max) > 0 {
			return errcode.Newf(errcode.LimitExceeded, "The amount is above the maximum of %s %s.", l.Max, l.Max.Asset().Code)
		}
	}
	return nil
}
