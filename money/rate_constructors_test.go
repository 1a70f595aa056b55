package money_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/money"
)

// TestRateConstructors pins the rate's constructors that mirror the
// amount's (FromInt, FromUnits): each gives the rate its text gives.
func TestRateConstructors(t *testing.T) {
	for _, tt := range []struct {
		name string
		got  money.Rate
		want string
	}{
		{"RateFromInt(1800)", money.RateFromInt(1800), "1800"},
		{"RateFromInt(1)", money.RateFromInt(1), "1"},
		{"RateFromInt(MaxInt64)", money.RateFromInt(math.MaxInt64), "9223372036854775807"},
		{"RateFromUnits(17505, 1)", money.RateFromUnits(17505, 1), "1750.5"},
		{"RateFromUnits(17505000, 4)", money.RateFromUnits(17505000, 4), "1750.5"},
		{"RateFromUnits(8, 3)", money.RateFromUnits(8, 3), "0.008"},
		{"RateFromUnits(1800, 0)", money.RateFromUnits(1800, 0), "1800"},
		{"RateFromUnits(1, 18)", money.RateFromUnits(1, money.MaxRateDecimals), "0.000000000000000001"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := mustRate(t, tt.want)
			assert.Equal(t, tt.want, tt.got.String())
			assert.Zero(t, tt.got.Cmp(want))
			assert.False(t, tt.got.IsZero())
			back, err := money.ParseRate(tt.got.String())
			require.NoError(t, err, "the rate is one ParseRate accepts")
			assert.Zero(t, back.Cmp(tt.got))
			b, err := tt.got.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, `"`+tt.want+`"`, string(b))
		})
	}
	// A rate is positive, its decimals within MaxRateDecimals: anything
	// else is an invalid argument, as bad text is to MustRate.
	for name, bad := range map[string]func(){
		"RateFromInt(0)":           func() { money.RateFromInt(0) },
		"RateFromInt(-1)":          func() { money.RateFromInt(-1) },
		"RateFromUnits(0, 2)":      func() { money.RateFromUnits(0, 2) },
		"RateFromUnits(-5, 1)":     func() { money.RateFromUnits(-5, 1) },
		"RateFromUnits(1, -1)":     func() { money.RateFromUnits(1, -1) },
		"RateFromUnits(1, 19)":     func() { money.RateFromUnits(1, money.MaxRateDecimals+1) },
		"MustRate(\"0\") (as now)": func() { money.MustRate("0") },
	} {
		assert.Panics(t, bad, name)
	}
}
