package money_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Test assets beside the defaults: the widest and the narrowest an asset may be.
var (
	eth = mustAsset("ETH", 18)
	jpy = mustAsset("JPY", 0)
)

func mustAsset(code string, decimals int) money.Asset {
	a, err := money.NewAsset(money.AssetCode(code), decimals)
	if err != nil {
		panic(err)
	}
	return a
}

func mustParse(t testing.TB, asset money.Asset, s string) money.Amount {
	t.Helper()
	a, err := money.Parse(asset, s)
	require.NoError(t, err, "parse %q as %s", s, asset)
	return a
}

func mustParseSigned(t testing.TB, asset money.Asset, s string) money.Amount {
	t.Helper()
	a, err := money.ParseSigned(asset, s)
	require.NoError(t, err, "parse signed %q as %s", s, asset)
	return a
}

func dec(t testing.TB, s string) *apd.Decimal {
	t.Helper()
	d, _, err := apd.NewFromString(s)
	require.NoError(t, err)
	return d
}

// requireRejected checks that err is a validation_error *ParseError with the
// given reason.
func requireRejected(t testing.TB, err error, reason error) {
	t.Helper()
	require.Error(t, err)
	assert.ErrorIs(t, err, reason)
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	var pe *money.ParseError
	require.ErrorAs(t, err, &pe)
	assert.Same(t, reason, pe.Reason)
	assert.ErrorIs(t, err, errcode.New(errcode.ValidationError))
	var ce *errcode.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, errcode.ValidationError, ce.Code)
	// Wrapping keeps both the code and the reason.
	wrapped := fmt.Errorf("request field amount: %w", err)
	assert.ErrorIs(t, wrapped, reason)
	assert.Equal(t, errcode.ValidationError, errcode.Of(wrapped))
	assert.Equal(t, pe.PublicMessage(), errcode.Message(wrapped))
}

var (
	nines30  = strings.Repeat("9", 30)
	digits30 = "1" + strings.Repeat("0", 29)
	digits31 = "1" + strings.Repeat("0", 30)
)

func TestParseAccepted(t *testing.T) {
	tests := []struct {
		asset money.Asset
		in    string
		want  string
	}{
		{money.MWK, "5000", "5000.00"},
		{money.MWK, "0.5", "0.50"},
		{money.MWK, "007.10", "7.10"},
		{money.MWK, "0", "0.00"},
		{money.MWK, "0.00", "0.00"},
		{money.MWK, "000", "0.00"},
		{money.MWK, "1.2", "1.20"},
		{money.MWK, "1.23", "1.23"},
		{money.MWK, "0.01", "0.01"},
		{money.MWK, "1000000000000", "1000000000000.00"},
		{money.MWK, nines30, nines30 + ".00"},
		{money.MWK, nines30 + ".99", nines30 + ".99"},
		{money.MWK, digits30, digits30 + ".00"},
		// Leading zeros do not count towards the 30 integer digits.
		{money.MWK, "0" + nines30, nines30 + ".00"},
		{money.MWK, strings.Repeat("0", 100) + nines30 + ".5", nines30 + ".50"},
		{money.MWK, strings.Repeat("0", 40), "0.00"},

		{money.USDT, "5000", "5000.000000"},
		{money.USDT, "0.5", "0.500000"},
		{money.USDT, "007.10", "7.100000"},
		{money.USDT, "123.456789", "123.456789"},
		{money.USDT, "0.000001", "0.000001"},
		{money.USDT, nines30 + ".999999", nines30 + ".999999"},

		{eth, "1", "1.000000000000000000"},
		{eth, "0.000000000000000001", "0.000000000000000001"},
		{eth, "007.10", "7.100000000000000000"},
		{eth, nines30 + "." + strings.Repeat("9", 18), nines30 + "." + strings.Repeat("9", 18)},

		{jpy, "5000", "5000"},
		{jpy, "007", "7"},
		{jpy, "0", "0"},
		{jpy, nines30, nines30},
	}
	for _, tt := range tests {
		t.Run(string(tt.asset.Code)+"/"+tt.in, func(t *testing.T) {
			a, err := money.Parse(tt.asset, tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, a.String())
			assert.Equal(t, tt.asset, a.Asset())
			assert.GreaterOrEqual(t, a.Sign(), 0)

			// The formatted string parses back to the same amount.
			back, err := money.Parse(tt.asset, a.String())
			require.NoError(t, err)
			assert.True(t, a.Equal(back))
			assert.Equal(t, a.String(), back.String())

			// A JSON string of the same text gives the same amount.
			raw, err := json.Marshal(tt.in)
			require.NoError(t, err)
			j, err := money.ParseJSON(tt.asset, raw)
			require.NoError(t, err)
			assert.True(t, a.Equal(j))
		})
	}
}

