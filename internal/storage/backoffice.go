package storage

import (
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/reconcile"
	"github.com/tambalapay/tambala/store"
)

// The dashboard's counters, each written in the storage transaction of the
// change it counts, so that a chart reads a few keys and never the
// history.
var (
	// DayClose is org NUL asset NUL YYYY-MM-DD -> codec.DayCloseRecord:
	// the available balance after the day's last posting that changed it
	// (exported for the test that plays a store older than the counters).
	DayClose = []byte("dash.day_close")
	// org NUL YYYY-MM-DD NUL outcome -> codec.CountRecord: payouts that
	// reached succeeded or failed that day.
	dayOutcomes = []byte("dash.day_outcomes")
	// rail NUL YYYY-MM-DD -> codec.CountRecord: payouts accepted that day.
	railDay = []byte("dash.rail_day")
	// "dead" -> codec.CountRecord: webhook deliveries dead-lettered now.
	dashCounts = []byte("dash.counts")
)

// The buckets of reconciliation.
var (
	settlements       = []byte("settlements")         // import id -> codec.SettlementImportRecord
	settlementsByHash = []byte("settlements.by_hash") // sha256 hex -> import id
	settlementsByRail = []byte("settlements.by_rail") // rail NUL import id -> file number
)

// settingMappingPrefix starts the settings key of a rail's mapping.
const settingMappingPrefix = "settlement.mapping."

// SaveDayCloseAt records available as org's close in asset on at's UTC
// day. Every posting writes one, so key and record are built in a scratch
// buffer rather than as strings.
func SaveDayCloseAt(tx store.Tx, org, asset string, at time.Time, available money.Amount) error {
	s := takeScratch()
	defer s.release()
	k := appendDayKey(append(append(append(s.b, org...), 0), asset...), at)
	n := len(k)
	k = append(k, 0)
	text, _ := available.AppendText(k)
	v, err := codec.DayCloseRecord{Available: string(text[n+1:])}.AppendJSON(text)
	if err != nil {
		return err
	}
	s.b = v
	return tx.Put(DayClose, v[:n], v[len(text):])
}

// appendDayKey appends 0 and at's UTC day (YYYY-MM-DD), the last part of
// a dashboard counter's key.
func appendDayKey(b []byte, at time.Time) []byte {
	return at.UTC().AppendFormat(append(b, 0), dayLayout)
}

// dayLayout is a day as the dashboard's keys write it.
const dayLayout = "2006-01-02"

// LastCloseBefore is org's last close in asset before day, if any.
func LastCloseBefore(tx store.Tx, org, asset, day string) (available string, found bool, err error) {
	prefix := org + "\x00" + asset + "\x00"
	err = tx.Scan(DayClose, store.ScanOptions{Prefix: []byte(prefix), End: []byte(prefix + day), Reverse: true},
		func(_, v []byte) (bool, error) {
			var r codec.DayCloseRecord
			if err := Decode(v, &r); err != nil {
				return false, err
			}
			available, found = r.Available, true
			return false, nil
		})
	return available, found, err
}

// ClosesFrom are org's closes in asset on day and after, by day.
func ClosesFrom(tx store.Tx, org, asset, day string) (map[string]string, error) {
	prefix := org + "\x00" + asset + "\x00"
	closes := map[string]string{}
	err := tx.Scan(DayClose, store.ScanOptions{Prefix: []byte(prefix), Start: []byte(prefix + day)},
		func(k, v []byte) (bool, error) {
			var r codec.DayCloseRecord
			if err := Decode(v, &r); err != nil {
				return false, err
			}
			closes[string(k[len(prefix):])] = r.Available
			return true, nil
		})
	return closes, err
}

// OutcomesFrom are the counts of org's payouts that reached an outcome on
// day and after, by day NUL outcome.
func OutcomesFrom(tx store.Tx, org, day string) (map[string]int64, error) {
	prefix := org + "\x00"
	counts := map[string]int64{}
	err := tx.Scan(dayOutcomes, store.ScanOptions{Prefix: []byte(prefix), Start: []byte(prefix + day)},
		func(k, v []byte) (bool, error) {
			var c codec.CountRecord
			if err := Decode(v, &c); err != nil {
				return false, err
			}
			counts[string(k[len(prefix):])] = c.N
			return true, nil
		})
	return counts, err
}

// readCount is the counter under key in bucket (0 when none).
func readCount(tx store.Tx, bucket []byte, key string) (int64, error) {
	v, err := getByString(tx, bucket, key)
	return countOf(v, err)
}

// readCountAt is readCount of a key as bytes.
func readCountAt(tx store.Tx, bucket, key []byte) (int64, error) {
	return countOf(lend.Get(tx, bucket, key)) // decoded, never kept
}

// countOf is the count a Get of a counter answered.
func countOf(v []byte, err error) (int64, error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	}
	c, err := codec.DecodeCountRecord(v)
	return c.N, err
}

// addCount adds delta to the counter under key in bucket.
func addCount(tx store.Tx, bucket []byte, key string, delta int64) error {
	s := takeScratch()
	defer s.release()
	s.b = append(s.b, key...)
	return s.addCountAt(tx, bucket, len(key), delta)
}

