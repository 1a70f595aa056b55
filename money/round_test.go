package money_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/money"
)

var allRules = []money.Rounding{money.RoundDown, money.RoundUp, money.RoundHalfUp}

func ruleName(r money.Rounding) string {
	switch r {
	case money.RoundDown:
		return "down"
	case money.RoundUp:
		return "up"
	case money.RoundHalfUp:
		return "halfup"
	}
	return fmt.Sprintf("rounding(%d)", int(r))
}

type roundCase struct {
	name     string
	a        money.Amount
	rate     string
	to       money.Asset
	down, up string
	halfUp   string
}

func (tc roundCase) want(rule money.Rounding) string {
	switch rule {
	case money.RoundDown:
		return tc.down
	case money.RoundUp:
		return tc.up
	}
	return tc.halfUp
}

func TestMul(t *testing.T) {
	p := func(asset money.Asset, s string) money.Amount { return mustParseSigned(t, asset, s) }
	tests := []roundCase{
		// Quotes, to-bank: stablecoin × rate = corridor currency, rounded down.
		{"quote 100 USDT at 1800", p(money.USDT, "100"), "1800", money.MWK, "180000.00", "180000.00", "180000.00"},
		{"quote 123.456789 USDT at 1750.50", p(money.USDT, "123.456789"), "1750.50", money.MWK, "216111.10", "216111.11", "216111.11"},
		{"quote 250.000001 USDT at 1799.99", p(money.USDT, "250.000001"), "1799.99", money.MWK, "449997.50", "449997.51", "449997.50"},
		{"quote 0.000001 USDT at 1750.5", p(money.USDT, "0.000001"), "1750.5", money.MWK, "0.00", "0.01", "0.00"},
		// From-bank with the stablecoin side given: the MWK cost is also
		// derived corridor currency, rounded down whatever the direction.
		{"quote 55.555556 USDT at 1800", p(money.USDT, "55.555556"), "1800", money.MWK, "100000.00", "100000.01", "100000.00"},

		// Fee lines, half-up to the tambala.
		{"transaction fee 0.8% of 100000", p(money.MWK, "100000.00"), "0.008", money.MWK, "800.00", "800.00", "800.00"},
		{"transaction fee 0.8% of 12345.67", p(money.MWK, "12345.67"), "0.008", money.MWK, "98.76", "98.77", "98.77"},
		{"VAT 17.5% of 1300", p(money.MWK, "1300.00"), "0.175", money.MWK, "227.50", "227.50", "227.50"},
		{"VAT 17.5% of 298.77", p(money.MWK, "298.77"), "0.175", money.MWK, "52.28", "52.29", "52.28"},
		{"levy 0.05% of 50000", p(money.MWK, "50000.00"), "0.0005", money.MWK, "25.00", "25.00", "25.00"},
		{"levy 0.05% of 0.01", p(money.MWK, "0.01"), "0.0005", money.MWK, "0.00", "0.01", "0.00"},
		{"collection 1.5% of 333.33", p(money.MWK, "333.33"), "0.015", money.MWK, "4.99", "5.00", "5.00"},

		// Half-up ties go away from zero; just below a tie goes down.
		{"tie 0.125", p(money.MWK, "12.50"), "0.01", money.MWK, "0.12", "0.13", "0.13"},
		{"tie 0.135", p(money.MWK, "13.50"), "0.01", money.MWK, "0.13", "0.14", "0.14"},
		{"below tie 0.124999", p(money.USDT, "12.499900"), "0.01", money.MWK, "0.12", "0.13", "0.12"},
		{"above tie 0.125001", p(money.USDT, "12.500100"), "0.01", money.MWK, "0.12", "0.13", "0.13"},
		{"tie -0.125", p(money.MWK, "-12.50"), "0.01", money.MWK, "-0.12", "-0.13", "-0.13"},
		{"negative -98.76536", p(money.MWK, "-12345.67"), "0.008", money.MWK, "-98.76", "-98.77", "-98.77"},
		{"negative rounded to zero is never -0.00", p(money.MWK, "-0.01"), "0.0005", money.MWK, "0.00", "-0.01", "0.00"},

		// Zero, whole-unit and 18-decimal assets.
		{"zero", money.Zero(money.USDT), "1750.5", money.MWK, "0.00", "0.00", "0.00"},
		{"to a 0-decimal asset", p(money.MWK, "2.50"), "1", jpy, "2", "3", "3"},
		{"to an 18-decimal asset", p(money.USDT, "1.000001"), "0.000000000000000001", eth, "0.000000000000000001", "0.000000000000000002", "0.000000000000000001"},
		// 78 digits at 18 decimals: wider than any amount arithmetic, but
		// every rule must still round it.
		{"widest product at 18 decimals", p(eth, nines30+".123456789012345678"), nines30 + ".123456789012345671", eth,
			"999999999999999999999999999998246913578024691349000000000000.768328000728547486",
			"999999999999999999999999999998246913578024691349000000000000.768328000728547487",
			"999999999999999999999999999998246913578024691349000000000000.768328000728547487"},
		// (10^30-0.01) × (10^30-10^-18) = 10^60 - 10^28 - 10^12 + 10^-20.
		{"widest wire inputs", p(money.MWK, nines30+".99"), nines30 + ".999999999999999999", money.MWK,
			"999999999999999999999999999999989999999999999999000000000000.00",
			"999999999999999999999999999999989999999999999999000000000000.01",
			"999999999999999999999999999999989999999999999999000000000000.00"},
	}
	for _, tc := range tests {
		for _, rule := range allRules {
			t.Run(tc.name+"/"+ruleName(rule), func(t *testing.T) {
				got, err := money.Mul(tc.a, mustRate(t, tc.rate), tc.to, rule)
				require.NoError(t, err)
				assert.Equal(t, tc.want(rule), got.String())
				assert.Equal(t, tc.to, got.Asset())
			})
		}
	}
}