func TestParseRejected(t *testing.T) {
	tests := []struct {
		asset  money.Asset
		in     string
		reason error
	}{
		{money.MWK, "", money.ErrEmpty},

		{money.MWK, "+1", money.ErrSign},
		{money.MWK, "-1", money.ErrSign},
		{money.MWK, "-0", money.ErrSign},
		{money.MWK, "1-", money.ErrSign},
		{money.MWK, "-", money.ErrSign},

		{money.MWK, "1e5", money.ErrExponent},
		{money.MWK, "1E5", money.ErrExponent},
		{money.MWK, "1.5e2", money.ErrExponent},
		{money.MWK, "e5", money.ErrExponent},

		{money.MWK, " 1", money.ErrWhitespace},
		{money.MWK, "1 ", money.ErrWhitespace},
		{money.MWK, "1\n", money.ErrWhitespace},
		{money.MWK, "\t1", money.ErrWhitespace},
		{money.MWK, "1 000", money.ErrWhitespace},
		{money.MWK, "1\r", money.ErrWhitespace},

		{money.MWK, "1.", money.ErrMalformed},
		{money.MWK, ".5", money.ErrMalformed},
		{money.MWK, ".", money.ErrMalformed},
		{money.MWK, "1.2.3", money.ErrMalformed},
		{money.MWK, "1..2", money.ErrMalformed},
		{money.MWK, "1,000", money.ErrMalformed},
		{money.MWK, "1,5", money.ErrMalformed},
		{money.MWK, "1_000", money.ErrMalformed},
		{money.MWK, "abc", money.ErrMalformed},
		{money.MWK, "0x10", money.ErrMalformed},
		{money.MWK, "0b1", money.ErrMalformed},
		{money.MWK, "١٢", money.ErrMalformed},         // Arabic-Indic digits
		{money.MWK, "１２", money.ErrMalformed},         // full-width digits
		{money.MWK, "1\u00a0000", money.ErrMalformed}, // no-break space is not ASCII whitespace
		{money.MWK, "NaN", money.ErrMalformed},
		{money.MWK, "Infinity", money.ErrMalformed},
		{money.MWK, "MWK 5", money.ErrMalformed},
		{money.MWK, "5\x00", money.ErrMalformed},
		{money.MWK, "\"5\"", money.ErrMalformed},

		{money.MWK, "1.234", money.ErrTooManyDecimals},
		{money.MWK, "1.000", money.ErrTooManyDecimals},
		{money.MWK, "0.001", money.ErrTooManyDecimals},
		{money.USDT, "0.0000001", money.ErrTooManyDecimals},
		{eth, "0." + strings.Repeat("0", 18) + "1", money.ErrTooManyDecimals},
		{jpy, "1.0", money.ErrTooManyDecimals},
		{jpy, "1.5", money.ErrTooManyDecimals},

		{money.MWK, digits31, money.ErrTooLarge},
		{money.MWK, digits31 + ".00", money.ErrTooLarge},
		{money.MWK, "000" + digits31, money.ErrTooLarge},
		{money.USDT, "9" + nines30, money.ErrTooLarge},
		{eth, digits31 + ".1", money.ErrTooLarge},
		{jpy, digits31, money.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%q", tt.asset.Code, tt.in), func(t *testing.T) {
			a, err := money.Parse(tt.asset, tt.in)
			requireRejected(t, err, tt.reason)
			assert.True(t, a.IsZero(), "a rejected parse returns the zero Amount")

			var pe *money.ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.asset.Code, pe.Asset)
			assert.LessOrEqual(t, len(pe.Input), 40)
			assert.True(t, strings.HasPrefix(tt.in, pe.Input))
			assert.Contains(t, err.Error(), tt.reason.Error())
		})
	}
}

