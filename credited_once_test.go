package tambala_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// TestFundOnceAndRecordDeposit: the operator's credits under a
// reference tell a caller whether this call credited the money or found
// it credited before under the reference (nothing more moves), so that
// a repeated funding or deposit is reported as already credited.
func TestFundOnceAndRecordDeposit(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		ctx := context.Background()
		e, err := tambala.New(s, nil)
		require.NoError(t, err)
		op := e.Operator()
		org, err := op.CreateOrganization(ctx, tambala.NewOrganization{Name: "Chanco Traders", V2Access: tambala.V2Enabled,
			Assets: []tambala.AssetAccess{
				{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection}},
				{Asset: "USDT", Operations: []string{tambala.OpCollection}},
			}})
		require.NoError(t, err)
		available := func(asset money.Asset) string {
			t.Helper()
			bs, err := e.Client(mustAct(t, e, org.ID)).Balances(ctx)
			require.NoError(t, err)
			for _, b := range bs {
				if b.Asset.Code == asset.Code {
					return b.Available.String()
				}
			}
			return "none"
		}

		amount := money.FromInt(money.MWK, 5000)
		first, err := op.FundOnce(ctx, org.ID, amount, "wire-1")
		require.NoError(t, err)
		assert.False(t, first.Replayed, "the first funding credits")
		assert.Equal(t, "5000.00", first.Resource.Amount.String())
		assert.Equal(t, "wire-1", first.Resource.Ref)
		again, err := op.FundOnce(ctx, org.ID, amount, "wire-1")
		require.NoError(t, err)
		assert.True(t, again.Replayed, "the same reference again credits nothing")
		require.NoError(t, op.Fund(ctx, org.ID, amount, "wire-1"))
		assert.Equal(t, "5000.00", available(money.MWK))
		_, err = op.FundOnce(ctx, org.ID, money.FromInt(money.MWK, 99), "wire-1")
		assert.Equal(t, errcode.Conflict, errcode.Of(err), "another amount under the reference")
		other, err := op.FundOnce(ctx, org.ID, amount, "wire-2")
		require.NoError(t, err)
		assert.False(t, other.Replayed)
		assert.Equal(t, "10000.00", available(money.MWK))

		dep := tambala.Deposit{Network: "tron", Asset: "USDT", Amount: money.FromInt(money.USDT, 25), TxRef: "0xabc"}
		c1, err := op.Desk().RecordDeposit(ctx, org.ID, dep)
		require.NoError(t, err)
		assert.False(t, c1.Replayed, "the first deposit credits")
		c2, err := op.Desk().RecordDeposit(ctx, org.ID, dep)
		require.NoError(t, err)
		assert.True(t, c2.Replayed, "the same transaction again credits nothing")
		assert.Equal(t, c1.Resource.ID, c2.Resource.ID, "and is the first collection")
		c3, err := op.Desk().RecordDeposit(ctx, org.ID, dep)
		require.NoError(t, err)
		assert.Equal(t, c1.Resource.ID, c3.Resource.ID)
		assert.Equal(t, "25.000000", available(money.USDT))
	})
}

// mustAct is e.Act for org.
func mustAct(t *testing.T, e *tambala.Engine, org string) tambala.Principal {
	t.Helper()
	p, err := e.Act(context.Background(), org)
	require.NoError(t, err)
	return p
}