func TestQuo(t *testing.T) {
	p := func(asset money.Asset, s string) money.Amount { return mustParseSigned(t, asset, s) }
	tests := []roundCase{
		// Quotes: corridor currency ÷ rate = stablecoin, rounded up.
		{"100000.00 MWK at 3 (non-terminating)", p(money.MWK, "100000.00"), "3", money.USDT, "33333.333333", "33333.333334", "33333.333333"},
		{"200000.00 MWK at 3 (non-terminating, half-up rounds up)", p(money.MWK, "200000.00"), "3", money.USDT, "66666.666666", "66666.666667", "66666.666667"},
		{"100000.00 MWK at 1800", p(money.MWK, "100000.00"), "1800", money.USDT, "55.555555", "55.555556", "55.555556"},
		{"180000.00 MWK at 1800 (exact)", p(money.MWK, "180000.00"), "1800", money.USDT, "100.000000", "100.000000", "100.000000"},
		{"216111.10 MWK at 1750.5", p(money.MWK, "216111.10"), "1750.5", money.USDT, "123.456783", "123.456784", "123.456784"},
		{"0.01 MWK at 1750.5", p(money.MWK, "0.01"), "1750.5", money.USDT, "0.000005", "0.000006", "0.000006"},
		{"0.01 MWK at 1800000 (below one unit)", p(money.MWK, "0.01"), "1800000", money.USDT, "0.000000", "0.000001", "0.000000"},
		{"1.00 MWK at 7 (1/7 repeats forever)", p(money.MWK, "1.00"), "7", money.USDT, "0.142857", "0.142858", "0.142857"},

		// A corridor amount derived by division is rounded down.
		{"to MWK", p(money.USDT, "100.000000"), "3", money.MWK, "33.33", "33.34", "33.33"},

		// Half-up ties at the asset's decimals.
		{"tie 0.125", p(money.MWK, "0.25"), "2", money.MWK, "0.12", "0.13", "0.13"},
		{"tie 0.135", p(money.MWK, "0.27"), "2", money.MWK, "0.13", "0.14", "0.14"},

		// Signs, zero and the extreme asset shapes.
		{"negative", p(money.MWK, "-100000.00"), "3", money.USDT, "-33333.333333", "-33333.333334", "-33333.333333"},
		{"zero", money.Zero(money.MWK), "3", money.USDT, "0.000000", "0.000000", "0.000000"},
		{"negative rounded to zero is never -0.000000", p(money.MWK, "-0.01"), "200000", money.USDT, "0.000000", "-0.000001", "0.000000"},
		{"to a 0-decimal asset", p(money.MWK, "10.00"), "3", jpy, "3", "4", "3"},
		{"to an 18-decimal asset", p(money.MWK, "1.00"), "3", eth, "0.333333333333333333", "0.333333333333333334", "0.333333333333333333"},
		{"largest quotient of wire inputs", p(eth, nines30+"."+strings.Repeat("9", 18)), "0.000000000000000001", eth,
			strings.Repeat("9", 48) + "." + strings.Repeat("0", 18),
			strings.Repeat("9", 48) + "." + strings.Repeat("0", 18),
			strings.Repeat("9", 48) + "." + strings.Repeat("0", 18)},
		// (10^30-10^-18) / (23·10^-18): 47 integer digits, then 1/23 repeating.
		{"widest non-terminating quotient of wire inputs", p(eth, nines30+"."+strings.Repeat("9", 18)), "0.000000000000000023", eth,
			"43478260869565217391304347826086956521739130434.739130434782608695",
			"43478260869565217391304347826086956521739130434.739130434782608696",
			"43478260869565217391304347826086956521739130434.739130434782608696"},
	}
	for _, tc := range tests {
		for _, rule := range allRules {
			t.Run(tc.name+"/"+ruleName(rule), func(t *testing.T) {
				got, err := money.Quo(tc.a, mustRate(t, tc.rate), tc.to, rule)
				require.NoError(t, err)
				assert.Equal(t, tc.want(rule), got.String())
				assert.Equal(t, tc.to, got.Asset())
			})
		}
	}
}

