package tambala_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// Conversions and /v2 payouts racing on one USDT balance never overdraw
// it: 1000 USDT, twelve conversions and twelve wallet payouts of 100 USDT
// each, all at once: exactly ten are accepted, whatever their kind, and
// the rest are insufficient_funds.
func TestV2Race_ConversionsAndPayoutsOnOneBalance(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		qs := make([]quotes.Quote, 12)
		for i := range qs {
			var err error
			qs[i], err = c.cquote(c.p, "USDT", "MWK", strp("100"), nil)
			require.NoError(t, err)
		}
		var mu sync.Mutex
		codes := map[string]int{}
		record := func(kind string, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				codes["accepted"]++
				codes[kind]++
				return
			}
			codes[string(errcode.Of(err))]++
		}
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Go(func() {
				_, err := c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: qs[i].ID}, tambala.Idempotency{Key: fmt.Sprint("conv-", i)})
				record("conversion", err)
			})
			wg.Go(func() {
				_, err := c.e.Client(c.p).CreatePayout(c.ctx, tambala.PayoutV2Request{SourceAsset: "USDT", Asset: "USDT", Amount: money.DecimalText("100"),
					Destination: tambala.PayoutV2Destination{Type: "wallet", Network: "tron", Address: "TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV"}},
					tambala.Idempotency{Key: fmt.Sprint("pay-", i)})
				record("payout", err)
			})
		}
		wg.Wait()
		assert.Equal(t, 10, codes["accepted"], "%v", codes)
		assert.Equal(t, 14, codes[string(errcode.InsufficientFunds)], "%v", codes)
		c.requireBal(t, money.USDT, "0.000000", "1000.000000")
		c.check(t)
	})
}