// addCountAt adds delta to the counter whose key is the first n bytes of
// s, writing the record after them.
func (s *scratch) addCountAt(tx store.Tx, bucket []byte, n int, delta int64) error {
	c, err := readCountAt(tx, bucket, s.b[:n])
	if err != nil {
		return err
	}
	s.b, _ = codec.CountRecord{N: c + delta}.AppendJSON(s.b[:n])
	return tx.Put(bucket, s.b[:n], s.b[n:])
}

// CountOutcome counts a payout of org reaching outcome on day.
func CountOutcome(tx store.Tx, org, day string, outcome payouts.Status) error {
	return addCount(tx, dayOutcomes, org+"\x00"+day+"\x00"+string(outcome), 1)
}

// CountAcceptedAt counts a payout accepted on rail on at's UTC day. Every
// accept writes one, so its key is built in a scratch buffer rather than
// as a string.
//
// Every accept of every organization bumps the same counter, so a store
// that runs many accepts at once (store.Deferrer) takes it as a deferred
// update: they do not all read it, which would have all but the first
// run again.
func CountAcceptedAt(tx store.Tx, rail payouts.Rail, at time.Time) error {
	s := takeScratch()
	defer s.release()
	s.b = appendDayKey(append(s.b, rail...), at)
	if store.Defer(tx, railDay, s.b, addOne) {
		return nil
	}
	return s.addCountAt(tx, railDay, len(s.b), 1)
}

// addOne is a deferred update (store.Deferred) that adds one to a
// counter.
func addOne(old []byte, found bool) ([]byte, error) {
	var n int64
	if found {
		c, err := codec.DecodeCountRecord(old)
		if err != nil {
			return nil, err
		}
		n = c.N
	}
	return codec.CountRecord{N: n + 1}.AppendJSON(nil)
}

// AcceptedOn is how many payouts rail accepted on day.
func AcceptedOn(tx store.Tx, rail payouts.Rail, day string) (int64, error) {
	return readCount(tx, railDay, string(rail)+"\x00"+day)
}

// CountDead moves the count of dead-lettered deliveries by delta.
func CountDead(tx store.Tx, delta int64) error { return addCount(tx, dashCounts, "dead", delta) }

// DeadCount is how many deliveries are dead-lettered now.
func DeadCount(tx store.Tx) (int64, error) { return readCount(tx, dashCounts, "dead") }

// LoadMapping reads the column mapping of rail's settlement files:
// reconcile.DefaultMapping when none was set.
func LoadMapping(tx store.Tx, rail payouts.Rail) (reconcile.Mapping, error) {
	var rec codec.SettlementMappingRecord
	nf := noRecord()
	err := GetJSON(tx, bucketSettings, settingMappingPrefix+string(rail), &rec, nf)
	if errors.Is(err, nf) {
		return reconcile.DefaultMapping(), nil
	}
	return reconcile.Mapping(rec), err
}

// SaveMapping stores m as the column mapping of rail's settlement files.
func SaveMapping(tx store.Tx, rail payouts.Rail, m reconcile.Mapping) error {
	return PutJSON(tx, bucketSettings, settingMappingPrefix+string(rail), codec.SettlementMappingRecord(m))
}

// SettlementByHash is the id of the import of the file whose SHA-256 is
// digest (hex), if one was imported.
func SettlementByHash(tx store.Tx, digest string) (string, bool, error) {
	id, err := tx.Get(settlementsByHash, []byte(digest))
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	return string(id), err == nil, err
}

// NewSettlementRecord is the record of import id: file (named name, of
// SHA-256 digest) parsed with m, imported at by by.
func NewSettlementRecord(id string, rail payouts.Rail, name, digest string, at time.Time, by string, file reconcile.File, m reconcile.Mapping) codec.SettlementImportRecord {
	rec := codec.SettlementImportRecord{ID: id, Rail: string(rail), Name: name, SHA256: digest,
		FileNumber: file.Number, ImportedAt: at, By: by, Mapping: codec.SettlementMappingRecord(m)}
	for _, l := range file.Lines {
		rec.Lines = append(rec.Lines, codec.SettlementLineRecord{Number: l.Number, Reference: l.Reference, Amount: l.Amount,
			Currency: l.Currency, Status: string(l.Status), Time: l.Time})
	}
	return rec
}

// AddSettlement stores a new import with its hash and rail indexes.
func AddSettlement(tx store.Tx, rec codec.SettlementImportRecord) error {
	if err := SaveSettlement(tx, rec); err != nil {
		return err
	}
	if err := tx.Put(settlementsByHash, []byte(rec.SHA256), []byte(rec.ID)); err != nil {
		return err
	}
	return tx.Put(settlementsByRail, IndexKey(rec.Rail, rec.ID), fmt.Append(nil, rec.FileNumber))
}

// SaveSettlement stores an import (already indexed).
func SaveSettlement(tx store.Tx, rec codec.SettlementImportRecord) error {
	return PutJSON(tx, settlements, rec.ID, rec)
}

