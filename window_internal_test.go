package tambala

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// windowModel is the limit window as it was computed before running sums:
// every call sums every cell, deleting those older than a day (only when
// the payout is counted, since a refusal writes nothing).
type windowModel map[int64]codec.WindowCell

func (m windowModel) check(minute int64, l PayoutLimits, amount money.Amount) (bool, error) {
	cap := l.DailyVolumeMWK
	var err error
	dayStart, hourStart := minute-24*60+1, minute-60+1
	volume, count := money.Zero(money.MWK), uint64(0)
	for at, c := range m {
		if at < dayStart {
			continue
		}
		if volume, err = volume.Add(c.Volume); err != nil {
			return false, err
		}
		if at >= hourStart {
			count += c.Count
		}
	}
	after, err := volume.Add(amount)
	if err != nil {
		return false, err
	}
	if count+1 > uint64(l.HourlyCount) || after.Cmp(cap) > 0 {
		return false, nil
	}
	for at := range m {
		if at < dayStart {
			delete(m, at)
		}
	}
	c := m[minute]
	if c.Volume.Asset().Code == "" {
		c.Volume = money.Zero(money.MWK)
	}
	c.Count++
	c.Volume, err = c.Volume.Add(amount)
	m[minute] = c
	return true, err
}

// The running sum decides every payout as summing every cell did, whatever
// the clock does (a payout a minute, idle hours, a day's gap, going back),
// and after every step the cells are the model's and the stored sum is the
// total of the cells it covers.
func TestPayoutWindowSumAgreesWithCells(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ctx := context.Background()
		s := memstore.New()
		e, err := New(s, nil)
		require.NoError(rt, err)
		const org = "0190a000-0000-7000-8000-00000000000a"
		model := windowModel{}
		minute := int64(29_500_000)
		limits := PayoutLimits{
			HourlyCount:    rapid.IntRange(1, 40).Draw(rt, "hourly"),
			DailyVolumeMWK: rapid.SampledFrom([]money.Amount{money.FromInt(money.MWK, 5000), money.FromInt(money.MWK, 20000), money.FromInt(money.MWK, 1000000)}).Draw(rt, "daily"),
		}
		steps := rapid.IntRange(1, 120).Draw(rt, "steps")
		for i := range steps {
			minute += rapid.SampledFrom([]int64{0, 0, 0, 1, 1, 2, 7, 59, 60, 61, 600, 1439, 1440, 1441, 3000, -1, -61, -1500}).Draw(rt, "advance")
			amount := money.FromUnits(money.MWK, rapid.Int64Range(1, 300000).Draw(rt, "units"))
			want, err := model.check(minute, limits, amount)
			require.NoError(rt, err)
			now := time.Unix(minute*60+rapid.Int64Range(0, 59).Draw(rt, "second"), 0)
			err = s.Update(ctx, func(tx store.Tx) error {
				return e.checkAndCountWindow(tx, org, limits, amount, now)
			})
			if want {
				require.NoError(rt, err, "step %d", i)
			} else {
				require.Equal(rt, errcode.OrgLimitExceeded, errcode.Of(err), "step %d: %v", i, err)
			}

			cells := windowModel{}
			var sum codec.WindowSum
			require.NoError(rt, s.View(ctx, func(tx store.Tx) error {
				err := tx.Scan(storage.PayoutWindow, store.ScanOptions{Prefix: storage.IndexPrefix(org)}, func(k, v []byte) (bool, error) {
					c, err := codec.DecodeWindowCell(v)
					cells[int64(binary.BigEndian.Uint64(k[len(org)+1:]))] = c
					return true, err
				})
				if err != nil {
					return err
				}
				v, err := tx.Get(storage.PayoutWindowSums, []byte(org))
				if isNotFound(err) { // nothing counted yet
					sum = codec.WindowSum{DayVolume: money.Zero(money.MWK)}
					return nil
				}
				if err != nil {
					return err
				}
				sum, err = codec.DecodeWindowSum(v)
				return err
			}))
			require.Len(rt, cells, len(model), "step %d: cells", i)
			volume, count := money.Zero(money.MWK), uint64(0)
			for at, c := range model {
				got, ok := cells[at]
				require.True(rt, ok, "step %d: cell %d", i, at)
				require.Equal(rt, c.Count, got.Count)
				require.True(rt, c.Volume.Equal(got.Volume))
				if at >= sum.DayFrom {
					volume, _ = volume.Add(c.Volume)
				}
				if at >= sum.HourFrom {
					count += c.Count
				}
			}
			require.Equal(rt, count, sum.HourCount, "step %d: the sum's count", i)
			require.True(rt, volume.Equal(sum.DayVolume), "step %d: the sum's volume %s, cells %s", i, sum.DayVolume, volume)
		}
	})
}

// A store written before running sums holds cells and no sum: the first
// payout builds the sum from them.
func TestPayoutWindowSumFromCellsAlone(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	e, err := New(s, nil)
	require.NoError(t, err)
	const org = "0190a000-0000-7000-8000-00000000000b"
	minute := int64(29_500_000)
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for _, c := range []struct {
			at    int64
			count uint64
			units int64
		}{{minute - 1440, 5, 900000}, {minute - 1439, 2, 300000}, {minute - 60, 1, 100000}, {minute - 59, 3, 50000}, {minute, 1, 10000}} {
			if err := tx.Put(storage.PayoutWindow, storage.PayoutWindowKey(org, c.at), codec.WindowCell{Count: c.count, Volume: money.FromUnits(money.MWK, c.units)}.Encode()); err != nil {
				return err
			}
		}
		return nil
	}))
	limits := PayoutLimits{HourlyCount: 5, DailyVolumeMWK: money.FromInt(money.MWK, 4600)}
	now := time.Unix(minute*60, 0)
	// The day holds 4,600.00 (the cell of minute-1440 left it), the hour 4 payouts.
	err = s.Update(ctx, func(tx store.Tx) error {
		return e.checkAndCountWindow(tx, org, limits, money.FromUnits(money.MWK, 1), now)
	})
	require.Equal(t, errcode.OrgLimitExceeded, errcode.Of(err), "4,600.01 is above the day's limit")
	limits.DailyVolumeMWK = money.FromUnits(money.MWK, 4600_01)
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		return e.checkAndCountWindow(tx, org, limits, money.FromUnits(money.MWK, 1), now)
	}))
	err = s.Update(ctx, func(tx store.Tx) error {
		return e.checkAndCountWindow(tx, org, PayoutLimits{HourlyCount: 5, DailyVolumeMWK: money.FromInt(money.MWK, 1000000)}, money.FromUnits(money.MWK, 1), now)
	})
	require.Equal(t, errcode.OrgLimitExceeded, errcode.Of(err), "the hour's sixth payout")
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		_, err := tx.Get(storage.PayoutWindow, storage.PayoutWindowKey(org, minute-1440))
		require.True(t, isNotFound(err), "the cell older than a day is gone")
		v, err := tx.Get(storage.PayoutWindowSums, []byte(org))
		require.NoError(t, err)
		sum, err := codec.DecodeWindowSum(v)
		require.NoError(t, err)
		require.Equal(t, uint64(5), sum.HourCount)
		require.Equal(t, "4600.01", sum.DayVolume.String())
		return nil
	}))
}
