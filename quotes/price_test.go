package quotes_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

var (
	usdt = money.USDT
	mwk  = money.MWK
)

func amt(t testing.TB, asset money.Asset, s string) money.Amount {
	t.Helper()
	a, err := money.ParseSigned(asset, s)
	require.NoError(t, err)
	return a
}

func ptr[T any](v T) *T { return &v }

// tb is what both *testing.T and *rapid.T are.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	FailNow()
}

// requireCode asserts err is a coded error with code c (and never an
// uncoded one, which would read as internal_error).
func requireCode(t tb, err error, c errcode.Code) {
	t.Helper()
	require.Error(t, err)
	var e *errcode.Error
	require.ErrorAs(t, err, &e, "want %s, got an uncoded error: %v", c, err)
	require.Equal(t, c, e.Code, "error: %v", err)
}

// --- The independent reference: exact rationals, explicit floor and ceil.

func ratOf(t tb, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat(%q)", s)
	}
	return r
}

// toDecimals rounds the positive x to dec decimals, down (floor) or up
// (ceil), and formats it at exactly dec decimals.
func toDecimals(x *big.Rat, dec int32, up bool) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil)
	n := new(big.Int).Mul(x.Num(), scale)
	q, m := new(big.Int).QuoRem(n, x.Denom(), new(big.Int))
	if up && m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return new(big.Rat).SetFrac(q, scale).FloatString(int(dec))
}

// reference is the rounding table computed with big.Rat: the exact derived
// value, and the derived side rounded (down for the corridor currency, up
// for the stablecoin). It takes the fixed amount as text.
func reference(t tb, dir quotes.Direction, rate string, from, to money.Asset, fixedFrom bool, fixed string) (exact *big.Rat, derived string) {
	t.Helper()
	x, r := ratOf(t, fixed), ratOf(t, rate)
	switch {
	case dir == quotes.ToBank && fixedFrom: // S × R → C, down
		exact = new(big.Rat).Mul(x, r)
		return exact, toDecimals(exact, to.Decimals, false)
	case dir == quotes.ToBank: // C ÷ R → S, up
		exact = new(big.Rat).Quo(x, r)
		return exact, toDecimals(exact, from.Decimals, true)
	case fixedFrom: // from-bank: C ÷ R → S, up
		exact = new(big.Rat).Quo(x, r)
		return exact, toDecimals(exact, to.Decimals, true)
	default: // from-bank: S × R → C, down
		exact = new(big.Rat).Mul(x, r)
		return exact, toDecimals(exact, from.Decimals, false)
	}
}

func price(dir quotes.Direction, rate string, from, to money.Asset, fixedFrom *money.Amount, fixedTo *money.Amount) (money.Amount, money.Amount, error) {
	var ff, ft money.Amount // the zero Amount: not fixed
	if fixedFrom != nil {
		ff = *fixedFrom
	}
	if fixedTo != nil {
		ft = *fixedTo
	}
	return quotes.Price(dir, money.MustRate(rate), from, to, ff, ft)
}