// LoadSettlement reads import id: not_found when there is none.
func LoadSettlement(tx store.Tx, id string) (codec.SettlementImportRecord, error) {
	var rec codec.SettlementImportRecord
	err := GetJSON(tx, settlements, id, &rec, noRecord())
	return rec, err
}

// SettlementsOfRail reads rail's imports, newest first.
func SettlementsOfRail(tx store.Tx, rail payouts.Rail) ([]codec.SettlementImportRecord, error) {
	var out []codec.SettlementImportRecord
	err := tx.Scan(settlementsByRail, store.ScanOptions{Prefix: IndexKey(string(rail), ""), Reverse: true},
		func(k, _ []byte) (bool, error) {
			rec, err := LoadSettlement(tx, string(k[len(rail)+1:]))
			if err != nil {
				return false, err
			}
			out = append(out, rec)
			return true, nil
		})
	return out, err
}

// FileNumbers are the file numbers of rail's imports, oldest first (0 for
// a file without one).
func FileNumbers(tx store.Tx, rail string) ([]int, error) {
	var numbers []int
	err := tx.Scan(settlementsByRail, store.ScanOptions{Prefix: IndexKey(rail, "")}, func(_, v []byte) (bool, error) {
		var n int
		_, err := fmt.Sscan(string(v), &n)
		numbers = append(numbers, n)
		return true, err
	})
	return numbers, err
}

// SettlementLines are an import's lines as reconcile matches them.
func SettlementLines(rec codec.SettlementImportRecord) []reconcile.Line {
	lines := make([]reconcile.Line, len(rec.Lines))
	for i, l := range rec.Lines {
		lines[i] = reconcile.Line{Number: l.Number, Reference: l.Reference, Amount: l.Amount, Currency: l.Currency,
			Status: reconcile.Status(l.Status), Time: l.Time}
	}
	return lines
}

// RailItems reads every payout and /v1 collection of rail as items to match: a payout by its id (the reference
// the engine gives the provider) and the provider's reference of its
// resolution, a collection by its id and its RTP reference.
func RailItems(tx store.Tx, rail payouts.Rail) ([]reconcile.Item, error) {
	var items []reconcile.Item
	err := tx.Scan(bucketPayouts, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		var rec codec.PayoutRecord
		if err := Decode(v, &rec); err != nil {
			return false, err
		}
		if rec.Rail == rail {
			items = append(items, payoutItem(rec))
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	err = EachCollection(tx, func(rec codec.CollectionRecord, c collections.Collection) (bool, error) {
		if payouts.Rail(rec.Rail) == rail {
			items = append(items, collectionItem(rec, c))
		}
		return true, nil
	})
	return items, err
}

// payoutItem is a stored payout as an item to match.
func payoutItem(rec codec.PayoutRecord) reconcile.Item {
	it := reconcile.Item{Kind: reconcile.Payout, ID: rec.ID, References: []string{rec.ID}, Amount: rec.Amount,
		Currency: "MWK", Status: reconcile.InFlight}
	if rec.V2 != nil {
		it.Amount, it.Currency = rec.V2.Amount, rec.V2.Asset
	}
	if rec.Resolution != nil && rec.Resolution.Reference != "" {
		it.References = append(it.References, rec.Resolution.Reference)
	}
	if rec.TerminalAt != nil {
		it.At = *rec.TerminalAt
		it.Status = reconcile.ItemFailed
		if rec.Status == payouts.Succeeded {
			it.Status = reconcile.ItemSucceeded
		}
	}
	return it
}

// collectionItem is a stored /v1 collection as an item to match.
func collectionItem(rec codec.CollectionRecord, c collections.Collection) reconcile.Item {
	it := reconcile.Item{Kind: reconcile.Collection, ID: c.ID, References: []string{c.ID, c.RTPReferenceNumber},
		Amount: rec.Amount, Currency: "MWK", Status: reconcile.ItemSucceeded, At: c.CreatedAt}
	if c.Status != "settled" {
		it.Status = reconcile.ItemFailed
	}
	return it
}

// DeskQueued calls fn with the id of every order the desk's queue holds in
// status, in id order, until fn says stop.
func DeskQueued(tx store.Tx, status orders.Status, fn func(id string) (bool, error)) error {
	prefix := IndexPrefix(string(status))
	return tx.Scan(OrderQueue, store.ScanOptions{Prefix: prefix}, func(k, _ []byte) (bool, error) { return fn(string(k[len(prefix):])) })
}

// OpenPayouts calls fn with the creation time of every payout not
// terminal (from the payouts' due index: open items, not the history),
// until fn says stop.
func OpenPayouts(tx store.Tx, fn func(created time.Time) (bool, error)) error {
	return tx.Scan(PayoutsDue, store.ScanOptions{}, func(k, _ []byte) (bool, error) {
		var rec codec.PayoutRecord
		if err := GetJSON(tx, bucketPayouts, string(k[8:]), &rec, noRecord()); err != nil {
			return false, err
		}
		if rec.Status.Terminal() {
			return true, nil
		}
		return fn(rec.CreatedAt)
	})
}
