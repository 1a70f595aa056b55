package money

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// MaxIntegerDigits bounds the whole part of any amount or rate parsed from
// the wire: 10^30 of any unit is beyond every real balance, and the bound
// keeps arithmetic within exactCtx's precision. It is the grammar's bound
// (a longer number is malformed input); the engine's business bound on an
// amount is the smaller MaxWholeUnits.
const MaxIntegerDigits = 30

// MaxStoredIntegerDigits bounds the whole part of an amount that
// ParseSigned reads back: far above anything the engine can write (the
// ledger refuses balances of 10^40 whole units or more), so that every
// stored sum reads again, and still exact within exactCtx's precision.
const MaxStoredIntegerDigits = 48

// exactCtx does the arithmetic that must never round: Inexact is a trap, so
// any lost non-zero digit is an error instead of a silent rounding (dropping
// trailing zeros, as in 7.100 -> 7.10, is exact and allowed). Its precision
// holds the sum of two stored amounts of the most decimals exactly.
var exactCtx = apd.Context{
	Precision:   MaxStoredIntegerDigits + MaxDecimals + 20,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundHalfEven,
	Traps:       apd.DefaultTraps | apd.Inexact,
}

// Amount is an exact, immutable amount of one asset, always at the asset's
// decimals. The zero Amount is zero of the zero Asset; use Zero(asset).
//
// A value whose minor units (10^-decimals) fit in an int64 is kept as that
// integer, so the common arithmetic (Add, Sub, Cmp, parsing and
// formatting) is exact integer work that allocates nothing. A larger value
// is kept as an apd.Decimal; every operation overflows into apd rather
// than wrapping, and results that fit again come back to the integer form.
type Amount struct {
	asset Asset
	units int64        // the value in minor units, when d is nil
	d     *apd.Decimal // the value when it does not fit units; never mutated
}

// pow10 holds 10^0 .. 10^18, every power of ten an int64 holds.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// twoTo63 is |math.MinInt64|, the one magnitude whose negative fits.
var twoTo63 = *new(apd.BigInt).SetUint64(1 << 63)

// pow10Of returns 10^n when an int64 holds it. Asset decimals beyond
// MaxDecimals only come from a corrupt record, and take the apd path.
func pow10Of(n int) (int64, bool) {
	if n < 0 || n >= len(pow10) {
		return 0, false
	}
	return pow10[n], true
}

// Zero returns zero of asset.
func Zero(asset Asset) Amount { return Amount{asset: asset} }

// FromInt returns n whole units of asset.
func FromInt(asset Asset, n int64) Amount {
	if p, ok := pow10Of(int(asset.Decimals)); ok {
		if u, ok := mul64(n, p); ok {
			return Amount{asset: asset, units: u}
		}
	}
	return mustQuantize(asset, apd.New(n, 0))
}

// FromUnits returns units minor units (10^-decimals) of asset.
func FromUnits(asset Asset, units int64) Amount { return Amount{asset: asset, units: units} }

// FromDecimal returns d as an amount of asset, failing with ErrInexact if d
// has more decimals than the asset carries.
func FromDecimal(asset Asset, d *apd.Decimal) (Amount, error) {
	out := new(apd.Decimal)
	if _, err := exactCtx.Quantize(out, d, -asset.Decimals); err != nil {
		return Amount{}, fmt.Errorf("%w: %s at %d decimals", ErrInexact, d.String(), asset.Decimals)
	}
	return fromQuantized(asset, out), nil
}

// fromQuantized wraps d, already at asset's decimals, in the integer form
// when it fits.
func fromQuantized(asset Asset, d *apd.Decimal) Amount {
	if a, ok := integerForm(asset, d); ok {
		return a
	}
	return Amount{asset: asset, d: d}
}

// integerForm is d, already at asset's decimals, in the integer form, if
// it fits; it never keeps d.
func integerForm(asset Asset, d *apd.Decimal) (Amount, bool) {
	if d.Form == apd.Finite && d.Exponent == -asset.Decimals {
		if d.Coeff.IsInt64() {
			u := d.Coeff.Int64()
			if d.Negative {
				u = -u
			}
			return Amount{asset: asset, units: u}, true
		}
		if d.Negative && d.Coeff.Cmp(&twoTo63) == 0 {
			return Amount{asset: asset, units: math.MinInt64}, true
		}
	}
	if d.IsZero() {
		return Amount{asset: asset}, true
	}
	return Amount{}, false
}

