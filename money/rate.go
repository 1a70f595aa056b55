package money

import (
	"encoding/json"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// MaxRateDecimals is the most decimals a rate or factor may carry.
const MaxRateDecimals = 18

// Rate is an exact, immutable positive factor: an exchange rate (corridor
// currency per one stablecoin) or a fee percentage as a fraction ("0.008").
type Rate struct {
	d *apd.Decimal
}

// ParseRate parses a positive decimal string with up to MaxRateDecimals
// decimals, with the grammar of Parse.
func ParseRate(s string) (Rate, error) {
	if _, err := scanDecimal(s, MaxRateDecimals, MaxIntegerDigits, nil); err != nil {
		return Rate{}, err
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return Rate{}, parseErr(s, nil, ErrMalformed)
	}
	if d.Sign() <= 0 {
		return Rate{}, parseErr(s, nil, ErrMalformed)
	}
	return Rate{d: d}, nil
}

// MustRate is ParseRate for constants in code and tests; it panics on error.
func MustRate(s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		panic(err)
	}
	return r
}

// RateFromDecimal returns d as a rate; d must be positive.
func RateFromDecimal(d *apd.Decimal) (Rate, error) {
	if d == nil || d.Sign() <= 0 {
		return Rate{}, fmt.Errorf("money: rate must be positive")
	}
	return Rate{d: new(apd.Decimal).Set(d)}, nil
}

// IsZero reports whether the rate is unset.
func (r Rate) IsZero() bool { return r.d == nil }

// Decimal returns a copy of the rate's value.
func (r Rate) Decimal() *apd.Decimal {
	if r.d == nil {
		return new(apd.Decimal)
	}
	return new(apd.Decimal).Set(r.d)
}

// String renders the rate trimmed: no trailing zeros, no exponent
// ("1750.5", "0.008", "1800").
func (r Rate) String() string {
	if r.d == nil {
		return "0"
	}
	d := new(apd.Decimal)
	d.Reduce(r.d)
	if d.Exponent > 0 {
		// Reduce turns 1800 into 18E+2; render it as a plain integer.
		_, _ = exactCtx.Quantize(d, d, 0)
	}
	return d.Text('f')
}

// MarshalJSON renders the rate as a trimmed JSON string.
func (r Rate) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// Cmp compares two rates.
func (r Rate) Cmp(o Rate) int { return r.Decimal().Cmp(o.Decimal()) }
