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
// It is built as an amount is: from whole units (RateFromInt), from units
// of 10^-decimals (RateFromUnits), from an apd.Decimal (RateFromDecimal),
// or from text (ParseRate, MustRate).
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

// RateFromInt returns the whole rate n (1800 MWK per USDT), as FromInt
// makes an amount of whole units. A rate is positive: n < 1 is an invalid
// argument and panics, as MustRate does on bad text; a rate that comes
// from input goes through ParseRate or RateFromDecimal, which return the
// error.
func RateFromInt(n int64) Rate {
	if n < 1 {
		panic(fmt.Sprintf("money: RateFromInt(%d): a rate must be positive", n))
	}
	return Rate{d: apd.New(n, 0)}
}

// RateFromUnits returns units × 10^-decimals (RateFromUnits(17505, 1) is
// 1750.5; RateFromUnits(8, 3) is 0.008), as FromUnits makes an amount of
// minor units. units must be positive and decimals within 0 to
// MaxRateDecimals, else it panics, as RateFromInt does.
func RateFromUnits(units int64, decimals int) Rate {
	if units < 1 || decimals < 0 || decimals > MaxRateDecimals {
		panic(fmt.Sprintf("money: RateFromUnits(%d, %d): a rate must be positive, with 0 to %d decimals", units, decimals, MaxRateDecimals))
	}
	return Rate{d: apd.New(units, -int32(decimals))}
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