// fromQuantizedCopy is fromQuantized of a d that the caller goes on to
// reuse: a result beyond the integer form holds a copy of it.
func fromQuantizedCopy(asset Asset, d *apd.Decimal) Amount {
	if a, ok := integerForm(asset, d); ok {
		return a
	}
	return Amount{asset: asset, d: new(apd.Decimal).Set(d)}
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

// IsSet reports whether a is an amount of some asset: the zero Amount is
// none, which is how an optional amount (a limit, a maximum) says unset.
func (a Amount) IsSet() bool { return a.asset != Asset{} }

// Units returns the value in minor units (10^-decimals), ok=false when it
// does not fit an int64.
func (a Amount) Units() (units int64, ok bool) { return a.units, a.d == nil }

// Decimal returns a copy of the amount's value.
func (a Amount) Decimal() *apd.Decimal {
	if a.d == nil {
		return apd.New(a.units, -a.asset.Decimals)
	}
	return new(apd.Decimal).Set(a.d)
}

// decIn is dec, setting d to the value when the amount has the integer
// form instead of allocating a decimal.
func (a Amount) decIn(d *apd.Decimal) *apd.Decimal {
	if a.d == nil {
		return d.SetFinite(a.units, -a.asset.Decimals)
	}
	return a.d
}

// dec returns the value as a decimal, for the apd paths; callers do not
// mutate it.
func (a Amount) dec() *apd.Decimal {
	if a.d == nil {
		return apd.New(a.units, -a.asset.Decimals)
	}
	return a.d
}

// String formats the amount at its asset's decimals, e.g. "5000.00".
func (a Amount) String() string {
	if a.d == nil {
		var buf [48]byte
		return string(a.appendUnits(buf[:0]))
	}
	return a.d.Text('f')
}

// MarshalJSON renders the amount as a JSON string at its asset's decimals.
func (a Amount) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 24)
	b = append(b, '"')
	b, _ = a.AppendText(b)
	return append(b, '"'), nil
}

// AppendText appends String() to b.
func (a Amount) AppendText(b []byte) ([]byte, error) {
	if a.d == nil {
		return a.appendUnits(b), nil
	}
	return append(b, a.d.Text('f')...), nil
}

// appendUnits formats the integer form: sign, whole part, point, decimals.
func (a Amount) appendUnits(b []byte) []byte {
	u := uint64(a.units)
	if a.units < 0 {
		b = append(b, '-')
		u = -u // two's complement: right for MinInt64 too
	}
	dec := int(a.asset.Decimals)
	if dec == 0 {
		return strconv.AppendUint(b, u, 10)
	}
	var digits [20]byte
	ds := strconv.AppendUint(digits[:0], u, 10)
	if len(ds) <= dec { // below one whole unit: "0." and leading zeros
		b = append(b, '0', '.')
		for range dec - len(ds) {
			b = append(b, '0')
		}
		return append(b, ds...)
	}
	b = append(b, ds[:len(ds)-dec]...)
	b = append(b, '.')
	return append(b, ds[len(ds)-dec:]...)
}

// Sign returns -1, 0 or +1.
func (a Amount) Sign() int {
	if a.d == nil {
		switch {
		case a.units > 0:
			return 1
		case a.units < 0:
			return -1
		}
		return 0
	}
	return a.d.Sign()
}

// IsZero reports whether the amount is zero.
func (a Amount) IsZero() bool { return a.Sign() == 0 }

// Cmp compares a and b, which must be of one asset (a programming error
// otherwise, which panics).
func (a Amount) Cmp(b Amount) int {
	if a.asset != b.asset {
		panic(fmt.Sprintf("money: comparing %s with %s", a.asset.Code, b.asset.Code))
	}
	return a.cmp(b)
}

func (a Amount) cmp(b Amount) int {
	if a.d == nil && b.d == nil {
		switch {
		case a.units < b.units:
			return -1
		case a.units > b.units:
			return 1
		}
		return 0
	}
	return a.dec().Cmp(b.dec())
}

// Equal reports whether a and b are the same asset and value.
func (a Amount) Equal(b Amount) bool { return a.asset == b.asset && a.cmp(b) == 0 }

// Add returns a+b exactly.
func (a Amount) Add(b Amount) (Amount, error) {
	if a.asset == b.asset && a.d == nil && b.d == nil {
		if s, ok := add64(a.units, b.units); ok {
			return Amount{asset: a.asset, units: s}, nil
		}
	}
	return a.binary(b, exactCtx.Add)
}

// Sub returns a-b exactly.
func (a Amount) Sub(b Amount) (Amount, error) {
	if a.asset == b.asset && a.d == nil && b.d == nil && b.units != math.MinInt64 {
		if s, ok := add64(a.units, -b.units); ok {
			return Amount{asset: a.asset, units: s}, nil
		}
	}
	return a.binary(b, exactCtx.Sub)
}

func (a Amount) binary(b Amount, op func(d, x, y *apd.Decimal) (apd.Condition, error)) (Amount, error) {
	if a.asset != b.asset {
		return Amount{}, fmt.Errorf("%w: %s and %s", ErrAssetMismatch, a.asset.Code, b.asset.Code)
	}
	out := new(apd.Decimal)
	if _, err := op(out, a.dec(), b.dec()); err != nil {
		return Amount{}, fmt.Errorf("%w: %v", ErrInexact, err)
	}
	return fromQuantized(a.asset, out), nil
}