// TestRoundUpAfterTruncation covers a long quotient (or product) that the
// engine's working precision truncates, where every kept digit beyond the
// asset's decimals is zero: only the "inexact" flag of the wide operation
// shows that the exact value lies above, so RoundUp must still add one unit.
//
// With inputs from the wire (Parse and ParseRate) this cannot happen. Write a
// = A·10^-p (A < 10^(30+p)), r = R·10^-q (q ≤ 18) and let d ≤ 18 be the
// target decimals. A non-zero remainder beyond the d-th decimal of a/r is at
// least 10^min(0, q-p+d)/R units of 10^-d, while the 106-digit working
// precision keeps every digit down to a/r·10^-105. For the remainder to fall
// below the kept digits one needs d+q > 75, or A > 10^105, neither of which
// wire bounds (d, q ≤ 18; 30 integer digits) allow. A Rate built with
// RateFromDecimal has no such bound, so that is how the cases are built here.
func TestRoundUpAfterTruncation(t *testing.T) {
	// 0.999…9 with 120 nines: 1/r = 1.000…0001000…0001…, whose first
	// non-zero digit after the point is the 120th.
	nines, err := money.RateFromDecimal(dec(t, "0."+strings.Repeat("9", 120)))
	require.NoError(t, err)
	// 1.000…0001 with the 1 at the 120th decimal.
	onePlus, err := money.RateFromDecimal(dec(t, "1."+strings.Repeat("0", 119)+"1"))
	require.NoError(t, err)

	one := money.FromInt(money.USDT, 1)
	cases := []struct {
		name             string
		op               func(money.Amount, money.Rate, money.Asset, money.Rounding) (money.Amount, error)
		a                money.Amount
		r                money.Rate
		to               money.Asset
		down, up, halfUp string
	}{
		{"quo", money.Quo, one, nines, money.USDT, "1.000000", "1.000001", "1.000000"},
		{"quo negative", money.Quo, one.Neg(), nines, money.USDT, "-1.000000", "-1.000001", "-1.000000"},
		{"quo to MWK", money.Quo, money.FromInt(money.MWK, 100000), nines, money.MWK, "100000.00", "100000.01", "100000.00"},
		{"quo 18 decimals", money.Quo, money.FromInt(eth, 7), nines, eth, "7.000000000000000000", "7.000000000000000001", "7.000000000000000000"},
		{"mul", money.Mul, one, onePlus, money.USDT, "1.000000", "1.000001", "1.000000"},
		{"mul negative", money.Mul, one.Neg(), onePlus, money.USDT, "-1.000000", "-1.000001", "-1.000000"},
		{"mul to MWK", money.Mul, money.FromInt(money.USDT, 1750), onePlus, money.MWK, "1750.00", "1750.01", "1750.00"},
	}
	for _, tc := range cases {
		for _, rule := range allRules {
			t.Run(tc.name+"/"+ruleName(rule), func(t *testing.T) {
				got, err := tc.op(tc.a, tc.r, tc.to, rule)
				require.NoError(t, err)
				want := map[money.Rounding]string{money.RoundDown: tc.down, money.RoundUp: tc.up, money.RoundHalfUp: tc.halfUp}[rule]
				assert.Equal(t, want, got.String())
			})
		}
	}
}