func TestParseErrorMessages(t *testing.T) {
	_, err := money.Parse(money.MWK, "1.234")
	var pe *money.ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "MWK amount has more decimal places than the asset carries", pe.PublicMessage())
	assert.Equal(t, pe.PublicMessage(), errcode.Message(err))

	_, err = money.Parse(money.MWK, "1e5")
	assert.Equal(t, money.ErrExponent.Error(), errcode.Message(err))

	// Long inputs are kept only in part.
	long := strings.Repeat("1", 100) + "x"
	_, err = money.Parse(money.MWK, long)
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, strings.Repeat("1", 40), pe.Input)
	assert.NotContains(t, err.Error(), strings.Repeat("1", 41))
}

func TestParseJSON(t *testing.T) {
	accepted := []struct {
		asset money.Asset
		raw   string
		want  string
	}{
		{money.MWK, `5000`, "5000.00"},
		{money.MWK, `0`, "0.00"},
		{money.MWK, `1000000000000`, "1000000000000.00"},
		{money.MWK, nines30, nines30 + ".00"},
		{money.MWK, `"5000"`, "5000.00"},
		{money.MWK, `"5000.5"`, "5000.50"},
		{money.MWK, `"0.5"`, "0.50"},
		{money.MWK, `"007.10"`, "7.10"},
		{money.MWK, `"\u0031\u0032.5"`, "12.50"}, // JSON escapes are decoded first
		{money.USDT, `12`, "12.000000"},
		{money.USDT, `"12.345678"`, "12.345678"},
		{eth, `"0.000000000000000001"`, "0.000000000000000001"},
		{jpy, `5000`, "5000"},
		{jpy, `"5000"`, "5000"},
	}
	for _, tt := range accepted {
		t.Run("ok/"+string(tt.asset.Code)+"/"+tt.raw, func(t *testing.T) {
			a, err := money.ParseJSON(tt.asset, []byte(tt.raw))
			require.NoError(t, err)
			assert.Equal(t, tt.want, a.String())
			assert.Equal(t, tt.asset, a.Asset())
		})
	}

	rejected := []struct {
		asset  money.Asset
		raw    string
		reason error
	}{
		{money.MWK, `5000.5`, money.ErrFractionalNumber},
		{money.MWK, `5000.00`, money.ErrFractionalNumber},
		{money.MWK, `0.5`, money.ErrFractionalNumber},
		{money.MWK, `1.5e3`, money.ErrFractionalNumber},
		{jpy, `1.0`, money.ErrFractionalNumber},
		{money.MWK, `1e3`, money.ErrExponent},
		{money.MWK, `1E3`, money.ErrExponent},
		{money.MWK, `1e+3`, money.ErrExponent},
		{money.MWK, `-5`, money.ErrSign},
		{money.MWK, `-0`, money.ErrSign},
		{money.MWK, `-5.5`, money.ErrSign},
		{money.MWK, `"-5"`, money.ErrSign},
		{money.MWK, `"+5"`, money.ErrSign},
		{money.MWK, `null`, money.ErrEmpty},
		{money.MWK, ``, money.ErrEmpty},
		{money.MWK, `""`, money.ErrEmpty},
		{money.MWK, `true`, money.ErrNotANumber},
		{money.MWK, `false`, money.ErrNotANumber},
		{money.MWK, `{}`, money.ErrNotANumber},
		{money.MWK, `{"amount":"5"}`, money.ErrNotANumber},
		{money.MWK, `[]`, money.ErrNotANumber},
		{money.MWK, `["5"]`, money.ErrNotANumber},
		{money.MWK, `NaN`, money.ErrNotANumber},
		{money.MWK, ` 5`, money.ErrNotANumber},
		{money.MWK, `"5`, money.ErrMalformed}, // malformed JSON string
		{money.MWK, `"5\x"`, money.ErrMalformed},
		{money.MWK, `"5" "6"`, money.ErrMalformed},
		{money.MWK, `"1e3"`, money.ErrExponent},
		{money.MWK, `"1.234"`, money.ErrTooManyDecimals},
		{money.MWK, `" 5"`, money.ErrWhitespace},
		{money.MWK, `"1,000"`, money.ErrMalformed},
		{money.MWK, `5x`, money.ErrMalformed},
		{money.MWK, digits31, money.ErrTooLarge},
		{money.MWK, `"` + digits31 + `"`, money.ErrTooLarge},
	}
	for _, tt := range rejected {
		t.Run(fmt.Sprintf("rejected/%s/%q", tt.asset.Code, tt.raw), func(t *testing.T) {
			_, err := money.ParseJSON(tt.asset, []byte(tt.raw))
			requireRejected(t, err, tt.reason)
		})
	}

	t.Run("nil raw", func(t *testing.T) {
		_, err := money.ParseJSON(money.MWK, nil)
		requireRejected(t, err, money.ErrEmpty)
	})

	t.Run("inside a request body", func(t *testing.T) {
		var body struct {
			Amount json.RawMessage `json:"amount_mwk"`
		}
		for raw, want := range map[string]string{
			`{"amount_mwk": 5000}`:      "5000.00",
			`{"amount_mwk": "5000.25"}`: "5000.25",
			`{"amount_mwk":"0.5" }`:     "0.50",
		} {
			require.NoError(t, json.Unmarshal([]byte(raw), &body))
			a, err := money.ParseJSON(money.MWK, body.Amount)
			require.NoError(t, err, raw)
			assert.Equal(t, want, a.String(), raw)
		}
		require.NoError(t, json.Unmarshal([]byte(`{"amount_mwk": 5000.5}`), &body))
		_, err := money.ParseJSON(money.MWK, body.Amount)
		requireRejected(t, err, money.ErrFractionalNumber)
	})
}

