package money

import (
	"encoding/json"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// MaxIntegerDigits bounds the whole part of any amount or rate parsed from
// the wire: 10^30 of any unit is beyond every real balance, and the bound
// keeps arithmetic within exactCtx's precision.
const MaxIntegerDigits = 30

// exactCtx does the arithmetic that must never round: Inexact is a trap, so
// any lost non-zero digit is an error instead of a silent rounding (dropping
// trailing zeros, as in 7.100 -> 7.10, is exact and allowed).
var exactCtx = apd.Context{
	Precision:   MaxIntegerDigits + MaxDecimals + 20,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundHalfEven,
	Traps:       apd.DefaultTraps | apd.Inexact,
}

// Amount is an exact, immutable amount of one asset, always at the asset's
// decimals. The zero Amount is zero of the zero Asset; use Zero(asset).
type Amount struct {
	asset Asset
	d     *apd.Decimal // never mutated after construction; nil is zero
}

// Zero returns zero of asset.
func Zero(asset Asset) Amount { return Amount{asset: asset} }

// FromInt returns n whole units of asset.
func FromInt(asset Asset, n int64) Amount {
	d := apd.New(n, 0)
	return mustQuantize(asset, d)
}

// FromUnits returns units minor units (10^-decimals) of asset.
func FromUnits(asset Asset, units int64) Amount {
	return Amount{asset: asset, d: apd.New(units, -asset.Decimals)}
}

// FromDecimal returns d as an amount of asset, failing with ErrInexact if d
// has more decimals than the asset carries.
func FromDecimal(asset Asset, d *apd.Decimal) (Amount, error) {
	out := new(apd.Decimal)
	if _, err := exactCtx.Quantize(out, d, -asset.Decimals); err != nil {
		return Amount{}, fmt.Errorf("%w: %s at %d decimals", ErrInexact, d.String(), asset.Decimals)
	}
	return Amount{asset: asset, d: out}, nil
}

func mustQuantize(asset Asset, d *apd.Decimal) Amount {
	a, err := FromDecimal(asset, d)
	if err != nil {
		panic(err)
	}
	return a
}

// Asset returns the amount's asset.
func (a Amount) Asset() Asset { return a.asset }

// Decimal returns a copy of the amount's value.
func (a Amount) Decimal() *apd.Decimal {
	out := new(apd.Decimal)
	if a.d == nil {
		out.Exponent = -a.asset.Decimals
		return out
	}
	return out.Set(a.d)
}

func (a Amount) dec() *apd.Decimal {
	if a.d == nil {
		return &apd.Decimal{Exponent: -a.asset.Decimals}
	}
	return a.d
}

// String formats the amount at its asset's decimals, e.g. "5000.00".
func (a Amount) String() string { return a.dec().Text('f') }

// MarshalJSON renders the amount as a JSON string at its asset's decimals.
func (a Amount) MarshalJSON() ([]byte, error) { return json.Marshal(a.String()) }

// AppendText appends String() to b.
func (a Amount) AppendText(b []byte) ([]byte, error) { return append(b, a.String()...), nil }

// Sign returns -1, 0 or +1.
func (a Amount) Sign() int { return a.dec().Sign() }

// IsZero reports whether the amount is zero.
func (a Amount) IsZero() bool { return a.Sign() == 0 }

// Cmp compares a and b, which must be of one asset (a programming error
// otherwise, which panics).
func (a Amount) Cmp(b Amount) int {
	if a.asset != b.asset {
		panic(fmt.Sprintf("money: comparing %s with %s", a.asset.Code, b.asset.Code))
	}
	return a.dec().Cmp(b.dec())
}

// Equal reports whether a and b are the same asset and value.
func (a Amount) Equal(b Amount) bool { return a.asset == b.asset && a.dec().Cmp(b.dec()) == 0 }

// Add returns a+b exactly.
func (a Amount) Add(b Amount) (Amount, error) { return a.binary(b, exactCtx.Add) }

// Sub returns a-b exactly.
func (a Amount) Sub(b Amount) (Amount, error) { return a.binary(b, exactCtx.Sub) }

func (a Amount) binary(b Amount, op func(d, x, y *apd.Decimal) (apd.Condition, error)) (Amount, error) {
	if a.asset != b.asset {
		return Amount{}, fmt.Errorf("%w: %s and %s", ErrAssetMismatch, a.asset.Code, b.asset.Code)
	}
	out := new(apd.Decimal)
	if _, err := op(out, a.dec(), b.dec()); err != nil {
		return Amount{}, fmt.Errorf("%w: %v", ErrInexact, err)
	}
	return Amount{asset: a.asset, d: out}, nil
}

// Neg returns -a.
func (a Amount) Neg() Amount {
	out := new(apd.Decimal).Neg(a.dec())
	return Amount{asset: a.asset, d: out}
}

// Abs returns |a|.
func (a Amount) Abs() Amount {
	if a.Sign() >= 0 {
		return a
	}
	return a.Neg()
}

// Parse parses a non-negative decimal string of asset: digits, optionally a
// point and at most asset.Decimals digits. No sign, exponent, whitespace,
// leading or trailing point, or thousands separator.
func Parse(asset Asset, s string) (Amount, error) {
	d, err := parseDecimal(s, int(asset.Decimals), &asset)
	if err != nil {
		return Amount{}, err
	}
	return mustQuantize(asset, d), nil
}

// ParseSigned is Parse that also accepts a leading '-'. It is for amounts
// the engine stored itself (system balances may be negative), never for
// wire input.
func ParseSigned(asset Asset, s string) (Amount, error) {
	if len(s) > 1 && s[0] == '-' {
		a, err := Parse(asset, s[1:])
		if err != nil {
			return Amount{}, err
		}
		return a.Neg(), nil
	}
	return Parse(asset, s)
}

// ParseJSON parses a raw JSON value as an amount of asset: a JSON string
// holding a decimal (see Parse), or a JSON integer of whole units. A
// fractional or exponent JSON number, a negative number, null, or any other
// JSON type is rejected.
func ParseJSON(asset Asset, raw []byte) (Amount, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return Amount{}, parseErr("", &asset, ErrEmpty)
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Amount{}, parseErr(string(raw), &asset, ErrMalformed)
		}
		return Parse(asset, s)
	case c == '-':
		return Amount{}, parseErr(string(raw), &asset, ErrSign)
	case c >= '0' && c <= '9':
		for i := 0; i < len(raw); i++ {
			switch raw[i] {
			case '.':
				return Amount{}, parseErr(string(raw), &asset, ErrFractionalNumber)
			case 'e', 'E':
				return Amount{}, parseErr(string(raw), &asset, ErrExponent)
			}
		}
		d, err := parseDecimal(string(raw), 0, &asset)
		if err != nil {
			return Amount{}, err
		}
		return mustQuantize(asset, d), nil
	}
	return Amount{}, parseErr(string(raw), &asset, ErrNotANumber)
}