func TestRound(t *testing.T) {
	tests := []struct {
		in               string
		to               money.Asset
		down, up, halfUp string
	}{
		{"0.125", money.MWK, "0.12", "0.13", "0.13"},
		{"0.135", money.MWK, "0.13", "0.14", "0.14"},
		{"0.124999", money.MWK, "0.12", "0.13", "0.12"},
		{"0.115", money.MWK, "0.11", "0.12", "0.12"},
		{"0.005", money.MWK, "0.00", "0.01", "0.01"},
		{"0.0049999999999", money.MWK, "0.00", "0.01", "0.00"},
		{"-0.125", money.MWK, "-0.12", "-0.13", "-0.13"},
		{"-0.124999", money.MWK, "-0.12", "-0.13", "-0.12"},
		{"2.5", jpy, "2", "3", "3"},
		{"1.5", jpy, "1", "2", "2"},
		{"7.1", money.MWK, "7.10", "7.10", "7.10"},
		{"7", money.USDT, "7.000000", "7.000000", "7.000000"},
		{"12E+2", money.MWK, "1200.00", "1200.00", "1200.00"},
		{"0", money.MWK, "0.00", "0.00", "0.00"},
		// Values below a tenth of a unit: every digit is dropped.
		{"0.0001", money.MWK, "0.00", "0.01", "0.00"},
		{"0.001", money.MWK, "0.00", "0.01", "0.00"},
		{"0.009", money.MWK, "0.00", "0.01", "0.01"},
		{"0.000000001", money.USDT, "0.000000", "0.000001", "0.000000"},
		{"1E-30", eth, "0.000000000000000000", "0.000000000000000001", "0.000000000000000000"},
		{"0.4", jpy, "0", "1", "0"},
		{"0.04", jpy, "0", "1", "0"},
		{"-0.0001", money.MWK, "0.00", "-0.01", "0.00"},
		{"-0.001", money.MWK, "0.00", "-0.01", "0.00"},
		{"-0.004", money.MWK, "0.00", "-0.01", "0.00"},
		{"-0.04", jpy, "0", "-1", "0"},
		{"-0", money.MWK, "0.00", "0.00", "0.00"},
		{"0.0000000000000000005", eth, "0.000000000000000000", "0.000000000000000001", "0.000000000000000001"},
	}
	for _, tt := range tests {
		for _, rule := range allRules {
			t.Run(string(tt.to.Code)+"/"+tt.in+"/"+ruleName(rule), func(t *testing.T) {
				d := dec(t, tt.in)
				orig := new(apd.Decimal).Set(d)
				got, err := money.Round(tt.to, d, rule)
				require.NoError(t, err)
				want := map[money.Rounding]string{money.RoundDown: tt.down, money.RoundUp: tt.up, money.RoundHalfUp: tt.halfUp}[rule]
				assert.Equal(t, want, got.String())
				assert.Equal(t, orig, d, "Round must not modify its argument")
			})
		}
	}
}

func TestRoundingErrors(t *testing.T) {
	a := money.FromInt(money.MWK, 100)
	r := mustRate(t, "3")
	for _, bad := range []money.Rounding{0, 4, -1} {
		_, err := money.Mul(a, r, money.USDT, bad)
		assert.Error(t, err, "Mul rounding %d", bad)
		_, err = money.Quo(a, r, money.USDT, bad)
		assert.Error(t, err, "Quo rounding %d", bad)
		_, err = money.Round(money.USDT, dec(t, "1"), bad)
		assert.Error(t, err, "Round rounding %d", bad)
	}
	var zero money.Rate
	_, err := money.Mul(a, zero, money.USDT, money.RoundDown)
	assert.Error(t, err)
	_, err = money.Quo(a, zero, money.USDT, money.RoundUp)
	assert.Error(t, err)
}

// --- Properties ---------------------------------------------------------

