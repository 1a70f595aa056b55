package orders_test

import (
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
)

func printPostings(ps []orders.Posting) {
	for _, p := range ps {
		fmt.Printf("  %s %s %s\n", p.Kind, p.EntryID, p.Amount)
	}
}

// A to-bank order from accepted to completed: the hold at creation, the
// capture to the desk when the coins leave, and completion without a
// second capture. Repeating a move changes nothing.
func Example_toBank() {
	now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	o, postings, err := orders.New(orders.Params{
		ID: "0195f000-0000-7000-8000-000000000001", Org: "org-1", QuoteID: "q-1",
		Direction: orders.ToBank,
		From:      money.FromUnits(money.USDT, 123_456789), To: money.FromUnits(money.MWK, 216111_10),
		Rate:      money.MustRate("1750.5"),
		ClientRef: "inv-42",
		Beneficiary: &orders.Beneficiary{Name: "Chikondi Banda", BankName: "National Bank of Malawi",
			AccountNumber: "1000123456"},
	}, now)
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Status)
	printPostings(postings)

	for _, cmd := range []orders.Command{orders.StartProcessing{}, orders.CoinsSent{}, orders.CoinsSent{}, orders.Complete{}} {
		now = now.Add(time.Hour)
		var eff orders.Effects
		o, eff, err = orders.Apply(o, cmd, now)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s -> %s changed=%v", cmd.Name(), o.Status, eff.Changed)
		for _, e := range eff.Events {
			fmt.Printf(" event=%s", e.Type)
		}
		fmt.Println()
		printPostings(eff.Postings)
	}

	_, _, err = orders.Apply(o, orders.Cancel{}, now)
	fmt.Println(errcode.Of(err), errcode.Message(err))
	// Output:
	// accepted
	//   hold order:0195f000-0000-7000-8000-000000000001:hold 123.456789
	// processing -> processing changed=true event=order.processing
	// coins-sent -> processing changed=true
	//   capture order:0195f000-0000-7000-8000-000000000001:capture 123.456789
	// coins-sent -> processing changed=false
	// complete -> completed changed=true event=order.completed
	// conflict A to-bank order in status completed cannot take cancel.
}

// A from-bank order: instructions with a generated reference, a proof, a
// stale confirmation refused, and the credit on completion.
func Example_fromBank() {
	now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	o, _, err := orders.New(orders.Params{
		ID: "0195f000-0000-7000-8000-000000000002", Org: "org-1", QuoteID: "q-2",
		Direction: orders.FromBank,
		From:      money.FromUnits(money.MWK, 100000_00), To: money.FromUnits(money.USDT, 55_555556),
		Rate:      money.MustRate("1800"),
		ClientRef: "topup-7",
	}, now)
	if err != nil {
		panic(err)
	}
	steps := []orders.Command{
		orders.Instructions{BankName: "Desk Bank", AccountName: "Tambala Desk Ltd", AccountNumber: "0099887766",
			Random: [8]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0}},
		orders.ProofUploaded{ID: "p1", SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			ContentType: "application/pdf", Size: 5},
		orders.ConfirmFunds{ProofID: "p0"},
		orders.ConfirmFunds{ProofID: "p1"},
		orders.Complete{},
	}
	for _, cmd := range steps {
		now = now.Add(time.Hour)
		var eff orders.Effects
		var err error
		if o, eff, err = orders.Apply(o, cmd, now); err != nil {
			fmt.Printf("%s: %s\n", cmd.Name(), errcode.Of(err))
			continue
		}
		fmt.Printf("%s -> %s\n", cmd.Name(), o.Status)
		printPostings(eff.Postings)
	}
	exp, _ := o.ExpiresAt()
	fmt.Println(o.Funding.Reference, payouts.FormatTime(exp))
	// Output:
	// instructions -> awaiting_funds
	// proof upload -> proof_submitted
	// confirm-funds: conflict
	// confirm-funds -> funds_confirmed
	// complete -> completed
	//   credit order:0195f000-0000-7000-8000-000000000002:credit 55.555556
	// TMB28T5CY4TQK 2026-03-05T10:30:00.000Z
}
