package tambala

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// The dashboard's counters, each written in the storage transaction of the
// change it counts, so that a chart reads a few keys and never the
// history.
var (
	// org NUL asset NUL YYYY-MM-DD -> DayCloseRecord: the available balance
	// after the day's last posting that changed it.
	bucketDayClose = []byte("dash.day_close")
	// org NUL YYYY-MM-DD NUL outcome -> CountRecord: payouts that reached
	// succeeded or failed that day.
	bucketDayOutcomes = []byte("dash.day_outcomes")
	// rail NUL YYYY-MM-DD -> CountRecord: payouts accepted that day.
	bucketRailDay = []byte("dash.rail_day")
	// "dead" -> CountRecord: webhook deliveries dead-lettered now.
	bucketDashCounts = []byte("dash.counts")
)

const dayLayout = "2006-01-02"

// dayOf is t's UTC day as a key part.
func dayOf(t time.Time) string { return t.UTC().Format(dayLayout) }

// postLedger posts cmd to the ledger in tx and records the day's close of
// every organization available balance it changed. Every posting of the
// engine goes through it.
func postLedger(tx store.Tx, cmd ledger.Command) (ledger.Effect, error) {
	eff, err := ledger.Post(tx, cmd)
	if err != nil || eff.Replayed {
		return eff, err
	}
	day := dayOf(eff.Entry.At)
	for _, bc := range eff.Balances {
		if bc.Account.Bucket != ledger.Available || bc.Account.Owner == "" {
			continue
		}
		key := bc.Account.Owner + "\x00" + string(bc.Account.Asset.Code) + "\x00" + day
		if err := storage.PutJSON(tx, bucketDayClose, key, codec.DayCloseRecord{Available: bc.Balance.String()}); err != nil {
			return eff, err
		}
	}
	return eff, nil
}

// addCount adds delta to the counter under key in bucket.
func addCount(tx store.Tx, bucket []byte, key string, delta int64) error {
	var c codec.CountRecord
	if err := storage.GetJSON(tx, bucket, key, &c, errNotFound); err != nil && !errors.Is(err, errNotFound) {
		return err
	}
	c.N += delta
	return storage.PutJSON(tx, bucket, key, c)
}

// countOutcome counts a payout of org reaching outcome (succeeded or failed)
// at now.
func countOutcome(tx store.Tx, org string, outcome payouts.Status, now time.Time) error {
	return addCount(tx, bucketDayOutcomes, org+"\x00"+dayOf(now)+"\x00"+string(outcome), 1)
}

// countAccepted counts a payout accepted on rail at now.
func countAccepted(tx store.Tx, rail payouts.Rail, now time.Time) error {
	return addCount(tx, bucketRailDay, string(rail)+"\x00"+dayOf(now), 1)
}

// countDead moves the count of dead-lettered deliveries by delta.
func countDead(tx store.Tx, delta int64) error { return addCount(tx, bucketDashCounts, "dead", delta) }

// DayValue is one day's value of a chart series: its UTC day
// ("2006-01-02") and an exact decimal.
type DayValue struct {
	Day   string
	Value string
}

// AgeBuckets count open items by age: under an hour, one to 24 hours, one
// to three days, over three days.
type AgeBuckets [4]int

// AgeLabels name AgeBuckets' buckets in order.
var AgeLabels = [4]string{"< 1 h", "1–24 h", "1–3 d", "> 3 d"}

func (a *AgeBuckets) add(age time.Duration) {
	switch {
	case age < time.Hour:
		a[0]++
	case age < 24*time.Hour:
		a[1]++
	case age < 72*time.Hour:
		a[2]++
	default:
		a[3]++
	}
}

// ChartDays is how many days the dashboard's day series cover.
const ChartDays = 30

// windowDays are the ChartDays UTC days ending with now's.
func windowDays(now time.Time) []string {
	out := make([]string, ChartDays)
	d := now.UTC()
	for i := ChartDays - 1; i >= 0; i-- {
		out[i] = dayOf(d)
		d = d.AddDate(0, 0, -1)
	}
	return out
}

// OrgOverview is an organization's dashboard: per asset its available
// balance at the close of each of the last ChartDays UTC days, and its
// payouts that succeeded and failed per day.
type OrgOverview struct {
	Balances  map[money.AssetCode][]DayValue
	Succeeded []DayValue
	Failed    []DayValue
}