// Neg returns -a.
func (a Amount) Neg() Amount {
	if a.d == nil && a.units != math.MinInt64 {
		return Amount{asset: a.asset, units: -a.units}
	}
	return fromQuantized(a.asset, new(apd.Decimal).Neg(a.dec()))
}

// Abs returns |a|.
func (a Amount) Abs() Amount {
	if a.Sign() >= 0 {
		return a
	}
	return a.Neg()
}

// add64 returns x+y, ok=false on overflow.
func add64(x, y int64) (int64, bool) {
	s := x + y
	return s, (x >= 0) != (y >= 0) || (s >= 0) == (x >= 0)
}

// mul64 returns x*y for y > 0, ok=false on overflow.
func mul64(x, y int64) (int64, bool) {
	if x == 0 || y == 1 {
		return x * y, true
	}
	p := x * y
	return p, p/y == x && !(x == -1 && y == math.MinInt64)
}

// Parse parses a non-negative decimal string of asset: digits, optionally a
// point and at most asset.Decimals digits. No sign, exponent, whitespace,
// leading or trailing point, or thousands separator.
func Parse(asset Asset, s string) (Amount, error) {
	frac, err := scanDecimal(s, int(asset.Decimals), MaxIntegerDigits, &asset)
	if err != nil {
		return Amount{}, err
	}
	return fromText(asset, s, frac)
}

// fromText converts s, already checked by scanDecimal with frac decimals,
// to an amount: in integer arithmetic when it fits, through apd otherwise.
func fromText(asset Asset, s string, frac int) (Amount, error) {
	var v int64
	ok := true
	for i := 0; i < len(s) && ok; i++ {
		if c := s[i]; c != '.' {
			d := int64(c - '0')
			if v > (math.MaxInt64-d)/10 {
				ok = false
			}
			v = v*10 + d
		}
	}
	if p, inRange := pow10Of(int(asset.Decimals) - frac); ok && inRange {
		if u, fits := mul64(v, p); fits {
			return Amount{asset: asset, units: u}, nil
		}
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return Amount{}, parseErr(s, &asset, ErrMalformed)
	}
	// Exact for every asset NewAsset accepts; an asset with more decimals
	// than MaxDecimals (a corrupt record) may not fit the context.
	return FromDecimal(asset, d)
}

// ParseSigned parses an amount the engine stored itself: Parse's grammar
// with an optional leading '-' (system balances may be negative) and a
// whole part of up to MaxStoredIntegerDigits digits rather than the wire's
// MaxIntegerDigits, so that any sum the engine wrote reads back. Never for
// wire input.
func ParseSigned(asset Asset, s string) (Amount, error) {
	neg := len(s) > 1 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	frac, err := scanDecimal(s, int(asset.Decimals), MaxStoredIntegerDigits, &asset)
	if err != nil {
		return Amount{}, err
	}
	a, err := fromText(asset, s, frac)
	if err != nil || !neg {
		return a, err
	}
	return a.Neg(), nil
}

// plainJSONString is the string a JSON string literal holds when it
// needs no decoding (printable ASCII between its quotes, no quote, no
// backslash): what encoding/json would read from it, without the
// reflection and allocations of json.Unmarshal. ok is false for any
// other raw, which json.Unmarshal reads.
func plainJSONString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(body), true
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
		if s, ok := plainJSONString(raw); ok {
			return Parse(asset, s)
		}
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
		if _, err := scanDecimal(string(raw), 0, MaxIntegerDigits, &asset); err != nil {
			return Amount{}, err
		}
		return fromText(asset, string(raw), 0)
	}
	return Amount{}, parseErr(string(raw), &asset, ErrNotANumber)
}

// scanDecimal checks the one grammar of wire decimals,
// [0-9]+ ('.' [0-9]{1,maxFrac})?, and the size bound (at most maxInt
// significant integer digits), and returns how many decimals s has.
func scanDecimal(s string, maxFrac, maxInt int, asset *Asset) (frac int, err error) {
	if s == "" {
		return 0, parseErr(s, asset, ErrEmpty)
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
			return 0, parseErr(s, asset, ErrSign)
		case c == 'e' || c == 'E':
			return 0, parseErr(s, asset, ErrExponent)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			return 0, parseErr(s, asset, ErrWhitespace)
		default:
			return 0, parseErr(s, asset, ErrMalformed)
		}
	}
	if intDigits == 0 || (seenPoint && fracDigits == 0) {
		return 0, parseErr(s, asset, ErrMalformed)
	}
	if fracDigits > maxFrac {
		return 0, parseErr(s, asset, ErrTooManyDecimals)
	}
	// Leading zeros do not count towards the size bound.
	significant := intDigits
	for i := 0; i < intDigits-1 && s[i] == '0'; i++ {
		significant--
	}
	if significant > maxInt {
		return 0, parseErr(s, asset, ErrTooLarge)
	}
	return fracDigits, nil
}