func TestParseSigned(t *testing.T) {
	tests := []struct {
		asset money.Asset
		in    string
		want  string
		sign  int
	}{
		{money.MWK, "-5000", "-5000.00", -1},
		{money.MWK, "-0.5", "-0.50", -1},
		{money.MWK, "-007.10", "-7.10", -1},
		{money.MWK, "5000", "5000.00", 1},
		{money.MWK, "0", "0.00", 0},
		{money.MWK, "-0", "0.00", 0}, // never a negative zero
		{money.MWK, "-0.00", "0.00", 0},
		{money.USDT, "-1.000001", "-1.000001", -1},
		{eth, "-0.000000000000000001", "-0.000000000000000001", -1},
		{jpy, "-42", "-42", -1},
		{money.MWK, "-" + nines30 + ".99", "-" + nines30 + ".99", -1},
	}
	for _, tt := range tests {
		t.Run(string(tt.asset.Code)+"/"+tt.in, func(t *testing.T) {
			a := mustParseSigned(t, tt.asset, tt.in)
			assert.Equal(t, tt.want, a.String())
			assert.Equal(t, tt.sign, a.Sign())
			back := mustParseSigned(t, tt.asset, a.String())
			assert.True(t, a.Equal(back))
			assert.Equal(t, a.String(), back.String())
		})
	}

	for _, in := range []string{"-", "--1", "-+1", "+-1", "- 1", "-1.234", "-1e3", "-.5", ""} {
		t.Run(fmt.Sprintf("rejected/%q", in), func(t *testing.T) {
			_, err := money.ParseSigned(money.MWK, in)
			require.Error(t, err)
			assert.Equal(t, errcode.ValidationError, errcode.Of(err))
			var pe *money.ParseError
			assert.ErrorAs(t, err, &pe)
		})
	}
}

