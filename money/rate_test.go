package money_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/money"
)

func mustRate(t testing.TB, s string) money.Rate {
	t.Helper()
	r, err := money.ParseRate(s)
	require.NoError(t, err, "rate %q", s)
	return r
}

func TestParseRate(t *testing.T) {
	accepted := []struct{ in, want string }{
		{"1750.50", "1750.5"},
		{"1750.5", "1750.5"},
		{"1800", "1800"},
		{"1800.000", "1800"},
		{"1800.0", "1800"},
		{"001800", "1800"},
		{"0.008", "0.008"},
		{"0.0080", "0.008"},
		{"0.175", "0.175"},
		{"0.0005", "0.0005"},
		{"1", "1"},
		{"10", "10"},
		{"100000", "100000"},
		{"3", "3"},
		{"0.000000000000000001", "0.000000000000000001"},
		{"1.000000000000000000", "1"},
		{nines30 + ".999999999999999999", nines30 + ".999999999999999999"},
		{digits30, digits30},
	}
	for _, tt := range accepted {
		t.Run(tt.in, func(t *testing.T) {
			r, err := money.ParseRate(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.String())
			assert.False(t, r.IsZero())
			assert.Equal(t, 0, r.Cmp(mustRate(t, r.String())), "String re-parses to the same rate")
			assert.Equal(t, 0, r.Decimal().Cmp(mustRate(t, tt.want).Decimal()))
			assert.NotContains(t, r.String(), "E")
			assert.NotContains(t, r.String(), "e")

			b, err := json.Marshal(r)
			require.NoError(t, err)
			assert.Equal(t, `"`+tt.want+`"`, string(b))
		})
	}

	rejected := []struct {
		in     string
		reason error
	}{
		{"0", money.ErrMalformed},
		{"0.0", money.ErrMalformed},
		{"000.000", money.ErrMalformed},
		{"0." + strings.Repeat("0", 18), money.ErrMalformed},
		{"", money.ErrEmpty},
		{"-1750", money.ErrSign},
		{"+1750", money.ErrSign},
		{"1.75e3", money.ErrExponent},
		{" 1750", money.ErrWhitespace},
		{"1750 ", money.ErrWhitespace},
		{"1750.", money.ErrMalformed},
		{".008", money.ErrMalformed},
		{"1,750.50", money.ErrMalformed},
		{"0x10", money.ErrMalformed},
		{"1.2.3", money.ErrMalformed},
		{"0.0000000000000000001", money.ErrTooManyDecimals},
		{digits31, money.ErrTooLarge},
	}
	for _, tt := range rejected {
		t.Run(fmt.Sprintf("rejected/%q", tt.in), func(t *testing.T) {
			r, err := money.ParseRate(tt.in)
			requireRejected(t, err, tt.reason)
			assert.True(t, r.IsZero())
			var pe *money.ParseError
			require.ErrorAs(t, err, &pe)
			assert.Empty(t, pe.Asset)
		})
	}
}

func TestRateMisc(t *testing.T) {
	var zero money.Rate
	assert.True(t, zero.IsZero())
	assert.Equal(t, "0", zero.String())
	assert.Equal(t, 0, zero.Decimal().Sign())

	assert.Equal(t, "1750.5", money.MustRate("1750.50").String())
	assert.Panics(t, func() { money.MustRate("0") })
	assert.Panics(t, func() { money.MustRate("1e3") })

	assert.Equal(t, -1, mustRate(t, "1750.5").Cmp(mustRate(t, "1800")))
	assert.Equal(t, 1, mustRate(t, "1800").Cmp(mustRate(t, "1750.5")))
	assert.Equal(t, 0, mustRate(t, "1800.000").Cmp(mustRate(t, "1800")))

	r, err := money.RateFromDecimal(dec(t, "1750.50"))
	require.NoError(t, err)
	assert.Equal(t, "1750.5", r.String())
	r, err = money.RateFromDecimal(dec(t, "18E+2"))
	require.NoError(t, err)
	assert.Equal(t, "1800", r.String())
	for _, bad := range []string{"0", "-1", "0.000"} {
		_, err := money.RateFromDecimal(dec(t, bad))
		assert.Error(t, err, bad)
	}
	_, err = money.RateFromDecimal(nil)
	assert.Error(t, err)

	// RateFromDecimal copies its argument; Decimal returns a copy.
	d := dec(t, "2")
	r, err = money.RateFromDecimal(d)
	require.NoError(t, err)
	d.SetInt64(3)
	assert.Equal(t, "2", r.String())
	r.Decimal().SetInt64(4)
	assert.Equal(t, "2", r.String())

	b, err := json.Marshal(struct {
		Rate money.Rate `json:"rate"`
	}{mustRate(t, "1800.00")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"rate":"1800"}`, string(b))
}
