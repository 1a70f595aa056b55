package ledger_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// TestShortfall: a charge beyond available becomes a shortfall; the next
// credits cover it first; Check holds throughout.
func TestShortfall(t *testing.T) {
	s := memstore.New()
	ctx := context.Background()
	m := func(v string) money.Amount {
		a, err := money.Parse(money.MWK, v)
		require.NoError(t, err)
		return a
	}
	post := func(c ledger.Command) {
		t.Helper()
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { _, err := ledger.Post(tx, c); return err }))
		require.NoError(t, ledger.CheckStore(ctx, s))
	}
	bal := func() ledger.Balance {
		var b ledger.Balance
		require.NoError(t, s.View(ctx, func(tx store.Tx) error {
			var err error
			b, err = ledger.ReadBalance(tx, "o", money.MWK)
			return err
		}))
		return b
	}
	post(ledger.Credit{EntryID: "c1", Org: "o", Amount: m("10.00")})
	post(ledger.Charge{EntryID: "f1", Org: "o", Amount: m("4.00")})
	b := bal()
	assert.Equal(t, "6.00", b.Available.String())
	assert.Equal(t, "0.00", b.Shortfall.String())
	post(ledger.Charge{EntryID: "f2", Org: "o", Amount: m("9.50")})
	b = bal()
	assert.Equal(t, "0.00", b.Available.String())
	assert.Equal(t, "3.50", b.Shortfall.String())
	// A hold cannot use money the organization owes.
	err := s.Update(ctx, func(tx store.Tx) error {
		_, err := ledger.Post(tx, ledger.PlaceHold{EntryID: "h", HoldID: "h", Org: "o", Amount: m("0.01")})
		return err
	})
	assert.ErrorIs(t, err, ledger.ErrInsufficientFunds)
	post(ledger.Credit{EntryID: "c2", Org: "o", Amount: m("2.00")})
	b = bal()
	assert.Equal(t, "0.00", b.Available.String())
	assert.Equal(t, "1.50", b.Shortfall.String())
	post(ledger.Credit{EntryID: "c3", Org: "o", Amount: m("5.00"), Fee: m("0.50")})
	b = bal()
	assert.Equal(t, "3.00", b.Available.String()) // 4.50 net, 1.50 to the shortfall
	assert.Equal(t, "0.00", b.Shortfall.String())
	// Reversing the credit that covered the shortfall restores it.
	post(ledger.Reverse{EntryID: "r3", Of: "c3"})
	b = bal()
	assert.Equal(t, "0.00", b.Available.String())
	assert.Equal(t, "1.50", b.Shortfall.String())
	// A replayed charge is a no-op.
	post(ledger.Charge{EntryID: "f2", Org: "o", Amount: m("9.50")})
	assert.Equal(t, "1.50", bal().Shortfall.String())
}

func TestCheckFindsPositiveShortfall(t *testing.T) {
	acct := ledger.OrgAccount("o", ledger.Shortfall, money.MWK)
	snap := ledger.Snapshot{
		Balances: []ledger.BalanceChange{{Account: acct, Balance: money.FromInt(money.MWK, 1)}},
		Entries: []ledger.Entry{{ID: "e", Kind: ledger.KindCredit, Postings: []ledger.Posting{
			{Account: acct, Amount: money.FromInt(money.MWK, 1)},
			{Account: ledger.SystemAccount(ledger.External, money.MWK), Amount: money.FromInt(money.MWK, -1)},
		}}},
	}
	err := ledger.Check(snap)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "org/o/shortfall/MWK is positive")
}
