package collections_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// books is a model of the ledger accounts the postings move: the
// organization's available balance and the system accounts per asset, and
// the entries posted (a reversal undoes its entry once).
type books struct {
	accounts map[string]money.Amount // "org/ASSET", "external/ASSET", "fees/ASSET"
	entries  map[string]collections.Posting
	reversed map[string]bool
}

func newBooks() *books {
	return &books{accounts: map[string]money.Amount{}, entries: map[string]collections.Posting{}, reversed: map[string]bool{}}
}

func (b *books) add(t *rapid.T, account string, a money.Amount) {
	key := account + "/" + string(a.Asset().Code)
	cur, ok := b.accounts[key]
	if !ok {
		cur = money.Zero(a.Asset())
	}
	sum, err := cur.Add(a)
	require.NoError(t, err)
	b.accounts[key] = sum
}

// post applies ps as the engine's ledger would: a credit moves Amount out
// of External into the organization's account, Fee of it on to fees; a
// reversal undoes the entry it names, once.
func (b *books) post(t *rapid.T, ps []collections.Posting) {
	for _, p := range ps {
		_, dup := b.entries[p.EntryID]
		require.False(t, dup, "entry %s posted twice", p.EntryID)
		b.entries[p.EntryID] = p
		switch p.Kind {
		case collections.KindCredit:
			require.Equal(t, collections.External, p.System)
			require.Equal(t, p.Amount.Asset(), p.Fee.Asset())
			require.True(t, p.Amount.Sign() > 0, "a credit of a positive amount")
			require.True(t, p.Fee.Sign() >= 0 && p.Fee.Cmp(p.Amount) <= 0, "0 <= fee <= amount")
			net, err := p.Amount.Sub(p.Fee)
			require.NoError(t, err)
			b.add(t, "external", p.Amount.Neg())
			b.add(t, p.Org, net)
			b.add(t, "fees", p.Fee)
		case collections.KindReverse:
			of, ok := b.entries[p.Of]
			require.True(t, ok, "a reversal of an entry posted")
			require.False(t, b.reversed[p.Of], "an entry reversed twice")
			b.reversed[p.Of] = true
			net, err := of.Amount.Sub(of.Fee)
			require.NoError(t, err)
			b.add(t, "external", of.Amount)
			b.add(t, of.Org, net.Neg())
			b.add(t, "fees", of.Fee.Neg())
		default:
			t.Fatalf("unknown posting %q", p.Kind)
		}
	}
}

// balanced checks that every asset's accounts sum to zero.
func (b *books) balanced(t *rapid.T) {
	sums := map[money.Asset]money.Amount{}
	for _, a := range b.accounts {
		cur, ok := sums[a.Asset()]
		if !ok {
			cur = money.Zero(a.Asset())
		}
		s, err := cur.Add(a)
		require.NoError(t, err)
		sums[a.Asset()] = s
	}
	for asset, s := range sums {
		require.True(t, s.IsZero(), "%s accounts sum to %s", asset.Code, s)
	}
}

func (b *books) balance(org string, asset money.Asset) money.Amount {
	if a, ok := b.accounts[org+"/"+string(asset.Code)]; ok {
		return a
	}
	return money.Zero(asset)
}

// drawAmount draws a positive amount of asset up to money.Max, often
// small (where the rounding of the fee shows).
func drawAmount(t *rapid.T, asset money.Asset, label string) money.Amount {
	var units int64
	switch rapid.IntRange(0, 2).Draw(t, label+" size") {
	case 0:
		units = rapid.Int64Range(1, 1000).Draw(t, label)
	case 1:
		units = rapid.Int64Range(1, 100_000_000).Draw(t, label)
	default:
		max, _ := money.Max(asset).Units()
		units = rapid.Int64Range(1, max).Draw(t, label)
	}
	return money.FromUnits(asset, units)
}

// TestSettleRapid: a /v1 collection of any valid amount on either rail,
// under the default schedule or any all-in rate up to 100%: the fee is
// between 0 and the amount, credited = amount - fee is never negative,
// and the credit balances (external pays the amount, the organization
// gets the credited amount and fees the fee).
func TestSettleRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := payouts.DefaultFeeSchedule()
		if rapid.Bool().Draw(t, "custom rate") {
			s.CollectionRateAll = money.MustRate(fmt.Sprintf("0.%04d", rapid.IntRange(1, 9999).Draw(t, "rate")))
		}
		rail := rapid.SampledFrom([]payouts.Rail{"", payouts.Momo, payouts.Bank}).Draw(t, "rail")
		r, err := collections.Received{Amount: drawAmount(t, money.MWK, "amount"), Rail: rail}.Check()
		require.NoError(t, err)
		fee, err := collections.Fee(s, r.Rail, r.Amount)
		require.NoError(t, err)
		require.True(t, fee.Sign() >= 0 && fee.Cmp(r.Amount) <= 0, "0 <= fee %s <= amount %s", fee, r.Amount)
		c, ps, event, err := collections.Settle("c1", "org", r, fee, t0)
		require.NoError(t, err)
		require.Equal(t, collections.EventSettled, event)
		require.True(t, c.AmountCredited.Sign() >= 0)
		sum, err := c.AmountCredited.Add(c.Fee)
		require.NoError(t, err)
		require.True(t, sum.Equal(c.AmountMWK), "credited + fee = amount")
		b := newBooks()
		b.post(t, ps)
		b.balanced(t)
		require.True(t, b.balance("org", money.MWK).Equal(c.AmountCredited))
	})
}