func TestAddSub(t *testing.T) {
	tests := []struct {
		asset     money.Asset
		a, b      string
		sum, diff string
	}{
		{money.MWK, "0.10", "0.20", "0.30", "-0.10"},
		{money.MWK, "100000.00", "800.00", "100800.00", "99200.00"},
		{money.MWK, "0.01", "0.01", "0.02", "0.00"},
		{money.MWK, nines30 + ".99", "0.01", "1" + strings.Repeat("0", 30) + ".00", nines30 + ".98"},
		{money.MWK, "-5.00", "2.50", "-2.50", "-7.50"},
		{money.USDT, "0.000001", "0.000002", "0.000003", "-0.000001"},
		{eth, "0.000000000000000001", "1", "1.000000000000000001", "-0.999999999999999999"},
		{jpy, "7", "5", "12", "2"},
	}
	for _, tt := range tests {
		t.Run(string(tt.asset.Code)+"/"+tt.a+"+"+tt.b, func(t *testing.T) {
			a, b := mustParseSigned(t, tt.asset, tt.a), mustParseSigned(t, tt.asset, tt.b)
			sum, err := a.Add(b)
			require.NoError(t, err)
			assert.Equal(t, tt.sum, sum.String())
			assert.Equal(t, tt.asset, sum.Asset())
			diff, err := a.Sub(b)
			require.NoError(t, err)
			assert.Equal(t, tt.diff, diff.String())

			// (a+b)-b == a, exactly.
			back, err := sum.Sub(b)
			require.NoError(t, err)
			assert.True(t, back.Equal(a))
			assert.Equal(t, a.String(), back.String())
		})
	}

	t.Run("zero values", func(t *testing.T) {
		z := money.Zero(money.MWK)
		five := mustParse(t, money.MWK, "5")
		s, err := z.Add(five)
		require.NoError(t, err)
		assert.Equal(t, "5.00", s.String())
		d, err := z.Sub(five)
		require.NoError(t, err)
		assert.Equal(t, "-5.00", d.String())
		zz, err := five.Sub(five)
		require.NoError(t, err)
		assert.Equal(t, "0.00", zz.String())
		assert.True(t, zz.IsZero())
	})

	t.Run("asset mismatch", func(t *testing.T) {
		m, u := mustParse(t, money.MWK, "1"), mustParse(t, money.USDT, "1")
		_, err := m.Add(u)
		require.ErrorIs(t, err, money.ErrAssetMismatch)
		_, err = u.Sub(m)
		require.ErrorIs(t, err, money.ErrAssetMismatch)
		// Same code, different decimals is a different asset.
		_, err = m.Add(money.FromInt(mustAsset("MWK", 0), 1))
		require.ErrorIs(t, err, money.ErrAssetMismatch)
		assert.Equal(t, errcode.InternalError, errcode.Of(err), "a programming error, not a client one")
	})
}