// TestPriceTable covers every row of the rounding table, exact and inexact
// results, tiny amounts that round to zero, rates with up to 18 decimals
// and the bounds, each against the big.Rat reference.
func TestPriceTable(t *testing.T) {
	const r18 = "1750.123456789012345678"
	tests := []struct {
		name      string
		dir       quotes.Direction
		rate      string
		fixedFrom bool   // which side the caller fixes
		fixed     string // in from (fixedFrom) or to
		want      string // the derived side
		code      errcode.Code
	}{
		// Row 1: to-bank, from (S) fixed, to (C) = from × R down.
		{"off-ramp from: spec example", quotes.ToBank, "1750.5", true, "123.456789", "216111.10", ""},
		{"off-ramp from: exact", quotes.ToBank, "1800", true, "100", "180000.00", ""},
		{"off-ramp from: one unit of S", quotes.ToBank, "1800", true, "0.000006", "0.01", ""},
		{"off-ramp from: rounds to zero", quotes.ToBank, "1750.5", true, "0.000001", "", errcode.AmountBelowMinimum},
		{"off-ramp from: 18-decimal rate", quotes.ToBank, r18, true, "123.456789", "216064.62", ""},
		{"off-ramp from: tiny rate rounds to zero", quotes.ToBank, "0.000000000000000001", true, "1000", "", errcode.AmountBelowMinimum},
		// Row 2: to-bank, to (C) fixed, from (S) = to ÷ R up.
		{"off-ramp to: inverse of the example", quotes.ToBank, "1750.5", false, "216111.10", "123.456784", ""},
		{"off-ramp to: exact", quotes.ToBank, "1800", false, "180000.00", "100.000000", ""},
		{"off-ramp to: one unit of C is one unit of S", quotes.ToBank, "1750.5", false, "0.01", "0.000006", ""},
		{"off-ramp to: 18-decimal rate", quotes.ToBank, r18, false, "100000.00", "57.138827", ""},
		{"off-ramp to: absurd rate, too large", quotes.ToBank, "0.000000000000000001", false, "100000000000000000000000000000", "", errcode.LimitExceeded},
		// Row 3: from-bank, from (C) fixed, to (S) = from ÷ R up.
		{"on-ramp from: spec example", quotes.FromBank, "1800", true, "100000.00", "55.555556", ""},
		{"on-ramp from: exact", quotes.FromBank, "1800", true, "180000.00", "100.000000", ""},
		{"on-ramp from: one unit of C", quotes.FromBank, "1800", true, "0.01", "0.000006", ""},
		{"on-ramp from: 18-decimal rate", quotes.FromBank, r18, true, "100000.00", "57.138827", ""},
		{"on-ramp from: tiny rate, derived at the maximum", quotes.FromBank, "0.000000000001", true, "1.00", "1000000000000.000000", ""},
		{"on-ramp from: tiny rate, derived above the maximum", quotes.FromBank, "0.000000000000000001", true, "1.00", "", errcode.LimitExceeded},
		{"on-ramp from: derived one unit above the maximum", quotes.FromBank, "0.000000000001", true, "1.01", "", errcode.LimitExceeded},
		// Row 4: from-bank, to (S) fixed, from (C) = to × R down.
		{"on-ramp to: inverse of the example", quotes.FromBank, "1800", false, "55.555556", "100000.00", ""},
		{"on-ramp to: exact", quotes.FromBank, "1800", false, "100", "180000.00", ""},
		{"on-ramp to: rounds to zero", quotes.FromBank, "1800", false, "0.000001", "", errcode.AmountBelowMinimum},
		{"on-ramp to: 18-decimal rate", quotes.FromBank, r18, false, "123.456789", "216064.62", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			from, to := usdt, mwk
			if tc.dir == quotes.FromBank {
				from, to = mwk, usdt
			}
			var fixedFrom, fixedTo *money.Amount
			if tc.fixedFrom {
				fixedFrom = ptr(amt(t, from, tc.fixed))
			} else {
				fixedTo = ptr(amt(t, to, tc.fixed))
			}
			gotFrom, gotTo, err := price(tc.dir, tc.rate, from, to, fixedFrom, fixedTo)
			_, ref := reference(t, tc.dir, tc.rate, from, to, tc.fixedFrom, tc.fixed)
			if tc.code != "" {
				requireCode(t, err, tc.code)
				return
			}
			require.NoError(t, err)
			fixed, derived := gotFrom, gotTo
			if !tc.fixedFrom {
				fixed, derived = gotTo, gotFrom
			}
			assert.Equal(t, amt(t, fixed.Asset(), tc.fixed).String(), fixed.String(), "the fixed side is never rounded")
			assert.Equal(t, tc.want, derived.String())
			assert.Equal(t, ref, derived.String(), "the big.Rat reference")
			assert.Equal(t, from, gotFrom.Asset())
			assert.Equal(t, to, gotTo.Asset())
		})
	}
}

