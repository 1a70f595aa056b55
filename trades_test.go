package tambala_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/trades"
)

// TestRecordTrade_PostsFromTheFloat: a recorded trade is the trades
// package's, carried whole (its organization and ref too), read back as
// recorded, and its credit leaves the operator's float under the trade's
// entry; a refused trade posts nothing, an unknown organization is
// not_found after the figures are checked.
func TestRecordTrade_PostsFromTheFloat(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	p, _ := orgWithKey(t, e, "A", 0)

	_, err := e.Operator().Desk().RecordTrade(ctx, "nope", newTrade(t, "", "1", "1750"))
	assert.Equal(t, errcode.ValidationError, errcode.Of(err), "the figures are checked before the organization is read")
	_, err = e.Operator().Desk().RecordTrade(ctx, "nope", newTrade(t, "otc-1", "1", "1750"))
	assert.Equal(t, errcode.NotFound, errcode.Of(err))

	tr, err := e.Operator().Desk().RecordTrade(ctx, p.Org.ID, newTrade(t, "otc-1", "2", "1750.5"))
	require.NoError(t, err)
	assert.Equal(t, p.Org.ID, tr.Org)
	assert.Equal(t, "otc-1", tr.Ref)
	assert.Equal(t, tambala.TradeSettled, tr.Status)
	assert.Equal(t, trades.Settled, tr.Status)
	assert.Equal(t, int64(3501), tr.MWKAmount)

	list, err := e.Client(p).Trades(ctx, tambala.PageRequest{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, tr, list.Items[0])

	var float money.Amount
	var entry ledger.Entry
	require.NoError(t, e.Settings().Store().View(ctx, func(tx store.Tx) error {
		var err error
		if float, err = ledger.ReadAccount(tx, ledger.SystemAccount(ledger.Float, money.MWK)); err != nil {
			return err
		}
		entry, err = ledger.GetEntry(tx, trades.EntryID(tr.ID))
		return err
	}))
	assert.Equal(t, "-3501.00", float.String(), "the credit comes from the float")
	assert.Equal(t, tr.ID, entry.Ref)
	b, err := e.Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.Equal(t, "3501.00", b.Available.String())
}
