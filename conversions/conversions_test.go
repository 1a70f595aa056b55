package conversions_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/conversions"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/quotes"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func quote(usdtUnits int64, rate string) quotes.Quote {
	from := money.FromUnits(money.USDT, usdtUnits)
	r := money.MustRate(rate)
	to, err := money.Mul(from, r, money.MWK, money.RoundDown)
	if err != nil {
		panic(err)
	}
	return quotes.Quote{ID: "q1", From: from, To: to, Rate: r}
}

func TestNew(t *testing.T) {
	c, ps := conversions.New("c1", "org", quote(2_000_000, "1750.5"), t0)
	assert.Equal(t, conversions.Processing, c.Status)
	assert.False(t, c.Status.Terminal())
	assert.Equal(t, "2.000000", c.From.String())
	assert.Equal(t, "3501.00", c.To.String())
	assert.Equal(t, t0, c.CreatedAt)
	assert.Equal(t, []conversions.Posting{{Kind: orders.KindPlaceHold, EntryID: "conversion:c1:hold", HoldID: "conversion:c1:hold",
		Org: "org", Amount: c.From, Ref: "c1"}}, ps)
}

// TestMoves is the table of every move from every status.
func TestMoves(t *testing.T) {
	t1 := t0.Add(time.Minute)
	base, _ := conversions.New("c1", "org", quote(2_000_000, "1750.5"), t0)
	for _, tc := range []struct {
		name     string
		from     conversions.Status
		move     func(conversions.Conversion) (conversions.Conversion, []conversions.Posting, string, error)
		to       conversions.Status
		event    string
		postings []orders.PostingKind
		failure  string
	}{
		{"complete", conversions.Processing, func(c conversions.Conversion) (conversions.Conversion, []conversions.Posting, string, error) {
			return conversions.Complete(c, t1)
		}, conversions.Completed, conversions.EventCompleted, []orders.PostingKind{orders.KindCaptureHold, orders.KindCredit}, ""},
		{"fail declined", conversions.Processing, func(c conversions.Conversion) (conversions.Conversion, []conversions.Posting, string, error) {
			return conversions.Fail(c, conversions.FailureProviderDeclined, t1)
		}, conversions.Failed, conversions.EventFailed, []orders.PostingKind{orders.KindReleaseHold}, conversions.FailureProviderDeclined},
		{"fail other code", conversions.Processing, func(c conversions.Conversion) (conversions.Conversion, []conversions.Posting, string, error) {
			return conversions.Fail(c, "liquidity", t1)
		}, conversions.Failed, conversions.EventFailed, []orders.PostingKind{orders.KindReleaseHold}, conversions.FailureOther},
		{"complete completed", conversions.Completed, func(c conversions.Conversion) (conversions.Conversion, []conversions.Posting, string, error) {
			return conversions.Complete(c, t1)
		}, conversions.Completed, "", nil, ""},
		{"fail completed", conversions.Completed, func(c conversions.Conversion) (conversions.Conversion, []conversions.Posting, string, error) {
			return conversions.Fail(c, "x", t1)
		}, conversions.Completed, "", nil, ""},
		{"complete failed", conversions.Failed, func(c conversions.Conversion) (conversions.Conversion, []conversions.Posting, string, error) {
			return conversions.Complete(c, t1)
		}, conversions.Failed, "", nil, ""},
		{"fail failed", conversions.Failed, func(c conversions.Conversion) (conversions.Conversion, []conversions.Posting, string, error) {
			return conversions.Fail(c, "x", t1)
		}, conversions.Failed, "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.Status = tc.from
			got, ps, event, err := tc.move(c)
			if tc.event == "" {
				require.True(t, errors.Is(err, conversions.ErrEnded), "%v", err)
				assert.Equal(t, c, got, "an ended conversion is left as it was")
				assert.Empty(t, ps)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.to, got.Status)
			assert.True(t, got.Status.Terminal())
			assert.Equal(t, tc.event, event)
			assert.Equal(t, t1, got.UpdatedAt)
			assert.Equal(t, t0, got.CreatedAt)
			var kinds []orders.PostingKind
			for _, p := range ps {
				kinds = append(kinds, p.Kind)
				assert.Equal(t, "c1", p.Ref)
			}
			assert.Equal(t, tc.postings, kinds)
			if tc.failure == "" {
				assert.Nil(t, got.Failure)
			} else {
				require.NotNil(t, got.Failure)
				assert.Equal(t, tc.failure, got.Failure.Code)
				assert.NotEmpty(t, got.Failure.Message)
			}
		})
	}
}

// TestPostingsBalance: whatever the conversion and however it ends, the
// hold is placed once and settled once (captured whole, or released), the
// credit is the quote's To, every entry id is distinct, and an ended
// conversion refuses every further move.
func TestPostingsBalance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		units := rapid.Int64Range(1, 1_000_000_000_000).Draw(t, "units")
		rate := rapid.SampledFrom([]string{"1", "1750.5", "0.000571", "1999.999999"}).Draw(t, "rate")
		q := quote(units, rate)
		c, ps := conversions.New("c", "org", q, t0)
		ids := map[string]bool{}
		var held, captured money.Amount = money.Zero(money.USDT), money.Zero(money.USDT)
		released := 0
		credited := money.Zero(money.MWK)
		apply := func(ps []conversions.Posting) {
			for _, p := range ps {
				require.False(t, ids[p.EntryID], "entry %s posted twice", p.EntryID)
				ids[p.EntryID] = true
				switch p.Kind {
				case orders.KindPlaceHold:
					held = p.Amount
				case orders.KindCaptureHold:
					captured = p.Amount
				case orders.KindReleaseHold:
					released++
				case orders.KindCredit:
					credited = p.Amount
				}
			}
		}
		apply(ps)
		for i := range rapid.IntRange(1, 4).Draw(t, "moves") {
			var next []conversions.Posting
			var err error
			was := c
			if rapid.Bool().Draw(t, "complete") {
				c, next, _, err = conversions.Complete(c, t0.Add(time.Duration(i+1)*time.Second))
			} else {
				c, next, _, err = conversions.Fail(c, rapid.SampledFrom([]string{"provider_declined", "other", "x"}).Draw(t, "code"), t0)
			}
			if was.Status.Terminal() {
				require.ErrorIs(t, err, conversions.ErrEnded)
				require.Equal(t, was, c)
			} else {
				require.NoError(t, err)
			}
			apply(next)
		}
		require.True(t, c.Status.Terminal())
		require.Equal(t, q.From, held)
		switch c.Status {
		case conversions.Completed:
			require.Equal(t, held, captured, "the capture takes the whole hold")
			require.Equal(t, q.To, credited)
			require.Zero(t, released)
		case conversions.Failed:
			require.Equal(t, 1, released)
			require.True(t, captured.IsZero())
			require.True(t, credited.IsZero())
		}
	})
}
