package quotes_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

var zmw = money.Asset{Code: "ZMW", Decimals: 2}

func testClasses() quotes.Classes {
	cs := quotes.DefaultClasses()
	cs["ZMW"] = quotes.Fiat
	return cs
}

// mwkCorridor is open both ways, min 1000.00 MWK, no max.
func mwkCorridor(t testing.TB) quotes.Corridor {
	return quotes.Corridor{
		Asset:       mwk,
		RateOffRamp: money.MustRate("1750.5"),
		RateOnRamp:  money.MustRate("1800"),
		Min:         amt(t, mwk, "1000.00"),
		Open:        true,
	}
}

func TestCorridorValidate(t *testing.T) {
	r19 := func() money.Rate {
		d := money.MustRate("1.000000000000000001").Decimal()
		d.Exponent-- // 0.1000000000000000001: 19 decimals
		r, err := money.RateFromDecimal(d)
		require.NoError(t, err)
		return r
	}()
	mwk3 := money.Asset{Code: "MWK", Decimals: 3}
	tests := []struct {
		name string
		edit func(c *quotes.Corridor)
		msg  string // "" for valid
	}{
		{"valid", func(*quotes.Corridor) {}, ""},
		{"both rates null", func(c *quotes.Corridor) { c.RateOffRamp, c.RateOnRamp = money.Rate{}, money.Rate{} }, ""},
		{"closed", func(c *quotes.Corridor) { c.Open = false }, ""},
		{"min zero", func(c *quotes.Corridor) { c.Min = money.Zero(mwk) }, ""},
		{"max equal to min", func(c *quotes.Corridor) { c.Max = amt(t, mwk, "1000.00") }, ""},
		{"rate with 18 decimals", func(c *quotes.Corridor) { c.RateOnRamp = money.MustRate("0.000000000000000001") }, ""},
		{"rate with 19 decimals", func(c *quotes.Corridor) { c.RateOffRamp = r19 }, "rate_off_ramp: amount has more decimal places than the asset carries"},
		{"the zero Rate closes the direction (a set rate is positive by construction)", func(c *quotes.Corridor) { c.RateOnRamp = money.Rate{} }, ""},
		{"a stablecoin", func(c *quotes.Corridor) { c.Asset = usdt; c.Min = money.Zero(usdt) }, "USDT is not configured as a fiat asset; only a fiat asset has a corridor."},
		{"an unknown asset", func(c *quotes.Corridor) { c.Asset = money.Asset{Code: "EUR", Decimals: 2}; c.Min = money.Zero(c.Asset) }, "EUR is not configured as a fiat asset; only a fiat asset has a corridor."},
		{"a malformed code", func(c *quotes.Corridor) { c.Asset = money.Asset{Code: "mwk", Decimals: 2} }, `asset "mwk" is not a valid asset.`},
		{"min of another asset", func(c *quotes.Corridor) { c.Min = amt(t, usdt, "1") }, "min must be an amount of MWK at 2 decimals."},
		{"min at other decimals", func(c *quotes.Corridor) { c.Min = amt(t, mwk3, "1.000") }, "min must be an amount of MWK at 2 decimals."},
		{"min unset", func(c *quotes.Corridor) { c.Min = money.Amount{} }, "min must be an amount of MWK at 2 decimals."},
		{"min negative", func(c *quotes.Corridor) { c.Min = amt(t, mwk, "-0.01") }, "min must not be negative."},
		{"max below min", func(c *quotes.Corridor) { c.Max = amt(t, mwk, "999.99") }, "max must be at least min."},
		{"max zero", func(c *quotes.Corridor) { c.Min = money.Zero(mwk); c.Max = money.Zero(mwk) }, "max must be greater than zero."},
		{"max of another asset", func(c *quotes.Corridor) { c.Max = amt(t, zmw, "5000") }, "max must be an amount of MWK at 2 decimals."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mwkCorridor(t)
			tc.edit(&c)
			err := c.Validate(testClasses())
			if tc.msg == "" {
				assert.NoError(t, err)
				return
			}
			requireCode(t, err, errcode.ValidationError)
			assert.Equal(t, tc.msg, errcode.Message(err))
		})
	}
}

