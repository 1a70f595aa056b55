package money_test

import (
	"errors"
	"fmt"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

func ExampleParse() {
	a, err := money.Parse(money.MWK, "5000")
	fmt.Println(a, err)

	b, _ := money.Parse(money.USDT, "007.10")
	fmt.Println(b)

	_, err = money.Parse(money.MWK, "1.234")
	fmt.Println(errors.Is(err, money.ErrTooManyDecimals), errcode.Of(err))
	fmt.Println(errcode.Message(err))
	// Output:
	// 5000.00 <nil>
	// 7.100000
	// true validation_error
	// MWK amount has more decimal places than the asset carries
}

func ExampleParseJSON() {
	// amount_mwk: a JSON integer of whole kwacha, or a decimal string.
	a, _ := money.ParseJSON(money.MWK, []byte(`5000`))
	b, _ := money.ParseJSON(money.MWK, []byte(`"5000.25"`))
	fmt.Println(a, b)

	// A fractional JSON number is rejected: send a string.
	_, err := money.ParseJSON(money.MWK, []byte(`5000.25`))
	fmt.Println(errors.Is(err, money.ErrFractionalNumber), errcode.Of(err))
	fmt.Println(errcode.Message(err))
	// Output:
	// 5000.00 5000.25
	// true validation_error
	// a fractional amount must be sent as a string
}

func ExampleMul() {
	// To-bank quote: the caller pays 123.456789 USDT at 1750.50 MWK per
	// USDT; the derived corridor-currency side is rounded down.
	from, _ := money.Parse(money.USDT, "123.456789")
	rate := money.MustRate("1750.50")
	to, _ := money.Mul(from, rate, money.MWK, money.RoundDown)
	fmt.Println(to) // exactly 216111.1091445

	// A fee line rounds half-up to the tambala: 0.8% of 12345.67.
	fee, _ := money.Mul(money.FromUnits(money.MWK, 1234567), money.MustRate("0.008"), money.MWK, money.RoundHalfUp)
	fmt.Println(fee) // exactly 98.76536
	// Output:
	// 216111.10
	// 98.77
}

func ExampleQuo() {
	// From-bank quote: the caller pays 100000.00 MWK at 1800 MWK per USDT;
	// the derived stablecoin side is rounded up.
	from, _ := money.Parse(money.MWK, "100000.00")
	to, _ := money.Quo(from, money.MustRate("1800"), money.USDT, money.RoundUp)
	fmt.Println(to) // exactly 55.5555…

	third, _ := money.Quo(from, money.MustRate("3"), money.USDT, money.RoundUp)
	fmt.Println(third) // exactly 33333.3333…
	// Output:
	// 55.555556
	// 33333.333334
}

func ExampleRate_String() {
	for _, s := range []string{"1750.50", "1800.000", "0.0080"} {
		fmt.Println(money.MustRate(s))
	}
	// Output:
	// 1750.5
	// 1800
	// 0.008
}

func ExampleRateFromUnits() {
	// Rates are built as amounts are: from whole units, from units of
	// 10^-decimals, or from text.
	offRamp := money.RateFromUnits(17505, 1) // 1750.5 MWK per USDT
	onRamp := money.RateFromInt(1800)
	fmt.Println(offRamp, onRamp, offRamp.Cmp(money.MustRate("1750.50")) == 0)
	// Output: 1750.5 1800 true
}