// orgOverview reads org's overview at now: per asset and per outcome a range
// scan of at most ChartDays keys (and one key before the window).
func (e *Engine) orgOverview(ctx context.Context, org string, assets []money.AssetCode, now time.Time) (OrgOverview, error) {
	days := windowDays(now)
	out := OrgOverview{Balances: map[money.AssetCode][]DayValue{}}
	err := e.store.View(ctx, func(tx store.Tx) error {
		for _, a := range assets {
			prefix := org + "\x00" + string(a) + "\x00"
			closes, found := map[string]string{}, false
			carry := "0"
			if asset, ok := e.assets[a]; ok {
				carry = money.Zero(asset).String()
			}
			// The last close before the window carries into its first day.
			err := tx.Scan(bucketDayClose, store.ScanOptions{Prefix: []byte(prefix), End: []byte(prefix + days[0]), Reverse: true},
				func(_, v []byte) (bool, error) {
					var r codec.DayCloseRecord
					if err := storage.Decode(v, &r); err != nil {
						return false, err
					}
					carry, found = r.Available, true
					return false, nil
				})
			if err != nil {
				return err
			}
			err = tx.Scan(bucketDayClose, store.ScanOptions{Prefix: []byte(prefix), Start: []byte(prefix + days[0])},
				func(k, v []byte) (bool, error) {
					var r codec.DayCloseRecord
					if err := storage.Decode(v, &r); err != nil {
						return false, err
					}
					closes[string(k[len(prefix):])] = r.Available
					return true, nil
				})
			if err != nil {
				return err
			}
			if asset, ok := e.assets[a]; ok && !found && len(closes) == 0 {
				// No change since the counters began (a store older than
				// them, or an account never moved): every day closed at
				// the balance of now.
				b, err := ledger.ReadBalance(tx, org, asset)
				if err != nil {
					return err
				}
				carry = b.Available.String()
			}
			series := make([]DayValue, len(days))
			for i, d := range days {
				if v, ok := closes[d]; ok {
					carry = v
				}
				series[i] = DayValue{Day: d, Value: carry}
			}
			out.Balances[a] = series
		}
		prefix := org + "\x00"
		counts := map[string]int64{}
		err := tx.Scan(bucketDayOutcomes, store.ScanOptions{Prefix: []byte(prefix), Start: []byte(prefix + days[0])},
			func(k, v []byte) (bool, error) {
				var c codec.CountRecord
				if err := storage.Decode(v, &c); err != nil {
					return false, err
				}
				counts[string(k[len(prefix):])] = c.N
				return true, nil
			})
		if err != nil {
			return err
		}
		out.Succeeded, out.Failed = make([]DayValue, len(days)), make([]DayValue, len(days))
		for i, d := range days {
			out.Succeeded[i] = DayValue{Day: d, Value: strconv.FormatInt(counts[d+"\x00"+string(payouts.Succeeded)], 10)}
			out.Failed[i] = DayValue{Day: d, Value: strconv.FormatInt(counts[d+"\x00"+string(payouts.Failed)], 10)}
		}
		return nil
	})
	return out, err
}

// OperatorHome is the console's first page: the desk queue and the payouts
// in flight by age, the webhook deliveries dead-lettered now, and today's
// (UTC) payouts accepted per rail.
type OperatorHome struct {
	DeskQueue    AgeBuckets
	InFlight     AgeBuckets
	DeadLettered int64
	Today        string
	RailsToday   map[payouts.Rail]int64
}

// operatorHome reads the home at now. The ages come from the open items'
// indexes (the desk queue and the payout due index: open items, not the
// history); the rest from counters.
func (e *Engine) operatorHome(ctx context.Context, now time.Time) (OperatorHome, error) {
	h := OperatorHome{Today: dayOf(now), RailsToday: map[payouts.Rail]int64{}}
	err := e.store.View(ctx, func(tx store.Tx) error {
		h.DeskQueue, h.InFlight, h.DeadLettered = AgeBuckets{}, AgeBuckets{}, 0
		clear(h.RailsToday)
		for _, st := range deskStatuses {
			prefix := append([]byte(st), 0)
			err := tx.Scan(bucketOrderQueue, store.ScanOptions{Prefix: prefix}, func(k, _ []byte) (bool, error) {
				o, err := loadOrder(tx, string(k[len(prefix):]))
				if err != nil {
					return false, err
				}
				h.DeskQueue.add(now.Sub(o.CreatedAt))
				return true, nil
			})
			if err != nil {
				return err
			}
		}
		err := tx.Scan(payoutsDue, store.ScanOptions{}, func(k, _ []byte) (bool, error) {
			var rec payoutRecord
			if err := storage.ReadPayout(tx, string(k[8:]), &rec, errNotFound); err != nil {
				return false, err
			}
			if !rec.Status.Terminal() {
				h.InFlight.add(now.Sub(rec.CreatedAt))
			}
			return true, nil
		})
		if err != nil {
			return err
		}
		var c codec.CountRecord
		if err := storage.GetJSON(tx, bucketDashCounts, "dead", &c, errNotFound); err != nil && !errors.Is(err, errNotFound) {
			return err
		}
		h.DeadLettered = c.N
		for _, r := range dashRails {
			var c codec.CountRecord
			if err := storage.GetJSON(tx, bucketRailDay, string(r)+"\x00"+h.Today, &c, errNotFound); err != nil && !errors.Is(err, errNotFound) {
				return err
			}
			h.RailsToday[r] = c.N
		}
		return nil
	})
	return h, err
}

// dashRails are the rails the home counts, in its order.
var dashRails = []payouts.Rail{payouts.Bank, payouts.Momo, payouts.Wallet}

// deskStatuses are the statuses of the desk's queue index that wait on the
// desk.
var deskStatuses = []orders.Status{orders.Accepted, orders.Processing, orders.AwaitingInstructions,
	orders.AwaitingFunds, orders.ProofSubmitted, orders.FundsConfirmed}

// Overview reads the caller's overview for the portal: per asset of assets
// its available balance at the close of each of the last ChartDays UTC days
// (a day without a change carries the previous close), and its payouts
// that succeeded and failed per day. It reads at most ChartDays + 1
// counters per series, never the history.
func (c *Client) Overview(ctx context.Context, assets []money.AssetCode) (_ OrgOverview, err error) {
	ctx, span := c.span(ctx, "tambala.Overview")
	defer span.end(&err)
	return c.e.orgOverview(ctx, c.p.Org.ID, assets, c.e.nowUTC())
}

// Home reads the console's first page: the desk queue and the payouts in
// flight by age (from the open items' indexes), the webhook deliveries
// dead-lettered now and today's payouts accepted per rail (from counters
// kept in the transaction of each change).
func (b *BackOffice) Home(ctx context.Context) (_ OperatorHome, err error) {
	o := b.o
	ctx, span := o.span(ctx, "tambala.BackOffice.Home")
	defer span.end(&err)
	ctx, err = o.act(ctx, "")
	if err != nil {
		return OperatorHome{}, err
	}
	return o.e.operatorHome(ctx, o.e.nowUTC())
}
