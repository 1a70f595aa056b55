package quotes_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

func TestDefaultClasses(t *testing.T) {
	cs := quotes.DefaultClasses()
	c, ok := cs.Lookup("MWK")
	assert.True(t, ok)
	assert.Equal(t, quotes.Fiat, c)
	c, ok = cs.Lookup("USDT")
	assert.True(t, ok)
	assert.Equal(t, quotes.Stablecoin, c)
	_, ok = cs.Lookup("EUR")
	assert.False(t, ok)
	_, ok = quotes.Classes{"X": "commodity"}.Lookup("X")
	assert.False(t, ok, "an invalid class is no class")
}

func TestCheckCode(t *testing.T) {
	tests := []struct {
		code string
		ok   bool
		msg  string
	}{
		{code: "USDT", ok: true},
		{code: "MWK", ok: true},
		{code: "A", ok: true},
		{code: "ABCDEFGHIJ12", ok: true},
		{code: "1INCH", ok: true},
		{code: "", msg: `Asset code "" is not supported`},
		{code: "usdt", msg: `Asset code "usdt" is not supported`},
		{code: "Usdt"},
		{code: "USDT-TRC20", msg: `Asset code "USDT-TRC20" is not supported`},
		{code: "USDT_TRC20"},
		{code: "USDT TRC20"},
		{code: "ABCDEFGHIJ123"},
		{code: "MWK\n"},
		{code: "ÜSDT"},
		{code: strings.Repeat("X", 1000), msg: `Asset code "` + strings.Repeat("X", 24) + `"... is not supported`},
		{code: "\xff\xfe", msg: `Asset code "\xff\xfe" is not supported`},
		{code: strings.Repeat("é", 30), msg: `Asset code "` + strings.Repeat("é", 12) + `"... is not supported`},
	}
	for _, tc := range tests {
		err := quotes.CheckCode(money.AssetCode(tc.code))
		if tc.ok {
			assert.NoError(t, err, tc.code)
			continue
		}
		requireCode(t, err, errcode.UnsupportedAsset)
		if tc.msg != "" {
			assert.True(t, strings.HasPrefix(errcode.Message(err), tc.msg), "message %q", errcode.Message(err))
		}
		assert.LessOrEqual(t, len(errcode.Message(err)), 200)
	}
}

func TestClassify(t *testing.T) {
	cs := quotes.Classes{"MWK": quotes.Fiat, "ZMW": quotes.Fiat, "USDT": quotes.Stablecoin, "USDC": quotes.Stablecoin}
	tests := []struct {
		from, to   string
		dir        quotes.Direction
		fiat, coin string
		msg        string
	}{
		{from: "USDT", to: "MWK", dir: quotes.ToBank, fiat: "MWK", coin: "USDT"},
		{from: "MWK", to: "USDT", dir: quotes.FromBank, fiat: "MWK", coin: "USDT"},
		{from: "USDC", to: "ZMW", dir: quotes.ToBank, fiat: "ZMW", coin: "USDC"},
		{from: "USDT", to: "USDT", msg: "USDT to USDT is not a supported pair: the two assets must differ."},
		{from: "MWK", to: "MWK"},
		{from: "MWK", to: "ZMW", msg: "MWK to ZMW is not a supported pair: both are corridor currencies; a pair must be one corridor currency and one stablecoin."},
		{from: "USDT", to: "USDC", msg: "USDT to USDC is not a supported pair: both are stablecoins; a pair must be one corridor currency and one stablecoin."},
		{from: "USDT", to: "EUR"},
		{from: "BTC", to: "MWK"},
		{from: "BTC", to: "EUR"},
		{from: "usdt", to: "MWK", msg: `"usdt" to MWK is not a supported pair: a pair must be one corridor currency and one stablecoin.`},
	}
	for _, tc := range tests {
		dir, fiat, coin, err := quotes.Classify(money.AssetCode(tc.from), money.AssetCode(tc.to), cs)
		if tc.dir == "" {
			requireCode(t, err, errcode.UnsupportedPair)
			if tc.msg != "" {
				assert.Equal(t, tc.msg, errcode.Message(err))
			}
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.dir, dir)
		assert.Equal(t, tc.fiat, string(fiat))
		assert.Equal(t, tc.coin, string(coin))
	}
}

func TestPairOf(t *testing.T) {
	p, err := quotes.PairOf(money.USDT, money.MWK, quotes.DefaultClasses())
	require.NoError(t, err)
	assert.Equal(t, quotes.Pair{Direction: quotes.ToBank, From: money.USDT, To: money.MWK}, p)
	assert.Equal(t, money.MWK, p.Fiat())
	assert.Equal(t, money.USDT, p.Stablecoin())
	p, err = quotes.PairOf(money.MWK, money.USDT, quotes.DefaultClasses())
	require.NoError(t, err)
	assert.Equal(t, quotes.FromBank, p.Direction)
	assert.Equal(t, money.MWK, p.Fiat())
	assert.Equal(t, money.USDT, p.Stablecoin())
	_, err = quotes.PairOf(money.MWK, money.MWK, quotes.DefaultClasses())
	requireCode(t, err, errcode.UnsupportedPair)
}