// TestPriceFixedSide covers the 400s of the fixed side and the programming
// errors.
func TestPriceFixedSide(t *testing.T) {
	usdt8 := money.Asset{Code: "USDT", Decimals: 8}
	mwk3 := money.Asset{Code: "MWK", Decimals: 3}
	huge, err := money.FromDecimal(usdt, apd.New(1, 30)) // 31 integer digits
	require.NoError(t, err)
	tests := []struct {
		name             string
		fixedFrom        *money.Amount
		fixedTo          *money.Amount
		code             errcode.Code // "" for an uncoded (programming) error
		wantFrom, wantTo string
	}{
		{name: "too many decimals for S", fixedFrom: ptr(amt(t, usdt8, "1.00000001")), code: errcode.ValidationError},
		{name: "too many decimals for C", fixedTo: ptr(amt(t, mwk3, "1.001")), code: errcode.ValidationError},
		{name: "more decimals that are zeros fit", fixedFrom: ptr(amt(t, usdt8, "1.00000000")), wantFrom: "1.000000", wantTo: "1800.00"},
		{name: "zero from", fixedFrom: ptr(money.Zero(usdt)), code: errcode.ValidationError},
		{name: "zero to", fixedTo: ptr(money.Zero(mwk)), code: errcode.ValidationError},
		{name: "negative from", fixedFrom: ptr(amt(t, usdt, "-1")), code: errcode.ValidationError},
		{name: "negative to", fixedTo: ptr(amt(t, mwk, "-0.01")), code: errcode.ValidationError},
		{name: "beyond the maximum (a Go host's amount)", fixedFrom: &huge, code: errcode.LimitExceeded},
		{name: "one minor unit above the maximum", fixedFrom: ptr(amt(t, usdt, "1000000000000.000001")), code: errcode.LimitExceeded},
		{name: "neither side", code: errcode.ValidationError},
		{name: "both sides", fixedFrom: ptr(amt(t, usdt, "1")), fixedTo: ptr(amt(t, mwk, "1800")), code: errcode.ValidationError},
		{name: "another asset (programming error)", fixedFrom: ptr(amt(t, mwk, "1"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			from, to, err := price(quotes.ToBank, "1800", usdt, mwk, tc.fixedFrom, tc.fixedTo)
			switch {
			case tc.wantFrom != "":
				require.NoError(t, err)
				assert.Equal(t, tc.wantFrom, from.String())
				assert.Equal(t, usdt, from.Asset())
				assert.Equal(t, tc.wantTo, to.String())
			case tc.code == "":
				require.Error(t, err)
				assert.Equal(t, errcode.InternalError, errcode.Of(err))
			default:
				requireCode(t, err, tc.code)
			}
		})
	}
	_, _, err = quotes.Price("sideways", money.MustRate("1"), usdt, mwk, amt(t, usdt, "1"), money.Amount{})
	assert.Equal(t, errcode.InternalError, errcode.Of(err))
	_, _, err = quotes.Price(quotes.ToBank, money.Rate{}, usdt, mwk, amt(t, usdt, "1"), money.Amount{})
	assert.Equal(t, errcode.InternalError, errcode.Of(err))
}

func TestLimits(t *testing.T) {
	lim := quotes.Limits{Min: amt(t, mwk, "1000.00"), Max: amt(t, mwk, "5000.00")}
	tests := []struct {
		amount string
		code   errcode.Code
	}{
		{"999.99", errcode.AmountBelowMinimum}, // one minor unit below
		{"1000.00", ""},                        // equal passes
		{"2500.00", ""},
		{"5000.00", ""},                    // equal passes
		{"5000.01", errcode.LimitExceeded}, // one minor unit above
	}
	for _, tc := range tests {
		err := lim.Check(amt(t, mwk, tc.amount))
		if tc.code == "" {
			assert.NoError(t, err, tc.amount)
		} else {
			requireCode(t, err, tc.code)
		}
	}
	assert.NoError(t, quotes.Limits{}.Check(amt(t, mwk, "0.01")), "no limits")
	assert.NoError(t, quotes.Limits{Max: amt(t, mwk, "1")}.Check(amt(t, mwk, "0.01")), "max only")
	err := lim.Check(amt(t, usdt, "2000"))
	require.Error(t, err)
	assert.Equal(t, errcode.InternalError, errcode.Of(err), "a limit of another asset is a programming error")
	assert.Equal(t, "The amount is below the minimum of 1000.00 MWK.", errcode.Message(lim.Check(amt(t, mwk, "1"))))
}

func TestParseAmount(t *testing.T) {
	tests := []struct {
		s    string
		want string
		msg  string
	}{
		{s: "1", want: "1.000000"},
		{s: "0.000001", want: "0.000001"},
		{s: "0.0000001", msg: "from_amount: USDT amount has more decimal places than the asset carries"},
		{s: "0", msg: "from_amount must be greater than zero."},
		{s: "0.000000", msg: "from_amount must be greater than zero."},
		{s: "-1", msg: "from_amount: amount must not carry a sign"},
		{s: "1e3", msg: "from_amount: amount must not use an exponent"},
		{s: "", msg: "from_amount: amount is missing"},
	}
	for _, tc := range tests {
		a, err := quotes.ParseAmount("from_amount", tc.s, usdt)
		if tc.msg != "" {
			requireCode(t, err, errcode.ValidationError)
			assert.Equal(t, tc.msg, errcode.Message(err), tc.s)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, a.String())
	}
}

// --- Property: Price is the big.Rat reference, within one minor unit of
// the exact value, on the side the table says.

var propCodes = []string{"S", "C"}

func genAsset(t *rapid.T, code string) money.Asset {
	return money.Asset{Code: money.AssetCode(code), Decimals: int32(rapid.IntRange(0, money.MaxDecimals).Draw(t, code+"_decimals"))}
}

// genDecimal draws a positive decimal text with up to intDigits integer
// digits and up to fracDigits decimals, built from digits (never floats).
func genDecimal(t *rapid.T, label string, intDigits, fracDigits int) string {
	ni := rapid.IntRange(1, intDigits).Draw(t, label+"_int")
	nf := rapid.IntRange(0, fracDigits).Draw(t, label+"_frac")
	digit := rapid.IntRange(0, 9)
	var sb strings.Builder
	for i := range ni + nf {
		if i == ni {
			sb.WriteByte('.')
		}
		sb.WriteByte(byte('0' + digit.Draw(t, label+"_digit")))
	}
	s := sb.String()
	if ratOf(t, s).Sign() == 0 {
		return "1" + s[1:]
	}
	return s
}

func TestPriceProperty(t *testing.T) {
	var zeros, large, priced int
	defer func() {
		// The table tests reach both refusals deterministically; this
		// shows how often the property did.
		t.Logf("derived zero %d, too large %d, priced %d", zeros, large, priced)
	}()
	rapid.Check(t, func(t *rapid.T) {
		dir := rapid.SampledFrom([]quotes.Direction{quotes.ToBank, quotes.FromBank}).Draw(t, "dir")
		s, c := genAsset(t, propCodes[0]), genAsset(t, propCodes[1])
		from, to := s, c
		if dir == quotes.FromBank {
			from, to = c, s
		}
		// Rates and amounts mostly of a realistic size, sometimes at the
		// wire's bounds (30 integer digits, 18 decimals).
		wide := rapid.IntRange(0, 4).Draw(t, "wide") == 0
		rateInt, amtInt := 6, 12
		if wide {
			rateInt, amtInt = money.MaxIntegerDigits, money.MaxIntegerDigits
		}
		rate := genDecimal(t, "rate", rateInt, money.MaxRateDecimals)
		fixedFrom := rapid.Bool().Draw(t, "fixedFrom")
		fixedAsset := to
		if fixedFrom {
			fixedAsset = from
		}
		var fixed money.Amount
		if rapid.IntRange(0, 2).Draw(t, "tiny") == 0 {
			// A few minor units: where a derived side rounds to zero.
			fixed = money.FromUnits(fixedAsset, rapid.Int64Range(1, 10).Draw(t, "tiny_units"))
		} else {
			fixedText := genDecimal(t, "fixed", amtInt, int(fixedAsset.Decimals))
			var err error
			if fixed, err = money.Parse(fixedAsset, fixedText); err != nil {
				t.Fatalf("Parse(%s): %v", fixedText, err)
			}
		}
		var ff, ft money.Amount
		if fixedFrom {
			ff = fixed
		} else {
			ft = fixed
		}
		gotFrom, gotTo, err := quotes.Price(dir, money.MustRate(rate), from, to, ff, ft)

		exact, ref := reference(t, dir, rate, from, to, fixedFrom, fixed.String())
		refRat := ratOf(t, ref)
		maxRat := new(big.Rat).SetInt64(money.MaxWholeUnits)
		switch {
		case fixed.AboveMax():
			large++
			requireCode(t, err, errcode.LimitExceeded)
			return
		case refRat.Sign() == 0:
			zeros++
			requireCode(t, err, errcode.AmountBelowMinimum)
			return
		case refRat.Cmp(maxRat) > 0:
			large++
			requireCode(t, err, errcode.LimitExceeded)
			return
		}
		priced++
		if err != nil {
			t.Fatalf("Price: %v (reference %s)", err, ref)
		}
		fixedOut, derived := gotFrom, gotTo
		if !fixedFrom {
			fixedOut, derived = gotTo, gotFrom
		}
		if !fixedOut.Equal(fixed) {
			t.Fatalf("the fixed side moved: %s → %s", fixed, fixedOut)
		}
		if derived.String() != ref {
			t.Fatalf("derived %s, reference %s", derived, ref)
		}
		if gotFrom.Asset() != from || gotTo.Asset() != to {
			t.Fatalf("assets %v %v", gotFrom.Asset(), gotTo.Asset())
		}
		// Within one minor unit of the exact value, on the table's side:
		// a derived corridor-currency amount is at most exact, a derived
		// stablecoin amount at least exact.
		d := ratOf(t, derived.String())
		unit := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(derived.Asset().Decimals)), nil))
		diff := new(big.Rat).Sub(d, exact)
		derivedIsC := derived.Asset().Code == "C"
		if derivedIsC && diff.Sign() > 0 || !derivedIsC && diff.Sign() < 0 {
			t.Fatalf("rounded the wrong way: derived %s, exact %s", derived, exact.FloatString(40))
		}
		if new(big.Rat).Abs(diff).Cmp(unit) >= 0 {
			t.Fatalf("off by a minor unit or more: derived %s, exact %s", derived, exact.FloatString(40))
		}
		// The caller is never favoured off-ramp; on-ramp by less than a unit.
		if dir == quotes.ToBank {
			if fixedFrom && d.Cmp(exact) > 0 || !fixedFrom && d.Cmp(exact) < 0 {
				t.Fatalf("off-ramp caller favoured: derived %s, exact %s", derived, exact.FloatString(40))
			}
		}
	})
}

func ExamplePrice() {
	// To-bank: 123.456789 USDT at 1750.5; MWK derived, rounded down.
	from, _ := money.Parse(money.USDT, "123.456789")
	_, mwkOut, _ := quotes.Price(quotes.ToBank, money.MustRate("1750.5"), money.USDT, money.MWK, from, money.Amount{})
	fmt.Println(mwkOut, mwkOut.Asset())

	// From-bank: 100000.00 MWK at 1800; USDT derived, rounded up.
	pay, _ := money.Parse(money.MWK, "100000.00")
	_, usdtOut, _ := quotes.Price(quotes.FromBank, money.MustRate("1800"), money.MWK, money.USDT, pay, money.Amount{})
	fmt.Println(usdtOut, usdtOut.Asset())

	// A derived side that rounds to zero is below the minimum.
	tiny, _ := money.Parse(money.USDT, "0.000001")
	_, _, err := quotes.Price(quotes.ToBank, money.MustRate("1750.5"), money.USDT, money.MWK, tiny, money.Amount{})
	fmt.Println(errcode.Of(err))
	// Output:
	// 216111.10 MWK
	// 55.555556 USDT
	// amount_below_minimum
}