func TestSignCmpEqual(t *testing.T) {
	neg := mustParseSigned(t, money.MWK, "-2.50")
	zero := money.Zero(money.MWK)
	pos := mustParse(t, money.MWK, "2.5")

	assert.Equal(t, -1, neg.Sign())
	assert.Equal(t, 0, zero.Sign())
	assert.Equal(t, 1, pos.Sign())

	assert.True(t, zero.IsZero())
	assert.True(t, mustParse(t, money.MWK, "0.00").IsZero())
	assert.False(t, pos.IsZero())
	assert.False(t, neg.IsZero())

	assert.Equal(t, "2.50", neg.Neg().String())
	assert.Equal(t, "-2.50", pos.Neg().String())
	assert.Equal(t, "0.00", zero.Neg().String())
	assert.Equal(t, "2.50", neg.Abs().String())
	assert.Equal(t, "2.50", pos.Abs().String())
	assert.Equal(t, "0.00", zero.Abs().String())
	assert.True(t, neg.Neg().Neg().Equal(neg))
	// Neg does not touch its receiver.
	_ = pos.Neg()
	assert.Equal(t, "2.50", pos.String())

	assert.Equal(t, -1, neg.Cmp(zero))
	assert.Equal(t, -1, zero.Cmp(pos))
	assert.Equal(t, 1, pos.Cmp(neg))
	assert.Equal(t, 0, pos.Cmp(mustParse(t, money.MWK, "2.50")))
	assert.Equal(t, 0, zero.Cmp(mustParse(t, money.MWK, "0")))

	assert.True(t, pos.Equal(mustParse(t, money.MWK, "002.5")))
	assert.True(t, zero.Equal(money.FromUnits(money.MWK, 0)))
	assert.False(t, pos.Equal(neg.Abs().Neg()))
	// Equal compares assets too, without panicking.
	assert.False(t, money.Zero(money.MWK).Equal(money.Zero(money.USDT)))
	assert.False(t, money.FromInt(money.MWK, 1).Equal(money.FromInt(money.USDT, 1)))

	assert.Panics(t, func() { money.Zero(money.MWK).Cmp(money.Zero(money.USDT)) })
}

func TestZeroAndConstructors(t *testing.T) {
	assert.Equal(t, "0.00", money.Zero(money.MWK).String())
	assert.Equal(t, "0.000000", money.Zero(money.USDT).String())
	assert.Equal(t, "0.000000000000000000", money.Zero(eth).String())
	assert.Equal(t, "0", money.Zero(jpy).String())
	assert.Equal(t, money.MWK, money.Zero(money.MWK).Asset())
	assert.Equal(t, "0.00", money.Zero(money.MWK).Decimal().Text('f'))

	assert.Equal(t, "5000.00", money.FromInt(money.MWK, 5000).String())
	assert.Equal(t, "-3.00", money.FromInt(money.MWK, -3).String())
	assert.Equal(t, "7.000000", money.FromInt(money.USDT, 7).String())
	assert.Equal(t, "9223372036854775807.000000000000000000", money.FromInt(eth, 1<<63-1).String())
	assert.Equal(t, "12", money.FromInt(jpy, 12).String())

	assert.Equal(t, "123.45", money.FromUnits(money.MWK, 12345).String())
	assert.Equal(t, "0.01", money.FromUnits(money.MWK, 1).String())
	assert.Equal(t, "-0.05", money.FromUnits(money.MWK, -5).String())
	assert.Equal(t, "0.000001", money.FromUnits(money.USDT, 1).String())
	assert.Equal(t, "0.000000000000000001", money.FromUnits(eth, 1).String())
	assert.Equal(t, "12", money.FromUnits(jpy, 12).String())
	assert.True(t, money.FromUnits(money.MWK, 500000).Equal(money.FromInt(money.MWK, 5000)))

	t.Run("FromDecimal", func(t *testing.T) {
		a, err := money.FromDecimal(money.MWK, dec(t, "7.1"))
		require.NoError(t, err)
		assert.Equal(t, "7.10", a.String())
		a, err = money.FromDecimal(money.MWK, dec(t, "-7.25"))
		require.NoError(t, err)
		assert.Equal(t, "-7.25", a.String())
		a, err = money.FromDecimal(money.MWK, dec(t, "12E+2"))
		require.NoError(t, err)
		assert.Equal(t, "1200.00", a.String())

		for _, s := range []string{"1.234", "0.001", "-0.005", "7.101"} {
			_, err := money.FromDecimal(money.MWK, dec(t, s))
			assert.ErrorIs(t, err, money.ErrInexact, s)
		}
		_, err = money.FromDecimal(jpy, dec(t, "1.5"))
		assert.ErrorIs(t, err, money.ErrInexact)
		_, err = money.FromDecimal(money.USDT, dec(t, "0.0000001"))
		assert.ErrorIs(t, err, money.ErrInexact)
	})

	t.Run("Decimal is a copy", func(t *testing.T) {
		a := mustParse(t, money.MWK, "5")
		d := a.Decimal()
		d.SetInt64(99)
		assert.Equal(t, "5.00", a.String())
	})
}

