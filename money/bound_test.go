package money_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tambalapay/tambala/money"
)

func TestMaxAndAboveMax(t *testing.T) {
	for _, asset := range []money.Asset{money.MWK, money.USDT, {Code: "WEI", Decimals: 18}, {Code: "ZERO", Decimals: 0}} {
		max := money.Max(asset)
		if got, want := max.String(), "1000000000000"; !strings.HasPrefix(got, want) || (asset.Decimals > 0 && got != want+"."+strings.Repeat("0", int(asset.Decimals))) {
			t.Errorf("Max(%s) = %s", asset.Code, got)
		}
		one := money.FromUnits(asset, 1)
		above, err := max.Add(one)
		if err != nil {
			t.Fatal(err)
		}
		below, err := max.Sub(one)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			a    money.Amount
			want bool
		}{{max, false}, {above, true}, {below, false}, {money.Zero(asset), false}, {one, false}} {
			if got := c.a.AboveMax(); got != c.want {
				t.Errorf("%s %s AboveMax = %v, want %v", c.a, asset.Code, got, c.want)
			}
		}
		huge, err := money.Parse(asset, strings.Repeat("9", money.MaxIntegerDigits))
		if err != nil {
			t.Fatal(err)
		}
		if !huge.AboveMax() {
			t.Errorf("%s %s not above the maximum", huge, asset.Code)
		}
	}
}

func TestExceeds(t *testing.T) {
	for _, c := range []struct {
		asset  money.Asset
		s      string
		digits int
		want   bool
	}{
		{money.MWK, "0", 0, false},
		{money.MWK, "0.99", 0, false},
		{money.MWK, "1.00", 0, true},
		{money.MWK, "-1.00", 0, true},
		{money.MWK, "99999", 5, false},
		{money.MWK, "100000", 5, true},
		{money.MWK, "-100000", 5, true},
		{money.MWK, "-99999.99", 5, false},
		{money.MWK, "92233720368547758.07", 17, false},  // the int64 form's largest
		{money.MWK, "92233720368547758.07", 16, true},   // still the int64 form
		{money.MWK, "-92233720368547758.08", 17, false}, // math.MinInt64 units
		{money.USDT, strings.Repeat("9", 40), 40, false},
		{money.USDT, "1" + strings.Repeat("0", 40), 40, true},
		{money.USDT, "-1" + strings.Repeat("0", 40), 40, true},
		{money.USDT, "-" + strings.Repeat("9", 40) + ".999999", 40, false},
	} {
		a, err := money.ParseSigned(c.asset, c.s)
		if err != nil {
			t.Fatalf("%s: %v", c.s, err)
		}
		if got := a.Exceeds(c.digits); got != c.want {
			t.Errorf("%s %s Exceeds(%d) = %v, want %v", c.s, c.asset.Code, c.digits, got, c.want)
		}
	}
}

// ParseSigned reads what the engine stored, beyond the wire's bound: a
// balance summed from many wire amounts must read back.
func TestParseSignedReadsStoredSums(t *testing.T) {
	for _, digits := range []int{money.MaxIntegerDigits + 1, 40, money.MaxStoredIntegerDigits} {
		s := strings.Repeat("9", digits) + ".123456"
		for _, text := range []string{s, "-" + s} {
			a, err := money.ParseSigned(money.USDT, text)
			if err != nil {
				t.Fatalf("%d digits: %v", digits, err)
			}
			if a.String() != text {
				t.Errorf("read back %s as %s", text, a)
			}
			// Arithmetic on it stays exact.
			sum, err := a.Add(a)
			if err != nil {
				t.Fatal(err)
			}
			back, err := sum.Sub(a)
			if err != nil || !back.Equal(a) {
				t.Errorf("%s + itself - itself = %s, %v", a, back, err)
			}
		}
		if _, err := money.Parse(money.USDT, s); !errors.Is(err, money.ErrTooLarge) {
			t.Errorf("Parse (wire) of %d digits: %v, want too large", digits, err)
		}
	}
	_, err := money.ParseSigned(money.USDT, strings.Repeat("9", money.MaxStoredIntegerDigits+1))
	if !errors.Is(err, money.ErrTooLarge) {
		t.Errorf("beyond the stored bound: %v", err)
	}
}
