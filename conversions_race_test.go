package tambala_test

import (
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

// Conversions racing on one balance never overdraw it: of 12 conversions
// of 100 USDT against 1000 USDT, exactly 10 are accepted, and the rest are
// insufficient_funds.
func TestConversionRace_OneBalance(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		qs := make([]quotes.Quote, 12)
		for i := range qs {
			var err error
			qs[i], err = c.cquote(c.p, "USDT", "MWK", strp("100"), nil)
			require.NoError(t, err)
		}
		var mu sync.Mutex
		codes := map[errcode.Code]int{}
		var wg sync.WaitGroup
		for i := range qs {
			wg.Go(func() {
				_, err := c.e.CreateConversion(c.ctx, c.p, tambala.NewConversion{QuoteID: qs[i].ID}, tambala.Idempotency{Key: "race-" + qs[i].ID})
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					codes["ok"]++
				} else {
					codes[errcode.Of(err)]++
				}
			})
		}
		wg.Wait()
		assert.Equal(t, map[errcode.Code]int{"ok": 10, errcode.InsufficientFunds: 2}, codes)
		c.requireBal(t, money.USDT, "0.000000", "1000.000000")
		c.check(t)
		c.settle(t)
		c.requireBal(t, money.USDT, "0.000000", "0.000000")
		c.check(t)
	})
}

// One quote executed under two keys at once: one conversion, one
// quote_used, one hold.
func TestConversionRace_OneQuoteTwoKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		for round := 0; round < 5; round++ {
			q, err := c.cquote(c.p, "USDT", "MWK", strp("10"), nil)
			require.NoError(t, err)
			errs := make([]error, 2)
			keys := []string{c.next("two"), c.next("two")}
			var wg sync.WaitGroup
			for i := range errs {
				wg.Go(func() {
					_, errs[i] = c.e.CreateConversion(c.ctx, c.p, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: keys[i]})
				})
			}
			wg.Wait()
			ok, used := 0, 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case errcode.Of(err) == errcode.QuoteUsed:
					used++
				default:
					t.Fatalf("unexpected error %v", err)
				}
			}
			assert.Equal(t, 1, ok)
			assert.Equal(t, 1, used)
		}
		pg, err := c.e.Conversions(c.ctx, c.p, tambala.PageRequest{}, tambala.ConversionFilter{})
		require.NoError(t, err)
		assert.Len(t, pg.Items, 5)
		c.requireBal(t, money.USDT, "950.000000", "50.000000")
		c.check(t)
	})
}

// Two workers over one store: each conversion ends once.
func TestConversionRace_TwoWorkers(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		c := newConvEnv(t, s)
		for i := 0; i < 6; i++ {
			c.convert(t, "USDT", "MWK", "10")
		}
		c.clock.Advance(convDelay)
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for range 3 {
					_, err := c.e.ProcessConversions(c.ctx)
					assert.NoError(t, err)
				}
			})
		}
		wg.Wait()
		c.clock.Advance(convDelay)
		_, err := c.e.ProcessConversions(c.ctx)
		require.NoError(t, err)
		c.requireBal(t, money.USDT, "940.000000", "0.000000")
		c.requireBal(t, money.MWK, "205030.00", "0.00")
		c.check(t)
	})
}
