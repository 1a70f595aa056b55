package money_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/money"
)

func TestDecimal(t *testing.T) {
	assert.False(t, money.Decimal{}.IsSet(), "the zero Decimal is absent")
	assert.Equal(t, "", money.Decimal{}.String())
	for _, c := range []struct {
		text      string
		grammarOK bool
		usdt      string // In(USDT), "" when refused
		mwk       string // In(MWK), "" when refused
	}{
		{"50", true, "50.000000", "50.00"},
		{"12.75", true, "12.750000", "12.75"},
		{"0.123456", true, "0.123456", ""}, // MWK has two decimals
		{"1.1234567", true, "", ""},        // more decimals than USDT
		{"", false, "", ""},
		{"-1", false, "", ""},
		{"1e3", false, "", ""},
		{" 1", false, "", ""},
		{"1.", false, "", ""},
	} {
		d := money.DecimalText(c.text)
		assert.True(t, d.IsSet(), c.text)
		assert.Equal(t, c.text, d.String(), "the text is kept as written")
		assert.Equal(t, c.grammarOK, d.Check() == nil, "Check(%q)", c.text)
		for _, in := range []struct {
			asset money.Asset
			want  string
		}{{money.USDT, c.usdt}, {money.MWK, c.mwk}} {
			a, err := d.In(in.asset)
			if in.want == "" {
				var pe *money.ParseError
				assert.True(t, errors.As(err, &pe), "%q in %s: %v", c.text, in.asset.Code, err)
				continue
			}
			if assert.NoError(t, err, "%q in %s", c.text, in.asset.Code) {
				assert.Equal(t, in.want, a.String())
			}
		}
	}
	d := money.DecimalOf(money.FromUnits(money.USDT, 1_500_000))
	assert.Equal(t, "1.500000", d.String())
	a, err := d.In(money.USDT)
	assert.NoError(t, err)
	assert.Equal(t, money.FromUnits(money.USDT, 1_500_000), a)
}