// parseDecimal is the one grammar of wire decimals: [0-9]+ ('.' [0-9]{1,maxFrac})?
func parseDecimal(s string, maxFrac int, asset *Asset) (*apd.Decimal, error) {
	if s == "" {
		return nil, parseErr(s, asset, ErrEmpty)
	}
	intDigits, fracDigits, seenPoint := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if seenPoint {
				fracDigits++
			} else {
				intDigits++
			}
		case c == '.' && !seenPoint:
			seenPoint = true
		case c == '+' || c == '-':
			return nil, parseErr(s, asset, ErrSign)
		case c == 'e' || c == 'E':
			return nil, parseErr(s, asset, ErrExponent)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			return nil, parseErr(s, asset, ErrWhitespace)
		default:
			return nil, parseErr(s, asset, ErrMalformed)
		}
	}
	if intDigits == 0 || (seenPoint && fracDigits == 0) {
		return nil, parseErr(s, asset, ErrMalformed)
	}
	if fracDigits > maxFrac {
		return nil, parseErr(s, asset, ErrTooManyDecimals)
	}
	// Leading zeros do not count towards the size bound.
	significant := intDigits
	for i := 0; i < intDigits-1 && s[i] == '0'; i++ {
		significant--
	}
	if significant > MaxIntegerDigits {
		return nil, parseErr(s, asset, ErrTooLarge)
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return nil, parseErr(s, asset, ErrMalformed)
	}
	return d, nil
}
