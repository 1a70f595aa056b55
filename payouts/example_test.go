package payouts_test

import (
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
)

// A /v2 bank payout of 1000.00 MWK paid from USDT at 1750.5 MWK per USDT:
// the destination's fields, the hold in USDT (principal and fee, each
// converted and rounded up), the fee charged when the provider reports
// 500.00 MWK, and the fee the payout then shows.
func Example_v2Payout() {
	d := payouts.V2Destination{Type: payouts.DestinationBank, InstitutionID: 1, AccountNumber: "3333888801", BeneficiaryName: "Chikondi Banda"}
	fmt.Println(d.CheckFields(d.Present()), d.Type.Rail())
	wrong := payouts.V2Destination{Type: payouts.DestinationBank, InstitutionID: 1, MobileNumber: "265991234567", BeneficiaryName: "Chikondi Banda"}
	fmt.Println(errcode.Message(wrong.CheckFields(wrong.Present())))

	amount := money.FromInt(money.MWK, 1000)
	q, _ := payouts.DefaultFeeSchedule().Quote(payouts.DirPayout, payouts.Bank, amount)
	fx := &payouts.FX{Pair: quotes.Pair{Direction: quotes.ToBank, From: money.USDT, To: money.MWK}, Rate: money.MustRate("1750.5")}
	price, _ := payouts.PriceV2(amount, q.Total, fx)
	hold, _ := price.Total()
	fmt.Println(q.Total, price.Principal, price.Fee, hold)

	p := payouts.Payout{ID: "p1", Rail: payouts.Bank, Amount: price.Principal, HeldFee: price.Fee, Status: payouts.Pending}
	reported := money.FromInt(money.MWK, 500)
	charged, observed, _ := payouts.ChargeV2(p, money.MWK, &reported, fx)
	p, _ = p.Succeed(&charged, time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC))
	shown, _ := payouts.FeeShownV2(p, money.MWK, true, q.Total, observed)
	fmt.Println(charged, *shown)
	// Output:
	// <nil> bank
	// A bank destination has account_number and no mobile_number.
	// 596.90 0.571266 0.340989 0.912255
	// 0.285633 500.00
}
