package tambala_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// TestPayoutV2RaceForOneBalance: /v2 payouts, same-asset and FX, race for
// one USDT balance: exactly as many as fit are accepted, the rest are
// insufficient_funds, and the balance never goes below zero.
func TestPayoutV2RaceForOneBalance(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		d := newPV2Env(t, s, nil)
		// 1000 USDT: each wallet payout holds 30 USDT (ethereum: 28.5 +
		// 1.5 fee), each FX bank payout of 50000.00 MWK holds
		// ceil(50000/1750.5) + ceil(fee/1750.5) USDT.
		const racers = 48
		var wg sync.WaitGroup
		results := make([]error, racers)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "USDT", Amount: money.DecimalText("28.5"), Destination: walletDest("ethereum", pv2EVM)}
				if i%2 == 1 {
					req = tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "MWK", Amount: money.DecimalText("50000.00"), Destination: bankDest()}
				}
				var c tambala.Created[tambala.PayoutV2]
				c, results[i] = d.e.Client(d.p).CreatePayout(d.ctx, req, tambala.Idempotency{Key: "race-" + string(rune('A'+i))})
				if results[i] == nil {
					assert.False(t, c.Replayed)
				}
			}()
		}
		wg.Wait()
		held := money.Zero(money.USDT)
		accepted := 0
		for _, err := range results {
			if err != nil {
				assert.Equal(t, errcode.InsufficientFunds, errcode.Of(err), err.Error())
				continue
			}
			accepted++
		}
		page, err := d.e.Client(d.p).Payouts(d.ctx, tambala.PageRequest{Limit: 100}, tambala.PayoutFilter{})
		require.NoError(t, err)
		require.Len(t, page.Items, accepted)
		for _, p := range page.Items {
			held, _ = held.Add(p.SourceAmount)
		}
		b := d.balance(t, d.org.ID, money.USDT)
		assert.Equal(t, held.String(), b.Held.String())
		assert.GreaterOrEqual(t, b.Available.Sign(), 0)
		sum, _ := b.Available.Add(b.Held)
		assert.Equal(t, "1000.000000", sum.String())
		assert.Less(t, accepted, racers)
		// a refusal means what is left is below the largest payout (30 USDT)
		assert.Negative(t, b.Available.Cmp(money.FromInt(money.USDT, 30)))
		d.check(t)
	})
}