// TestReverseOnceRapid: a run of settles and reversal attempts on a few
// collections. A collection is reversed once: the first reversal of a
// settled one succeeds, every later one is conflict (ErrNotSettled) and
// posts nothing; the books balance after every step, and the
// organization holds exactly what its settled collections credited.
func TestReverseOnceRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := payouts.DefaultFeeSchedule()
		b := newBooks()
		var cols []collections.Collection
		for i := range rapid.IntRange(1, 30).Draw(t, "steps") {
			if len(cols) == 0 || rapid.Bool().Draw(t, "settle") {
				r := collections.Received{Amount: drawAmount(t, money.MWK, "amount"), Rail: payouts.Momo}
				fee, err := collections.Fee(s, r.Rail, r.Amount)
				require.NoError(t, err)
				c, ps, _, err := collections.Settle(fmt.Sprint("c", i), "org", r, fee, t0)
				require.NoError(t, err)
				b.post(t, ps)
				cols = append(cols, c)
			} else {
				k := rapid.IntRange(0, len(cols)-1).Draw(t, "which")
				was := cols[k]
				got, ps, event, err := collections.Reverse(was)
				if was.Status == collections.Settled {
					require.NoError(t, err)
					require.Equal(t, collections.Reversed, got.Status)
					require.Equal(t, collections.EventReversed, event)
					require.Len(t, ps, 1)
				} else {
					require.ErrorIs(t, err, collections.ErrNotSettled)
					require.Equal(t, errcode.Conflict, errcode.Of(err))
					require.Empty(t, ps)
					require.Equal(t, was, got)
				}
				b.post(t, ps)
				cols[k] = got
			}
			b.balanced(t)
			want := money.Zero(money.MWK)
			for _, c := range cols {
				if c.Status == collections.Settled {
					var err error
					want, err = want.Add(c.AmountCredited)
					require.NoError(t, err)
				}
			}
			require.True(t, b.balance("org", money.MWK).Equal(want), "org holds %s, want %s", b.balance("org", money.MWK), want)
		}
	})
}

// TestSettleV2Rapid: a /v2 collection of any valid amount of MWK or a
// stablecoin, whatever the schedule's rate (even above 100%): FeeV2
// either refuses it (validation_error, MWK only) or gives 0 <= fee <=
// amount, 0 for a stablecoin; SettleV2 then credits amount - fee >= 0 and
// its posting balances.
func TestSettleV2Rapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := payouts.DefaultFeeSchedule()
		rate := rapid.IntRange(1, 29999).Draw(t, "rate") // 0.0001 to 2.9999
		s.CollectionRateAll = money.MustRate(fmt.Sprintf("%d.%04d", rate/10000, rate%10000))
		asset := rapid.SampledFrom([]money.Asset{money.MWK, money.USDT, {Code: "USDC", Decimals: 6}}).Draw(t, "asset")
		amount := drawAmount(t, asset, "amount")
		fee, err := collections.FeeV2(s, amount)
		if err != nil {
			require.Equal(t, money.MWK, asset, "only MWK pays a fee")
			require.Equal(t, errcode.ValidationError, errcode.Of(err))
			require.ErrorIs(t, err, collections.ErrBelowFee)
			return
		}
		require.Equal(t, asset, fee.Asset())
		require.True(t, fee.Sign() >= 0 && fee.Cmp(amount) <= 0, "0 <= fee %s <= amount %s", fee, amount)
		if asset != money.MWK {
			require.True(t, fee.IsZero())
		}
		network := rapid.SampledFrom([]string{"", "tron"}).Draw(t, "network")
		c, ps, event, err := collections.SettleV2("c1", "org", amount, fee, network, collections.SourceDeposit, t0)
		require.NoError(t, err)
		require.Equal(t, collections.EventV2Settled, event)
		require.Equal(t, asset, c.Asset)
		require.Equal(t, network, c.Network)
		require.True(t, c.AmountCredited.Sign() >= 0)
		b := newBooks()
		b.post(t, ps)
		b.balanced(t)
		require.True(t, b.balance("org", asset).Equal(c.AmountCredited))
	})
}

// TestDepositReplayRapid: a deposit recorded again is the first
// collection exactly when the organization, the asset and the amount are
// the first's; anything else is conflict.
func TestDepositReplayRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		draw := func(label string) (string, collections.Deposit) {
			org := rapid.SampledFrom([]string{"org1", "org2"}).Draw(t, label+" org")
			asset := rapid.SampledFrom([]money.Asset{money.USDT, money.MWK}).Draw(t, label+" asset")
			amount := money.FromUnits(asset, rapid.Int64Range(1, 3).Draw(t, label+" amount"))
			return org, collections.Deposit{Network: "tron", Asset: asset.Code, Amount: amount, TxRef: "0xabc"}
		}
		org1, d1 := draw("first")
		org2, d2 := draw("second")
		id, err := d2.Replay(org2, d1.Recorded(org1, "c1"))
		if org1 == org2 && d1.Asset == d2.Asset && d1.Amount.Equal(d2.Amount) {
			require.NoError(t, err)
			require.Equal(t, "c1", id)
		} else {
			require.Equal(t, errcode.Conflict, errcode.Of(err))
			require.Empty(t, id)
		}
	})
}
