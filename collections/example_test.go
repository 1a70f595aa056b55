package collections_test

import (
	"fmt"
	"time"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/payouts"
)

func printPostings(ps []collections.Posting) {
	for _, p := range ps {
		switch p.Kind {
		case collections.KindCredit:
			fmt.Printf("  %s %s %s fee %s from %s\n", p.Kind, p.EntryID, p.Amount, p.Fee, p.System)
		default:
			fmt.Printf("  %s %s of %s\n", p.Kind, p.EntryID, p.Of)
		}
	}
}

// A /v1 collection settled net of its fee and reversed once; a deposit on
// /v2, stablecoins paying no fee, and the same deposit recorded again.
func Example() {
	now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	fees := payouts.DefaultFeeSchedule()

	r, err := collections.Received{Amount: money.FromInt(money.MWK, 10_000)}.Check()
	if err != nil {
		panic(err)
	}
	fee, err := collections.Fee(fees, r.Rail, r.Amount)
	if err != nil {
		panic(err)
	}
	c, postings, event, err := collections.Settle("c-1", "org-1", r, fee, now)
	if err != nil {
		panic(err)
	}
	fmt.Println(event, c.Rail, c.AmountMWK, "-", c.Fee, "=", c.AmountCredited)
	printPostings(postings)

	c, postings, event, _ = collections.Reverse(c)
	fmt.Println(event, c.Status)
	printPostings(postings)
	_, _, _, err = collections.Reverse(c)
	fmt.Println(errcode.Of(err), errcode.Message(err))

	d := collections.Deposit{Network: "tron", Asset: "USDT", Amount: money.FromUnits(money.USDT, 25_500000), TxRef: "0xabc"}
	n, _, err := d.Check(networks.Default(), money.DefaultAssets())
	if err != nil {
		panic(err)
	}
	fee, err = collections.FeeV2(fees, d.Amount)
	if err != nil {
		panic(err)
	}
	v2, postings, event, err := collections.SettleV2("c-2", "org-1", d.Amount, fee, n.ID, collections.SourceDeposit, now)
	if err != nil {
		panic(err)
	}
	fmt.Println(event, v2.Source, v2.Network, v2.Asset, v2.AmountCredited)
	printPostings(postings)

	first := d.Recorded("org-1", v2.ID)
	id, _ := d.Replay("org-1", first)
	fmt.Println("again:", id)
	d.Amount = money.FromUnits(money.USDT, 26_000000)
	_, err = d.Replay("org-1", first)
	fmt.Println(errcode.Of(err), errcode.Message(err))
	// Output:
	// collection.settled momo 10000.00 - 150.00 = 9850.00
	//   credit collection:c-1 10000.00 fee 150.00 from external
	// collection.reversed reversed
	//   reverse collection:c-1:reverse of collection:c-1
	// conflict This collection is already reversed.
	// collection_v2.settled deposit tron USDT 25.500000
	//   credit collection_v2:c-2 25.500000 fee 0.000000 from external
	// again: c-2
	// conflict The deposit 0xabc on tron was recorded with other figures.
}