// exactCtx computes references: wide enough that every operation below is
// exact, and trapping if one is not.
var refCtx = func() *apd.Context {
	c := apd.BaseContext.WithPrecision(2000)
	c.Traps |= apd.Inexact | apd.Rounded
	return c
}()

// genCoeff draws a non-negative integer of up to maxDigits digits from
// uint64 draws (integers only, never floats).
func genCoeff(t *rapid.T, label string, minDigits, maxDigits int) *big.Int {
	n := rapid.IntRange(minDigits, maxDigits).Draw(t, label+"_digits")
	if rapid.IntRange(0, 3).Draw(t, label+"_widest") == 0 {
		n = maxDigits // the widest values are where precision runs out
	}
	var sb strings.Builder
	for sb.Len() < n {
		chunk := rapid.Uint64Range(0, 999_999_999_999_999_999).Draw(t, label)
		fmt.Fprintf(&sb, "%018d", chunk)
	}
	s := "0" + sb.String()[:n]
	if minDigits > 0 && s[1] == '0' {
		// Keep the digit count: a leading digit from 1 to 9.
		s = fmt.Sprint(rapid.IntRange(1, 9).Draw(t, label+"_lead")) + s[2:]
	}
	v, _ := new(big.Int).SetString(s, 10)
	return v
}

func decimalOf(c *big.Int, exp int32, neg bool) *apd.Decimal {
	d := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(c), exp)
	d.Negative = neg && c.Sign() != 0
	return d
}

var propAssets = []money.Asset{money.MWK, money.USDT, eth, jpy}

// genWireAmount draws an amount within the wire bounds: up to 30 integer
// digits, at the asset's decimals, of either sign.
func genWireAmount(t *rapid.T, label string) money.Amount {
	asset := rapid.SampledFrom(propAssets).Draw(t, label+"_asset")
	c := genCoeff(t, label, 0, money.MaxIntegerDigits+int(asset.Decimals))
	neg := rapid.Bool().Draw(t, label+"_neg")
	a, err := money.FromDecimal(asset, decimalOf(c, -asset.Decimals, neg))
	if err != nil {
		t.Fatalf("FromDecimal: %v", err)
	}
	return a
}

// genWireRate draws a positive rate within the wire bounds: up to 30
// integer digits and up to 18 decimals.
func genWireRate(t *rapid.T, label string) money.Rate {
	q := rapid.IntRange(0, money.MaxRateDecimals).Draw(t, label+"_decimals")
	c := genCoeff(t, label, 1, money.MaxIntegerDigits+q)
	r, err := money.RateFromDecimal(decimalOf(c, int32(-q), false))
	if err != nil {
		t.Fatalf("RateFromDecimal: %v", err)
	}
	// The same rate must come from the wire.
	wire, err := money.ParseRate(r.String())
	if err != nil || wire.Cmp(r) != 0 {
		t.Fatalf("ParseRate(%s) = %v, %v", r, wire, err)
	}
	return wire
}

// genLongRate draws a rate from 1 to 10^7 with up to 150 decimals, beyond
// the engine's working precision, only reachable with RateFromDecimal.
func genLongRate(t *rapid.T, label string) money.Rate {
	q := rapid.IntRange(0, 150).Draw(t, label+"_decimals")
	c := genCoeff(t, label, q+1, q+7)
	r, err := money.RateFromDecimal(decimalOf(c, int32(-q), false))
	if err != nil {
		t.Fatalf("RateFromDecimal: %v", err)
	}
	return r
}

func ulpOf(asset money.Asset) *apd.Decimal { return apd.New(1, -asset.Decimals) }

func sub(t *rapid.T, x, y *apd.Decimal) *apd.Decimal {
	out := new(apd.Decimal)
	if _, err := refCtx.Sub(out, x, y); err != nil {
		t.Fatalf("sub: %v", err)
	}
	return out
}

func mul(t *rapid.T, x, y *apd.Decimal) *apd.Decimal {
	out := new(apd.Decimal)
	if _, err := refCtx.Mul(out, x, y); err != nil {
		t.Fatalf("mul: %v", err)
	}
	return out
}