func TestAmountMarshalJSON(t *testing.T) {
	tests := []struct {
		a    money.Amount
		want string
	}{
		{money.FromInt(money.MWK, 5000), `"5000.00"`},
		{money.Zero(money.MWK), `"0.00"`},
		{money.Zero(money.USDT), `"0.000000"`},
		{money.FromUnits(money.USDT, 1), `"0.000001"`},
		{money.FromInt(money.MWK, -3), `"-3.00"`},
		{money.FromInt(jpy, 7), `"7"`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.a)
		require.NoError(t, err)
		assert.Equal(t, tt.want, string(b))
		text, err := tt.a.AppendText([]byte("x="))
		require.NoError(t, err)
		assert.Equal(t, "x="+strings.Trim(tt.want, `"`), string(text))
	}

	// Inside a response struct, and back through ParseJSON.
	b, err := json.Marshal(struct {
		Amount money.Amount `json:"amount_mwk"`
	}{money.FromUnits(money.MWK, 123456)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"amount_mwk":"1234.56"}`, string(b))
	var back struct {
		Amount json.RawMessage `json:"amount_mwk"`
	}
	require.NoError(t, json.Unmarshal(b, &back))
	a, err := money.ParseJSON(money.MWK, back.Amount)
	require.NoError(t, err)
	assert.Equal(t, "1234.56", a.String())
}

func TestAssets(t *testing.T) {
	assert.Equal(t, money.Asset{Code: "MWK", Decimals: 2}, money.MWK)
	assert.Equal(t, money.Asset{Code: "USDT", Decimals: 6}, money.USDT)
	as := money.DefaultAssets()
	assert.Equal(t, []money.AssetCode{"MWK", "USDT"}, as.Codes())
	got, ok := as.Lookup("USDT")
	assert.True(t, ok)
	assert.Equal(t, money.USDT, got)
	_, ok = as.Lookup("usdt")
	assert.False(t, ok)

	for _, bad := range []struct {
		code string
		dec  int
	}{{"", 2}, {"usdt", 6}, {"USD-T", 6}, {"ABCDEFGHIJKLM", 2}, {"MWK", -1}, {"MWK", 19}} {
		_, err := money.NewAsset(money.AssetCode(bad.code), bad.dec)
		assert.Error(t, err, "%q/%d", bad.code, bad.dec)
	}
	_, err := money.NewAsset("ABCDEFGHIJKL", 18)
	assert.NoError(t, err)
}

func TestParseErrorIsMatchable(t *testing.T) {
	// errors.Is must find the reason through any wrapping, and never match
	// an unrelated reason.
	_, err := money.Parse(money.MWK, "1e5")
	err = fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", err))
	assert.True(t, errors.Is(err, money.ErrExponent))
	assert.False(t, errors.Is(err, money.ErrSign))
	assert.False(t, errors.Is(err, money.ErrMalformed))
}

func TestFromDecimalTrailingZeros(t *testing.T) {
	d, _, err := apd.NewFromString("7.100")
	require.NoError(t, err)
	a, err := money.FromDecimal(money.MWK, d)
	require.NoError(t, err)
	assert.Equal(t, "7.10", a.String())
	d, _, _ = apd.NewFromString("7.105")
	_, err = money.FromDecimal(money.MWK, d)
	assert.ErrorIs(t, err, money.ErrInexact)
}
