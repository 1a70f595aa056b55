package ledger_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// Post a collection and a hold for a payout in one transaction, then read
// the organization's balance.
func ExamplePost() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()

	amount, _ := money.Parse(money.MWK, "1000.00")
	payout, _ := money.Parse(money.MWK, "250.00")
	err := s.Update(ctx, func(tx store.Tx) error {
		if _, err := ledger.Post(tx, ledger.Credit{EntryID: "dep-1", Org: "acme", Amount: amount}); err != nil {
			return err
		}
		_, err := ledger.Post(tx, ledger.PlaceHold{EntryID: "hold-po-1", HoldID: "po-1", Org: "acme", Amount: payout})
		return err
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The same hold again under its entry id is a replay: no second effect.
	_ = s.Update(ctx, func(tx store.Tx) error {
		eff, err := ledger.Post(tx, ledger.PlaceHold{EntryID: "hold-po-1", HoldID: "po-1", Org: "acme", Amount: payout})
		fmt.Println("replayed:", eff.Replayed, err)
		return err
	})

	// A hold above what is available is refused.
	tooMuch, _ := money.Parse(money.MWK, "750.01")
	err = s.Update(ctx, func(tx store.Tx) error {
		_, err := ledger.Post(tx, ledger.PlaceHold{EntryID: "hold-po-2", HoldID: "po-2", Org: "acme", Amount: tooMuch})
		return err
	})
	fmt.Println(errors.Is(err, ledger.ErrInsufficientFunds))

	_ = s.View(ctx, func(tx store.Tx) error {
		b, err := ledger.ReadBalance(tx, "acme", money.MWK)
		fmt.Printf("%s available %s, held %s\n", b.Asset, b.Available, b.Held)
		return err
	})
	fmt.Println("check:", ledger.CheckStore(ctx, s))
	// Output:
	// replayed: true <nil>
	// true
	// MWK available 750.00, held 250.00
	// check: <nil>
}

// Check a snapshot whose stored balance disagrees with its journal.
func ExampleCheck() {
	ten, _ := money.Parse(money.MWK, "10.00")
	eleven, _ := money.Parse(money.MWK, "11.00")
	ext := ledger.SystemAccount(ledger.External, money.MWK)
	av := ledger.OrgAccount("acme", ledger.Available, money.MWK)
	snap := ledger.Snapshot{
		Balances: []ledger.BalanceChange{{Account: ext, Balance: ten.Neg()}, {Account: av, Balance: eleven}},
		Entries: []ledger.Entry{{ID: "dep-1", Kind: ledger.KindCredit, Postings: []ledger.Posting{
			{Account: ext, Amount: ten.Neg()}, {Account: av, Amount: ten},
		}}},
	}
	err := ledger.Check(snap)
	var ce *ledger.CheckError
	if errors.As(err, &ce) {
		for _, p := range ce.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// account org/acme/available/MWK holds 11.00, its journal sums to 10.00
}
