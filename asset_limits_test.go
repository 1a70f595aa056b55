package tambala_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

func TestAssetLimits(t *testing.T) {
	ctx := context.Background()
	e, err := tambala.New(memstore.New(), nil)
	require.NoError(t, err)
	min, max := money.FromInt(money.USDT, 5), money.FromInt(money.USDT, 1000)
	require.NoError(t, e.Operator().Desk().SetAssetLimits(ctx, "USDT", tambala.OpConvert, quotes.Limits{Min: min, Max: max}))
	l, err := e.Operator().Desk().AssetLimits(ctx, "USDT", tambala.OpConvert)
	require.NoError(t, err)
	require.True(t, l.Min.IsSet())
	assert.Equal(t, "5.000000", l.Min.String())
	assert.Equal(t, "1000.000000", l.Max.String())
	none, err := e.Operator().Desk().AssetLimits(ctx, "USDT", tambala.OpPayout)
	require.NoError(t, err)
	assert.False(t, none.Min.IsSet())
	mwk := money.FromInt(money.MWK, 5)
	for name, err := range map[string]error{
		"unknown asset": e.Operator().Desk().SetAssetLimits(ctx, "EURC", tambala.OpConvert, quotes.Limits{}),
		"bad operation": e.Operator().Desk().SetAssetLimits(ctx, "USDT", "collection", quotes.Limits{}),
		"other asset":   e.Operator().Desk().SetAssetLimits(ctx, "USDT", tambala.OpPayout, quotes.Limits{Min: mwk}),
		"min over max":  e.Operator().Desk().SetAssetLimits(ctx, "USDT", tambala.OpPayout, quotes.Limits{Min: max, Max: min}),
	} {
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), name)
	}
	require.NoError(t, e.Operator().Desk().SetAssetLimits(ctx, "USDT", tambala.OpConvert, quotes.Limits{}))
	l, err = e.Operator().Desk().AssetLimits(ctx, "USDT", tambala.OpConvert)
	require.NoError(t, err)
	assert.False(t, l.Min.IsSet(), "unset bounds remove them")
}