func TestCorridorRate(t *testing.T) {
	c := mwkCorridor(t)
	r, err := c.Rate(quotes.ToBank)
	require.NoError(t, err)
	assert.Equal(t, "1750.5", r.String())
	r, err = c.Rate(quotes.FromBank)
	require.NoError(t, err)
	assert.Equal(t, "1800", r.String())

	c.RateOnRamp = money.Rate{}
	_, err = c.Rate(quotes.FromBank)
	requireCode(t, err, errcode.RateUnavailable)
	assert.Equal(t, "No MWK on-ramp rate is available.", errcode.Message(err))
	_, err = c.Rate(quotes.ToBank)
	assert.NoError(t, err, "null closes one direction only")

	c.Open = false
	_, err = c.Rate(quotes.ToBank)
	requireCode(t, err, errcode.RateUnavailable)
	assert.Equal(t, "The MWK corridor is closed.", errcode.Message(err))

	_, err = mwkCorridor(t).Rate("sideways")
	assert.Equal(t, errcode.InternalError, errcode.Of(err))
}

func TestCorridorLimits(t *testing.T) {
	c := mwkCorridor(t)
	c.Max = amt(t, mwk, "5000.00")
	for s, code := range map[string]errcode.Code{"999.99": errcode.AmountBelowMinimum, "1000.00": "", "5000.00": "", "5000.01": errcode.LimitExceeded} {
		err := c.Limits().Check(amt(t, mwk, s))
		if code == "" {
			assert.NoError(t, err, s)
		} else {
			requireCode(t, err, code)
		}
	}
	// Limits are values: editing the result never edits the corridor.
	l := c.Limits()
	l.Min = money.Zero(mwk)
	assert.Equal(t, "1000.00", c.Min.String())
}

func TestFindCorridorAndVisible(t *testing.T) {
	m, z := mwkCorridor(t), quotes.Corridor{Asset: zmw, Min: money.Zero(zmw)}
	all := []quotes.Corridor{z, m}

	got, err := quotes.FindCorridor("MWK", all)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	_, err = quotes.FindCorridor("EUR", all)
	requireCode(t, err, errcode.UnsupportedPair)
	assert.Equal(t, "EUR has no corridor: a pair must be one corridor currency and one stablecoin.", errcode.Message(err))

	vis := quotes.Visible(all, func(code money.AssetCode) bool { return true })
	require.Len(t, vis, 2)
	assert.Equal(t, money.AssetCode("MWK"), vis[0].Asset.Code, "sorted by code")
	assert.Equal(t, money.AssetCode("ZMW"), vis[1].Asset.Code)
	assert.Equal(t, money.AssetCode("ZMW"), all[0].Asset.Code, "the input is not reordered")
	vis = quotes.Visible(all, func(code money.AssetCode) bool { return code == "ZMW" })
	require.Len(t, vis, 1)
	assert.Equal(t, money.AssetCode("ZMW"), vis[0].Asset.Code)
	assert.Empty(t, quotes.Visible(all, func(money.AssetCode) bool { return false }))
}

func TestDeskClosed(t *testing.T) {
	open := mwkCorridor(t)
	closed := open
	closed.Open = false
	nullRates := open
	nullRates.RateOffRamp, nullRates.RateOnRamp = money.Rate{}, money.Rate{}
	tests := []struct {
		name    string
		visible []quotes.Corridor
		closed  bool
	}{
		{"none visible", nil, true},
		{"empty", []quotes.Corridor{}, true},
		{"one closed", []quotes.Corridor{closed}, true},
		{"all closed", []quotes.Corridor{closed, closed}, true},
		{"one open", []quotes.Corridor{open}, false},
		{"one of two open", []quotes.Corridor{closed, open}, false},
		{"open with both rates null is still open", []quotes.Corridor{nullRates}, false},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.closed, quotes.DeskClosed(tc.visible), tc.name)
		err := quotes.CheckDeskOpen(tc.visible)
		if tc.closed {
			requireCode(t, err, errcode.ServiceMaintenance)
		} else {
			assert.NoError(t, err, tc.name)
		}
	}
}
