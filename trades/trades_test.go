package trades_test

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/trades"
	"github.com/tambalapay/tambala/webhooks"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func usdt(s string) money.Amount {
	a, err := money.Parse(money.USDT, s)
	if err != nil {
		panic(err)
	}
	return a
}

func params(ref, amount, rate string) trades.Params {
	return trades.Params{Ref: ref, USDTAmount: usdt(amount), ClientRate: money.MustRate(rate)}
}

// TestCheck is the table of what a trade may be, each failure with its
// code and message, in the order they are checked.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     trades.Params
		whole int64
		code  errcode.Code
		msg   string
	}{
		{"rounded down", params("otc-1", "100.50", "1750.25"), 175900, "", ""},
		{"whole rate", params("otc-1", "2", "1800"), 3600, "", ""},
		{"just one kwacha", params("otc-1", "0.000001", "1000000"), 1, "", ""},
		{"ref of 128 bytes", params(strings.Repeat("r", 128), "1", "1750"), 1750, "", ""},
		{"no ref", params("", "1", "1750"), 0, errcode.ValidationError, "ref must be 1 to 128 characters."},
		{"long ref", params(strings.Repeat("r", 129), "1", "1750"), 0, errcode.ValidationError, "ref must be 1 to 128 characters."},
		{"ref with a control character", params("otc\x07", "1", "1750"), 0, errcode.ValidationError, ""},
		{"no amount", trades.Params{Ref: "r", ClientRate: money.MustRate("1750")}, 0, errcode.ValidationError,
			"usdt_amount must be a positive USDT amount."},
		{"zero amount", trades.Params{Ref: "r", USDTAmount: money.Zero(money.USDT), ClientRate: money.MustRate("1750")}, 0,
			errcode.ValidationError, "usdt_amount must be a positive USDT amount."},
		{"MWK amount", trades.Params{Ref: "r", USDTAmount: money.FromInt(money.MWK, 5), ClientRate: money.MustRate("1750")}, 0,
			errcode.ValidationError, "usdt_amount must be a positive USDT amount."},
		{"no rate", trades.Params{Ref: "r", USDTAmount: usdt("1")}, 0, errcode.ValidationError, "client_rate must be positive."},
		{"amount above the maximum", params("r", "1000000000001", "1"), 0, errcode.LimitExceeded,
			"The amount is above the maximum: usdt_amount must be at most 1000000000000.000000 USDT."},
		{"kwacha above the maximum", params("r", "1000000000", "1750"), 0, errcode.LimitExceeded,
			"The amount is above the maximum: the MWK amount at client_rate must be at most 1000000000000 MWK."},
		{"under one kwacha", params("r", "0.000001", "1"), 0, errcode.ValidationError,
			"The trade must be worth at least 1 whole kwacha."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, err := trades.Check(tc.p)
			if tc.code == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.whole, whole)
				return
			}
			assert.Equal(t, tc.code, errcode.Of(err), "%v", err)
			if tc.msg != "" {
				assert.Equal(t, tc.msg, errcode.Message(err))
			}
			_, _, _, newErr := trades.New("t1", "org", tc.p, t0)
			assert.Equal(t, err, newErr, "New refuses what Check refuses, with the same error")
		})
	}
}

func TestNew(t *testing.T) {
	p := params("otc-1", "100.50", "1750.25")
	tr, ps, event, err := trades.New("t1", "org", p, t0)
	require.NoError(t, err)
	assert.Equal(t, trades.Trade{ID: "t1", Org: "org", Ref: "otc-1", USDTAmount: p.USDTAmount, ClientRate: p.ClientRate,
		MWKAmount: 175900, Status: trades.Settled, CreatedAt: t0, SettledAt: t0}, tr)
	assert.Equal(t, []trades.Posting{{Kind: orders.KindCredit, EntryID: "trade:t1", Org: "org",
		Amount: money.FromInt(money.MWK, 175900), System: trades.Float, Ref: "t1"}}, ps)
	assert.Equal(t, trades.EventSettled, event)
	assert.Equal(t, webhooks.TradeSettled, event, "the event is the webhook's type")
	assert.Equal(t, "trade:t1", trades.EntryID("t1"))
}

