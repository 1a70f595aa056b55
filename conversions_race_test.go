package tambala_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
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
				_, err := c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: qs[i].ID}, tambala.Idempotency{Key: "race-" + qs[i].ID})
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
					_, errs[i] = c.e.Client(c.p).CreateConversion(c.ctx, tambala.NewConversion{QuoteID: q.ID}, tambala.Idempotency{Key: keys[i]})
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
		pg, err := c.e.Client(c.p).Conversions(c.ctx, tambala.PageRequest{}, tambala.ConversionFilter{})
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
					_, err := c.e.Work().ProcessConversions(c.ctx)
					assert.NoError(t, err)
				}
			})
		}
		wg.Wait()
		c.clock.Advance(convDelay)
		_, err := c.e.Work().ProcessConversions(c.ctx)
		require.NoError(t, err)
		c.requireBal(t, money.USDT, "940.000000", "0.000000")
		c.requireBal(t, money.MWK, "205030.00", "0.00")
		c.check(t)
	})
}

// stallingConverter blocks its first Convert until the pass's context ends
// (a worker that dies mid-call), then defers to the sandbox.
type stallingConverter struct {
	*sandbox.Converter
	entered chan struct{}
	stalled atomic.Bool
}

func (s *stallingConverter) Convert(ctx context.Context, r tambala.ConversionRequest) error {
	if s.stalled.CompareAndSwap(false, true) {
		close(s.entered)
		<-ctx.Done()
		return ctx.Err()
	}
	return s.Converter.Convert(ctx, r)
}

// A conversion claimed by a worker that died mid-call stays hidden for the
// lease, then is handed to the converter again under the same reference.
func TestConversionRace_LeaseAfterDeadWorker(t *testing.T) {
	var conv *stallingConverter
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) {
		conv = &stallingConverter{Converter: sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: time.Second}), entered: make(chan struct{})}
		o.Converter = conv
		o.ConversionWorker.Lease = 30 * time.Second
	})
	_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
	require.NoError(t, err)
	c := &convEnv{deskEnv: d}
	cv := c.convert(t, "USDT", "MWK", "10")

	ctx, cancel := context.WithCancel(d.ctx)
	done := make(chan struct{})
	go func() { defer close(done); _, _ = d.e.Work().ProcessConversions(ctx) }()
	<-conv.entered
	cancel()
	<-done

	d.clock.Advance(29 * time.Second)
	n, err := d.e.Work().ProcessConversions(d.ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "still leased")
	d.clock.Advance(2 * time.Second)
	n, err = d.e.Work().ProcessConversions(d.ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	d.clock.Advance(2 * time.Second)
	_, err = d.e.Work().ProcessConversions(d.ctx)
	require.NoError(t, err)
	got, err := d.e.Client(d.p).Conversion(d.ctx, cv.ID)
	require.NoError(t, err)
	assert.Equal(t, tambala.ConversionCompleted, got.Status)
	c.requireBal(t, money.USDT, "990.000000", "0.000000")
	d.check(t)
}
