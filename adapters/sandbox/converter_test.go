package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
)

type convClock struct{ t time.Time }

func (c *convClock) Now() time.Time { return c.t }

func TestConverter(t *testing.T) {
	for _, persisted := range []bool{false, true} {
		ctx := context.Background()
		clock := &convClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		st := memstore.New()
		opts := &sandbox.ConverterOptions{Clock: clock.Now, Delay: time.Second}
		if persisted {
			opts.Store = st
		}
		c := sandbox.NewConverter(opts)
		req := tambala.ConversionRequest{Reference: "a", From: money.FromInt(money.USDT, 1), To: money.FromInt(money.MWK, 1750)}

		_, err := c.Status(ctx, "a")
		assert.ErrorIs(t, err, tambala.ErrUnknownReference)
		require.NoError(t, c.Convert(ctx, req))
		s, err := c.Status(ctx, "a")
		require.NoError(t, err)
		assert.Equal(t, tambala.ConverterPending, s.State)

		c.ScriptFailure("b", tambala.ConversionProviderDeclined)
		req.Reference = "b"
		require.NoError(t, c.Convert(ctx, req))
		clock.t = clock.t.Add(500 * time.Millisecond)
		require.NoError(t, c.Convert(ctx, req)) // idempotent: the due time does not move
		clock.t = clock.t.Add(600 * time.Millisecond)

		s, err = c.Status(ctx, "a")
		require.NoError(t, err)
		assert.Equal(t, tambala.ConverterCompleted, s.State)
		s, err = c.Status(ctx, "b")
		require.NoError(t, err)
		assert.Equal(t, tambala.ConverterStatus{State: tambala.ConverterFailed, FailureCode: "provider_declined"}, s)
		assert.Equal(t, 2, c.ConvertCalls("b"))

		if persisted { // a new converter over the same store answers the same
			again := sandbox.NewConverter(opts)
			s, err = again.Status(ctx, "b")
			require.NoError(t, err)
			assert.Equal(t, tambala.ConverterFailed, s.State)
		}
	}
}