// checkBracket checks down ≤ exact ≤ up, up-down ∈ {0, ulp} and down == up
// exactly when exact is representable, and the half-up result: within half an
// ulp, ties away from zero. cmpExact(x) compares a candidate x with the
// exact value, and distHalf(x) compares |x - exact| with ulp/2.
func checkBracket(t *rapid.T, to money.Asset, down, up, half money.Amount, cmpExact func(*apd.Decimal) int, distHalf func(*apd.Decimal) int) {
	dd, ud, hd := down.Decimal(), up.Decimal(), half.Decimal()
	for _, a := range []money.Amount{down, up, half} {
		if a.Asset() != to {
			t.Fatalf("asset %v, want %v", a.Asset(), to)
		}
		if a.Decimal().Exponent != -to.Decimals {
			t.Fatalf("%s is not at %d decimals", a, to.Decimals)
		}
	}
	exactSign := 0
	switch {
	case cmpExact(apd.New(0, 0)) < 0:
		exactSign = 1
	case cmpExact(apd.New(0, 0)) > 0:
		exactSign = -1
	}
	// Down is toward zero, up away from zero.
	lo, hi := dd, ud
	if exactSign < 0 {
		lo, hi = ud, dd
	}
	if cmpExact(lo) > 0 || cmpExact(hi) < 0 {
		t.Fatalf("not bracketed: down %s, up %s", down, up)
	}
	gap := sub(t, hi, lo)
	ulp := ulpOf(to)
	representable := cmpExact(dd) == 0
	switch {
	case representable:
		if gap.Sign() != 0 || cmpExact(ud) != 0 || cmpExact(hd) != 0 {
			t.Fatalf("exact value %s: up %s, half-up %s", down, up, half)
		}
	default:
		if gap.Cmp(ulp) != 0 {
			t.Fatalf("down %s and up %s differ by %s, not one unit", down, up, gap.Text('f'))
		}
		if !half.Equal(down) && !half.Equal(up) {
			t.Fatalf("half-up %s is neither %s nor %s", half, down, up)
		}
		switch c := distHalf(hd); {
		case c > 0:
			t.Fatalf("half-up %s more than half a unit from the exact value", half)
		case c == 0 && !half.Equal(up):
			t.Fatalf("half-up %s: a tie must go away from zero (%s)", half, up)
		}
	}
	if down.Abs().Cmp(up.Abs()) > 0 {
		t.Fatalf("|down| %s > |up| %s", down, up)
	}
	if exactSign != 0 && down.Sign() != 0 && down.Sign() != exactSign {
		t.Fatalf("down %s has the wrong sign", down)
	}
}

func checkMul(t *rapid.T, a money.Amount, r money.Rate, to money.Asset) {
	var got [3]money.Amount
	for i, rule := range allRules {
		var err error
		got[i], err = money.Mul(a, r, to, rule)
		if err != nil {
			t.Fatalf("Mul(%s, %s, %s, %s): %v", a, r, to, ruleName(rule), err)
		}
	}
	exact := mul(t, a.Decimal(), r.Decimal())
	halfUlp := mul(t, ulpOf(to), apd.New(5, -1))
	checkBracket(t, to, got[0], got[1], got[2],
		func(x *apd.Decimal) int { return x.Cmp(exact) },
		func(x *apd.Decimal) int {
			d := sub(t, x, exact)
			d.Abs(d)
			return d.Cmp(halfUlp)
		})
}

func checkQuo(t *rapid.T, a money.Amount, r money.Rate, to money.Asset) {
	var got [3]money.Amount
	for i, rule := range allRules {
		var err error
		got[i], err = money.Quo(a, r, to, rule)
		if err != nil {
			t.Fatalf("Quo(%s, %s, %s, %s): %v", a, r, to, ruleName(rule), err)
		}
	}
	// Compare x with a/r without dividing: x·r against a (r > 0).
	rd, ad := r.Decimal(), a.Decimal()
	halfUlpR := mul(t, mul(t, ulpOf(to), apd.New(5, -1)), rd)
	checkBracket(t, to, got[0], got[1], got[2],
		func(x *apd.Decimal) int { return mul(t, x, rd).Cmp(ad) },
		func(x *apd.Decimal) int {
			d := sub(t, mul(t, x, rd), ad)
			d.Abs(d)
			return d.Cmp(halfUlpR)
		})
}

func TestMulBracketsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genWireAmount(t, "a")
		r := genWireRate(t, "r")
		to := rapid.SampledFrom(propAssets).Draw(t, "to")
		checkMul(t, a, r, to)
	})
}

func TestQuoBracketsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genWireAmount(t, "a")
		r := genWireRate(t, "r")
		to := rapid.SampledFrom(propAssets).Draw(t, "to")
		checkQuo(t, a, r, to)
	})
}

// The same properties on the widest wire values only: 30 integer digits and
// all of the decimals, where products reach 78 digits.
func TestMulQuoBracketsExactWidest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		asset := rapid.SampledFrom(propAssets).Draw(t, "a_asset")
		n := money.MaxIntegerDigits + int(asset.Decimals)
		a, err := money.FromDecimal(asset, decimalOf(genCoeff(t, "a", n, n), -asset.Decimals, rapid.Bool().Draw(t, "a_neg")))
		if err != nil {
			t.Fatal(err)
		}
		q := rapid.IntRange(1, money.MaxRateDecimals).Draw(t, "r_decimals")
		r, err := money.RateFromDecimal(decimalOf(genCoeff(t, "r", money.MaxIntegerDigits+q, money.MaxIntegerDigits+q), int32(-q), false))
		if err != nil {
			t.Fatal(err)
		}
		to := rapid.SampledFrom(propAssets).Draw(t, "to")
		checkMul(t, a, r, to)
		checkQuo(t, a, r, to)
	})
}

// The same properties with rates longer than the working precision, where
// the engine's wide product or quotient is itself truncated.
func TestMulQuoBracketsExactLongRates(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genWireAmount(t, "a")
		r := genLongRate(t, "r")
		to := rapid.SampledFrom(propAssets).Draw(t, "to")
		checkMul(t, a, r, to)
		checkQuo(t, a, r, to)
	})
}

func TestRoundBracketsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := rapid.IntRange(0, 40).Draw(t, "decimals")
		d := decimalOf(genCoeff(t, "d", 0, 60), int32(-q), rapid.Bool().Draw(t, "neg"))
		to := rapid.SampledFrom(propAssets).Draw(t, "to")
		var got [3]money.Amount
		for i, rule := range allRules {
			var err error
			got[i], err = money.Round(to, d, rule)
			if err != nil {
				t.Fatalf("Round(%s, %s, %s): %v", to, d, ruleName(rule), err)
			}
		}
		halfUlp := mul(t, ulpOf(to), apd.New(5, -1))
		checkBracket(t, to, got[0], got[1], got[2],
			func(x *apd.Decimal) int { return x.Cmp(d) },
			func(x *apd.Decimal) int {
				diff := sub(t, x, d)
				diff.Abs(diff)
				return diff.Cmp(halfUlp)
			})
	})
}

// Parse and String are inverse on every amount within the wire bounds.
func TestStringParseRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genWireAmount(t, "a")
		back, err := money.ParseSigned(a.Asset(), a.String())
		if err != nil {
			t.Fatalf("ParseSigned(%q): %v", a.String(), err)
		}
		if !back.Equal(a) || back.String() != a.String() {
			t.Fatalf("round trip %s -> %s", a, back)
		}
		if a.Sign() >= 0 {
			if _, err := money.Parse(a.Asset(), a.String()); err != nil {
				t.Fatalf("Parse(%q): %v", a.String(), err)
			}
		}
	})
}

// Add and Sub are exact and inverse.
func TestAddSubExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		asset := rapid.SampledFrom(propAssets).Draw(t, "asset")
		x := rapid.Int64().Draw(t, "x")
		y := rapid.Int64().Draw(t, "y")
		a, b := money.FromUnits(asset, x), money.FromUnits(asset, y)
		s, err := a.Add(b)
		if err != nil {
			t.Fatal(err)
		}
		want := new(big.Int).Add(big.NewInt(x), big.NewInt(y))
		if s.Decimal().Cmp(decimalOf(new(big.Int).Abs(want), -asset.Decimals, want.Sign() < 0)) != 0 {
			t.Fatalf("%s + %s = %s, want %s units", a, b, s, want)
		}
		back, err := s.Sub(b)
		if err != nil {
			t.Fatal(err)
		}
		if !back.Equal(a) {
			t.Fatalf("(%s + %s) - %s = %s", a, b, b, back)
		}
	})
}