// TestReplay: the same figures, however written, give the first trade;
// other figures are conflict.
func TestReplay(t *testing.T) {
	first, _, _, err := trades.New("t1", "org", params("otc-1", "100.50", "1750.25"), t0)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		p      trades.Params
		replay bool
	}{
		{"same", params("otc-1", "100.50", "1750.25"), true},
		{"written otherwise", params("otc-1", "100.5", "1750.250"), true},
		{"amount of more decimals", trades.Params{Ref: "otc-1", USDTAmount: money.FromUnits(money.Asset{Code: "USDT", Decimals: 8}, 100_50000000),
			ClientRate: money.MustRate("1750.25")}, true},
		{"other amount", params("otc-1", "200", "1750.25"), false},
		{"other rate", params("otc-1", "100.50", "1750.26"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := trades.Replay(first, tc.p)
			if tc.replay {
				require.NoError(t, err)
				assert.Equal(t, first, got)
				return
			}
			assert.Equal(t, errcode.Conflict, errcode.Of(err))
			assert.Equal(t, "This trade ref was already recorded with other figures.", errcode.Message(err))
			assert.Equal(t, trades.Trade{}, got)
		})
	}
}

// TestTradeProperties: for any amount and rate, a trade that Check accepts
// is worth the floor of amount × rate in whole kwacha, at least 1 and at
// most the maximum, and New credits exactly that once, from the float,
// under the trade's own entry; a trade Check refuses is worth less than 1
// kwacha or above a maximum. Recording it again is a replay; changing
// either figure is conflict.
func TestTradeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Mostly up to a million USDT, sometimes up to 2·10^12.
		units := rapid.OneOf(rapid.Int64Range(1, 1_000_000_000_000), rapid.Int64Range(1, 2_000_000_000_000_000)).Draw(t, "micro-usdt")
		rateUnits := rapid.Int64Range(1, 5_000_000_000).Draw(t, "rate-units")
		rateScale := rapid.IntRange(0, 6).Draw(t, "rate-scale")
		rate := new(big.Rat).SetFrac(big.NewInt(rateUnits), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(rateScale)), nil))
		p := trades.Params{Ref: "r", USDTAmount: money.FromUnits(money.USDT, units), ClientRate: money.MustRate(rate.FloatString(rateScale))}

		worth := new(big.Rat).Mul(new(big.Rat).SetFrac(big.NewInt(units), big.NewInt(1_000_000)), rate)
		floor := new(big.Int).Quo(worth.Num(), worth.Denom())
		max := big.NewInt(money.MaxWholeUnits)

		id := rapid.StringMatching(`[a-z0-9]{1,12}`).Draw(t, "id")
		tr, ps, event, err := trades.New(id, "org", p, t0)
		switch {
		case units > money.MaxWholeUnits*1_000_000:
			require.Equal(t, errcode.LimitExceeded, errcode.Of(err))
			return
		case floor.Cmp(max) > 0:
			require.Equal(t, errcode.LimitExceeded, errcode.Of(err))
			return
		case floor.Sign() == 0:
			require.Equal(t, errcode.ValidationError, errcode.Of(err))
			return
		}
		require.NoError(t, err)
		require.Equal(t, floor.Int64(), tr.MWKAmount)
		require.Equal(t, trades.EventSettled, event)
		require.Len(t, ps, 1)
		require.Equal(t, trades.Posting{Kind: orders.KindCredit, EntryID: trades.EntryID(id), Org: "org",
			Amount: money.FromInt(money.MWK, floor.Int64()), System: trades.Float, Ref: id}, ps[0])

		again, err := trades.Replay(tr, p)
		require.NoError(t, err)
		require.Equal(t, tr, again)
		other := p
		if rapid.Bool().Draw(t, "change the amount") {
			other.USDTAmount = money.FromUnits(money.USDT, units+1)
		} else {
			other.ClientRate = money.MustRate(new(big.Rat).Add(rate, big.NewRat(1, 1_000_000)).FloatString(6))
		}
		_, err = trades.Replay(tr, other)
		require.Equal(t, errcode.Conflict, errcode.Of(err))
	})
}
