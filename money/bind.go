package money

import "github.com/tambalapay/tambala/errcode"

// AmountField names an amount a caller sent, for the binder's messages: the
// one rule that binds an amount's text to its asset (Bind, BindDecimal) or
// checks an amount already bound (Check).
type AmountField struct {
	// Name names the amount in messages ("amount", "from_amount").
	Name string
	// Zero is how the lower bound reads in the message of an amount not
	// above it: "zero" when empty, or the text given (e.g. "0").
	Zero string
}

// BindAmount binds s to asset as field: AmountField{Name: field}.Bind.
func BindAmount(field string, asset Asset, s string) (Amount, error) {
	return AmountField{Name: field}.Bind(asset, s)
}

// Bind parses s as an amount of asset and checks it: the grammar of Parse
// with at most asset's decimals (more is validation_error, never rounded),
// greater than zero (validation_error), at most Max (limit_exceeded). A
// parse error is validation_error prefixed with the field's name.
func (f AmountField) Bind(asset Asset, s string) (Amount, error) {
	a, err := Parse(asset, s)
	if err != nil {
		return Amount{}, &errcode.Error{Code: errcode.ValidationError, Message: f.Name + ": " + errcode.Message(err), Err: err}
	}
	if err := f.Check(a); err != nil {
		return Amount{}, err
	}
	return a, nil
}

// BindDecimal is Bind of d's text.
func (f AmountField) BindDecimal(asset Asset, d Decimal) (Amount, error) {
	return f.Bind(asset, d.text)
}

// Check checks an amount already bound to its asset: greater than zero
// (validation_error) and at most Max (limit_exceeded).
func (f AmountField) Check(a Amount) error {
	if a.Sign() <= 0 {
		zero := f.Zero
		if zero == "" {
			zero = "zero"
		}
		return errcode.Newf(errcode.ValidationError, "%s must be greater than %s.", f.Name, zero)
	}
	return CheckMax(f.Name, a)
}
