package money_test

import (
	"testing"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

func TestBindAmount(t *testing.T) {
	for _, tc := range []struct {
		field money.AmountField
		s     string
		code  errcode.Code
		msg   string
		want  string
	}{
		{money.AmountField{Name: "amount"}, "12.5", "", "", "12.500000"},
		{money.AmountField{Name: "amount"}, "0", errcode.ValidationError, "amount must be greater than zero.", ""},
		{money.AmountField{Name: "amount", Zero: "0"}, "0.000000", errcode.ValidationError, "amount must be greater than 0.", ""},
		{money.AmountField{Name: "from_amount"}, "1.0000001", errcode.ValidationError, "from_amount: USDT amount has more decimal places than the asset carries", ""},
		{money.AmountField{Name: "amount"}, "-1", errcode.ValidationError, "amount: amount must not carry a sign", ""},
		{money.AmountField{Name: "amount"}, "1000000000000.000001", errcode.LimitExceeded, "", ""},
	} {
		a, err := tc.field.Bind(money.USDT, tc.s)
		if tc.code == "" {
			if err != nil || a.String() != tc.want {
				t.Errorf("Bind(%q) = %s, %v; want %s", tc.s, a, err, tc.want)
			}
			continue
		}
		if errcode.Of(err) != tc.code || (tc.msg != "" && errcode.Message(err) != tc.msg) {
			t.Errorf("Bind(%q) = %v (%s, %q); want %s %q", tc.s, err, errcode.Of(err), errcode.Message(err), tc.code, tc.msg)
		}
		d, derr := tc.field.BindDecimal(money.USDT, money.DecimalText(tc.s))
		if errcode.Message(derr) != errcode.Message(err) || d != a {
			t.Errorf("BindDecimal(%q) = %v, %v; Bind gave %v, %v", tc.s, d, derr, a, err)
		}
	}
	a, err := money.BindAmount("amount", money.MWK, "5")
	if err != nil || a.String() != "5.00" {
		t.Errorf("BindAmount = %s, %v", a, err)
	}
}
