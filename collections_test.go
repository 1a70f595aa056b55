package tambala_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func TestCollectionsAndTrades(t *testing.T) {
	s := memstore.New()
	e, err := tambala.New(s, nil)
	require.NoError(t, err)
	ctx := context.Background()
	t.Cleanup(func() { require.NoError(t, ledger.CheckStore(ctx, s)) })
	p := fundedPrincipal(t, e, "0.01")

	c, err := e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: mwkAmt(t, "33.33"), Rail: payouts.Bank})
	require.NoError(t, err)
	assert.Equal(t, "settled", string(c.Status))
	assert.Equal(t, "0.50", c.Fee.String())
	net, _ := c.AmountMWK.Sub(c.Fee)
	assert.True(t, net.Equal(c.AmountCredited), "amount_mwk - fee = amount_credited")
	got, err := e.Client(p).V1().Collection(ctx, c.ID)
	require.NoError(t, err)
	assert.Equal(t, c, got)
	list, err := e.Client(p).V1().Collections(ctx, tambala.PageRequest{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, c, list.Items[0])
	_, err = e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{})
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	_, err = e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: mwkAmt(t, "1"), Rail: "carrier-pigeon"})
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))

	b, err := e.Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.Equal(t, "32.84", b.Available.String()) // 0.01 + 32.83

	// A foreign organization's collection is not_found.
	other := fundedPrincipal(t, e, "1.00")
	_, err = e.Client(other).V1().Collection(ctx, c.ID)
	assert.Equal(t, errcode.NotFound, errcode.Of(err))
	_, err = e.Operator().ReverseCollection(ctx, other.Org.ID, c.ID)
	assert.Equal(t, errcode.NotFound, errcode.Of(err))

	rev, err := e.Operator().ReverseCollection(ctx, p.Org.ID, c.ID)
	require.NoError(t, err)
	assert.Equal(t, "reversed", string(rev.Status))
	_, err = e.Operator().ReverseCollection(ctx, p.Org.ID, c.ID)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	b, err = e.Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0.01", b.Available.String())

	// A reversal the balance no longer covers is refused and changes nothing.
	c2, err := e.Client(p).V1().SimulateCollection(ctx, tambala.SimulatedCollection{Amount: mwkAmt(t, "1000")}) // +985.00 -> 985.01
	require.NoError(t, err)
	// A 500.00 momo payout holds 739.70, leaving 245.31 available.
	_, err = createFromBody(ctx, e, p, "momo", "spend", []byte(`{"amount_mwk":500,"institution_id":101,"mobile_number":"265991234567","beneficiary_name":"X"}`))
	require.NoError(t, err)
	_, err = e.Operator().ReverseCollection(ctx, p.Org.ID, c2.ID)
	assert.Equal(t, errcode.InsufficientFunds, errcode.Of(err))
	again, err := e.Client(p).V1().Collection(ctx, c2.ID)
	require.NoError(t, err)
	assert.Equal(t, "settled", string(again.Status))

	// Trades: whole kwacha rounded down, credited once per ref.
	tr, err := e.Operator().Desk().RecordTrade(ctx, p.Org.ID, newTrade(t, "otc-1", "100.50", "1750.25"))
	require.NoError(t, err)
	assert.Equal(t, int64(175900), tr.MWKAmount) // 175900.125 rounded down
	assert.Equal(t, "100.500000", tr.USDTAmount.String())
	same, err := e.Operator().Desk().RecordTrade(ctx, p.Org.ID, newTrade(t, "otc-1", "100.5", "1750.250"))
	require.NoError(t, err)
	assert.Equal(t, tr, same)
	_, err = e.Operator().Desk().RecordTrade(ctx, p.Org.ID, newTrade(t, "otc-1", "200", "1750.25"))
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	_, err = e.Operator().Desk().RecordTrade(ctx, p.Org.ID, newTrade(t, "otc-2", "0.000001", "1"))
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	trades, err := e.Client(p).Trades(ctx, tambala.PageRequest{})
	require.NoError(t, err)
	assert.Len(t, trades.Items, 1)
	b, err = e.Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.Equal(t, "176145.31", b.Available.String()) // 245.31 + 175900
	assert.Equal(t, "739.70", b.Held.String())
}

func mwkAmt(t testing.TB, s string) money.Amount {
	t.Helper()
	a, err := money.Parse(money.MWK, s)
	require.NoError(t, err)
	return a
}

// newTrade parses a trade's figures as the admin binding does; a figure
// that does not parse is left zero, which RecordTrade refuses.
func newTrade(t testing.TB, ref, usdt, rate string) tambala.NewTrade {
	n := tambala.NewTrade{Ref: ref}
	n.USDTAmount, _ = money.Parse(money.USDT, usdt)
	n.ClientRate, _ = money.ParseRate(rate)
	return n
}
