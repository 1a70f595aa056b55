package trades_test

import (
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/trades"
)

// An OTC trade of 100.5 USDT at 1750.25: worth 175,900.125 kwacha, of
// which the whole 175,900 are credited from the operator's float. The
// same ref again, written otherwise, is the same trade; with other
// figures it is conflict.
func Example() {
	now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	amount, _ := money.Parse(money.USDT, "100.5")
	p := trades.Params{Ref: "otc-42", USDTAmount: amount, ClientRate: money.MustRate("1750.25")}

	t, postings, event, err := trades.New("0195f000-0000-7000-8000-000000000001", "org-1", p, now)
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Status, t.MWKAmount, event)
	for _, ps := range postings {
		fmt.Println(ps.Kind, ps.EntryID, ps.Amount, "from", ps.System)
	}

	amount, _ = money.Parse(money.USDT, "100.500000")
	again, err := trades.Replay(t, trades.Params{Ref: "otc-42", USDTAmount: amount, ClientRate: money.MustRate("1750.250")})
	fmt.Println(again.ID == t.ID, err)

	_, err = trades.Replay(t, trades.Params{Ref: "otc-42", USDTAmount: amount, ClientRate: money.MustRate("1800")})
	fmt.Println(errcode.Of(err), errcode.Message(err))

	_, err = trades.Check(trades.Params{Ref: "otc-43", USDTAmount: money.FromUnits(money.USDT, 1), ClientRate: money.MustRate("1")})
	fmt.Println(errcode.Of(err), errcode.Message(err))
	// Output:
	// settled 175900 trade.settled
	// credit trade:0195f000-0000-7000-8000-000000000001 175900.00 from float
	// true <nil>
	// conflict This trade ref was already recorded with other figures.
	// validation_error The trade must be worth at least 1 whole kwacha.
}
