package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// The payouts' buckets: the records (codec.PayoutRecord, /v1 and /v2 by
// id), each API version's index by organization, the per-minute window
// cells and each organization's window sum, and the reference data.
var (
	bucketPayouts = []byte("payouts")
	// PayoutsByOrg indexes the /v1 payouts by organization (IndexKey).
	PayoutsByOrg = []byte("payouts.by_org")
	// PayoutsV2ByOrg indexes the /v2 payouts by organization (IndexKey).
	PayoutsV2ByOrg = []byte("payouts_v2.by_org")
	// PayoutWindow holds the per-minute window cells (codec.WindowCell)
	// under PayoutWindowKey.
	PayoutWindow = []byte("payouts.window")
	// PayoutWindowSums holds each organization's codec.WindowSum, by
	// organization id.
	PayoutWindowSums = []byte("payouts.window.sum")
	bucketRefData    = []byte("refdata")
)

// refInstitutions is the reference data's key in its bucket.
const refInstitutions = "institutions"

// refInstitutionsKey is refInstitutions as the bytes every accept reads
// it by (a store never writes to a key it is given).
var refInstitutionsKey = []byte(refInstitutions)

// LoadPayout reads payout id's record; a missing one is notFound.
func LoadPayout(tx store.Tx, id string, notFound error) (codec.PayoutRecord, error) {
	var r codec.PayoutRecord
	err := GetJSON(tx, bucketPayouts, id, &r, notFound)
	return r, err
}

// SavePayout stores rec over the payout's record.
func SavePayout(tx store.Tx, rec codec.PayoutRecord) error {
	return PutJSON(tx, bucketPayouts, rec.ID, rec)
}

// AddPayout stores the new payout rec and lists it in index (PayoutsByOrg
// or PayoutsV2ByOrg) under its organization. It returns the stored bytes.
func AddPayout(tx store.Tx, rec codec.PayoutRecord, index []byte) ([]byte, error) {
	// The record's own writer, as Encode would call it, without boxing
	// the record in an interface.
	stored, err := rec.AppendJSON(make([]byte, 0, 512))
	if err != nil {
		return nil, err
	}
	s := takeScratch()
	defer s.release()
	s.b = append(s.b, rec.ID...)
	if err := tx.Put(bucketPayouts, s.b, stored); err != nil {
		return nil, err
	}
	s.b = appendIndexKey(s.b[:0], rec.Org, rec.ID)
	if err := tx.Put(index, s.b, nil); err != nil {
		return nil, err
	}
	return stored, nil
}

// ScanPayouts visits every payout record, in id order, while fn says go on.
func ScanPayouts(tx store.Tx, fn func(rec codec.PayoutRecord) (bool, error)) error {
	return tx.Scan(bucketPayouts, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		var rec codec.PayoutRecord
		if err := Decode(v, &rec); err != nil {
			return false, err
		}
		return fn(rec)
	})
}

// ToPayoutRecord is the stored form of p, without the worker's bookkeeping
// and the /v2 part.
func ToPayoutRecord(p payouts.Payout) codec.PayoutRecord {
	r := codec.PayoutRecord{ID: p.ID, Org: p.Org, Rail: p.Rail, Amount: p.Amount.String(), HeldFee: p.HeldFee.String(),
		Status: p.Status, Destination: codec.StorePayoutDestination(p.Destination), Failure: codec.StorePayoutFailure(p.Failure),
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, TerminalAt: p.TerminalAt}
	if p.Fee != nil {
		s := p.Fee.String()
		r.Fee = &s
	}
	return r
}

// PayoutOf reads the payout of a record: on a /v2 payout its amounts are
// the frozen principal and fee in the source asset.
func PayoutOf(r codec.PayoutRecord) (payouts.Payout, error) {
	asset := money.MWK
	if r.V2 != nil {
		asset = V2Source(r.V2)
	}
	amt, err := money.Parse(asset, r.Amount)
	if err != nil {
		return payouts.Payout{}, err
	}
	held, err := money.Parse(asset, r.HeldFee)
	if err != nil {
		return payouts.Payout{}, err
	}
	p := payouts.Payout{ID: r.ID, Org: r.Org, Rail: r.Rail, Amount: amt, HeldFee: held, Status: r.Status,
		Destination: r.Destination.Destination(), Failure: r.Failure.PayoutFailure(), CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, TerminalAt: r.TerminalAt}
	if r.Fee != nil {
		f, err := money.Parse(asset, *r.Fee)
		if err != nil {
			return payouts.Payout{}, err
		}
		p.Fee = &f
	}
	return p, nil
}

// ErrNotV2 is PayoutV2Of's answer on the record of a /v1 payout.
var ErrNotV2 = errors.New("storage: not a /v2 payout")

// PayoutV2Of reads the /v2 payout of a record (ErrNotV2 on a /v1 one).
func PayoutV2Of(r codec.PayoutRecord) (payouts.V2Payout, error) {
	if r.V2 == nil {
		return payouts.V2Payout{}, ErrNotV2
	}
	p, err := PayoutOf(r)
	if err != nil {
		return payouts.V2Payout{}, err
	}
	v := r.V2
	amt, err := money.Parse(V2Asset(v), v.Amount)
	if err != nil {
		return payouts.V2Payout{}, err
	}
	src, err := p.Amount.Add(p.HeldFee)
	if err != nil {
		return payouts.V2Payout{}, err
	}
	out := payouts.V2Payout{ID: p.ID, Org: p.Org, SourceAsset: V2Source(v), SourceAmount: src, Asset: V2Asset(v), Amount: amt,
		Status: p.Status, Destination: PayoutV2DestinationOf(v.Destination), Failure: p.Failure, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
		TerminalAt: p.TerminalAt, PrincipalSource: p.Amount, FeeSource: p.HeldFee}
	if v.Rate != nil {
		rate, err := money.ParseRate(*v.Rate)
		if err != nil {
			return payouts.V2Payout{}, err
		}
		out.Rate = &rate
	}
	if p.Fee != nil {
		if out.Fee, err = feeShownV2(p, v); err != nil {
			return payouts.V2Payout{}, err
		}
	}
	return out, nil
}

// feeShownV2 is the fee a terminal /v2 payout of v shows its client.
func feeShownV2(p payouts.Payout, v *codec.PayoutV2Record) (*money.Amount, error) {
	priced, err := money.Parse(V2Asset(v), v.PricedFee)
	if err != nil {
		return nil, err
	}
	var observed *money.Amount
	if v.FeeObserved != nil {
		o, err := money.Parse(V2Asset(v), *v.FeeObserved)
		if err != nil {
			return nil, err
		}
		observed = &o
	}
	return payouts.FeeShownV2(p, V2Asset(v), v.Rate != nil, priced, observed)
}

// V2Source is the source asset of a /v2 payout.
func V2Source(v *codec.PayoutV2Record) money.Asset {
	return money.Asset{Code: money.AssetCode(v.SourceAsset), Decimals: v.SourceDecimals}
}

// V2Asset is the delivered asset of a /v2 payout.
func V2Asset(v *codec.PayoutV2Record) money.Asset {
	return money.Asset{Code: money.AssetCode(v.Asset), Decimals: v.AssetDecimals}
}

// ToPayoutV2DestinationRecord is the stored form of d.
func ToPayoutV2DestinationRecord(d payouts.V2Destination) codec.PayoutV2DestinationRecord {
	return codec.PayoutV2DestinationRecord{Type: string(d.Type), InstitutionID: d.InstitutionID, AccountNumber: d.AccountNumber,
		MobileNumber: d.MobileNumber, BeneficiaryName: d.BeneficiaryName, Network: d.Network, Address: d.Address}
}

// PayoutV2DestinationOf reads a stored destination back.
func PayoutV2DestinationOf(d codec.PayoutV2DestinationRecord) payouts.V2Destination {
	return payouts.V2Destination{Type: payouts.DestinationKind(d.Type), InstitutionID: d.InstitutionID, AccountNumber: d.AccountNumber,
		MobileNumber: d.MobileNumber, BeneficiaryName: d.BeneficiaryName, Network: d.Network, Address: d.Address}
}

// Institutions returns the stored reference data, raw (the engine caches
// its decoding); found is false before the first sync.
func Institutions(tx store.Tx) (raw []byte, found bool, err error) {
	raw, err = tx.Get(bucketRefData, refInstitutionsKey)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	return raw, err == nil, err
}

// SaveInstitutions stores the reference data.
func SaveInstitutions(tx store.Tx, rec codec.InstitutionsRecord) error {
	return PutJSON(tx, bucketRefData, refInstitutions, rec)
}

// PayoutWindowKey is the key of org's window cell of minute.
func PayoutWindowKey(org string, minute int64) []byte {
	return appendPayoutWindowKey(make([]byte, 0, len(org)+9), org, minute)
}

// appendPayoutWindowKey appends PayoutWindowKey(org, minute) to b.
func appendPayoutWindowKey(b []byte, org string, minute int64) []byte {
	return binary.BigEndian.AppendUint64(append(append(b, org...), 0), uint64(minute))
}

// AppendPayoutWindowKeys appends the keys of org's window sum and of its
// cell of minute, for a store that reads them ahead (store.Prefetch).
func AppendPayoutWindowKeys(dst []store.KeyRef, org string, minute int64) []store.KeyRef {
	return append(dst, store.KeyRef{Bucket: PayoutWindowSums, Key: []byte(org)},
		store.KeyRef{Bucket: PayoutWindow, Key: appendPayoutWindowKey(nil, org, minute)})
}

// CountPayoutWindow counts a payout of amount in org's cell of minute and
// in sum, the window sum PayoutWindowSum returned, and stores both.
func CountPayoutWindow(tx store.Tx, org string, minute int64, amount money.Amount, sum codec.WindowSum) error {
	s := takeScratch()
	defer s.release()
	s.b = appendPayoutWindowKey(s.b, org, minute)
	n := len(s.b)
	current := codec.WindowCell{Volume: money.Zero(money.MWK)}
	switch v, err := lend.Get(tx, PayoutWindow, s.b[:n]); { // decoded, never kept
	case err == nil:
		if current, err = codec.DecodeWindowCell(v); err != nil {
			return err
		}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	current.Count++
	sum.HourCount++
	var err error
	if current.Volume, err = current.Volume.Add(amount); err != nil {
		return err
	}
	if sum.DayVolume, err = sum.DayVolume.Add(amount); err != nil {
		return err
	}
	s.b = current.AppendEncode(s.b[:n])
	if err := tx.Put(PayoutWindow, s.b[:n], s.b[n:]); err != nil {
		return err
	}
	s.b = sum.AppendEncode(append(s.b[:0], org...))
	return tx.Put(PayoutWindowSums, s.b[:len(org)], s.b[len(org):])
}

// PayoutWindowSum returns org's window sum at minute: the volume of its
// cells of the last 24 hours and the count of those of the last hour
// (minute included). It moves the stored sum forward, subtracting the
// cells that left either window and deleting those older than a day, or
// builds it from every cell when there is none (a store written before
// sums) or the clock went back.
func PayoutWindowSum(tx store.Tx, org string, minute int64) (codec.WindowSum, error) {
	dayStart, hourStart := minute-24*60+1, minute-60+1
	var sum codec.WindowSum
	v, err := lendByString(tx, PayoutWindowSums, org) // decoded, never kept
	switch {
	case errors.Is(err, store.ErrNotFound):
		return rebuildWindowSum(tx, org, dayStart, hourStart)
	case err != nil:
		return sum, err
	}
	if sum, err = codec.DecodeWindowSum(v); err != nil {
		return sum, err
	}
	if dayStart < sum.DayFrom || hourStart < sum.HourFrom {
		return rebuildWindowSum(tx, org, dayStart, hourStart)
	}
	// The hour first: the day's deletions would hide cells it subtracts.
	if err := leaveHour(tx, org, &sum, hourStart); err != nil {
		return sum, err
	}
	return sum, leaveDay(tx, org, &sum, dayStart)
}

// leaveHour subtracts from sum the count of the cells that left the hour
// starting at hourStart.
func leaveHour(tx store.Tx, org string, sum *codec.WindowSum, hourStart int64) error {
	if hourStart <= sum.HourFrom {
		return nil
	}
	// The closure counts in a local of its own, so that sum (the caller's,
	// on its stack) is not moved to the heap on every call for this path.
	count := sum.HourCount
	err := scanCells(tx, org, sum.HourFrom, hourStart, func(_ []byte, c codec.WindowCell) error {
		if c.Count > count {
			return errWindowSum(org)
		}
		count -= c.Count
		return nil
	})
	sum.HourCount = count
	if err != nil {
		return err
	}
	sum.HourFrom = hourStart
	return nil
}

// leaveDay subtracts from sum the volume of the cells that left the day
// starting at dayStart, and deletes them.
func leaveDay(tx store.Tx, org string, sum *codec.WindowSum, dayStart int64) error {
	if dayStart <= sum.DayFrom {
		return nil
	}
	var gone [][]byte
	volume := sum.DayVolume // as in leaveHour: sum stays off the heap
	err := scanCells(tx, org, sum.DayFrom, dayStart, func(k []byte, c codec.WindowCell) error {
		left, err := volume.Sub(c.Volume)
		if err != nil || left.Sign() < 0 {
			return errWindowSum(org)
		}
		volume = left
		gone = append(gone, k)
		return nil
	})
	sum.DayVolume = volume
	if err != nil {
		return err
	}
	if err := deleteCells(tx, gone); err != nil {
		return err
	}
	sum.DayFrom = dayStart
	return nil
}

// rebuildWindowSum sums every cell of org, deleting those before dayStart.
func rebuildWindowSum(tx store.Tx, org string, dayStart, hourStart int64) (codec.WindowSum, error) {
	sum := codec.WindowSum{DayFrom: dayStart, HourFrom: hourStart, DayVolume: money.Zero(money.MWK)}
	var gone [][]byte
	err := scanCells(tx, org, 0, -1, func(k []byte, c codec.WindowCell) error {
		m := int64(binary.BigEndian.Uint64(k[len(org)+1:]))
		if m < dayStart {
			gone = append(gone, k)
			return nil
		}
		var err error
		if sum.DayVolume, err = sum.DayVolume.Add(c.Volume); err != nil {
			return err
		}
		if m >= hourStart {
			sum.HourCount += c.Count
		}
		return nil
	})
	if err != nil {
		return sum, err
	}
	return sum, deleteCells(tx, gone)
}

// deleteCells deletes the window cells under keys.
func deleteCells(tx store.Tx, keys [][]byte) error {
	for _, k := range keys {
		if err := tx.Delete(PayoutWindow, k); err != nil {
			return err
		}
	}
	return nil
}

// scanCells visits org's cells of the minutes from (inclusive) to to
// (exclusive; -1: every later one).
func scanCells(tx store.Tx, org string, from, to int64, fn func(k []byte, c codec.WindowCell) error) error {
	opt := store.ScanOptions{Prefix: IndexPrefix(org), Start: PayoutWindowKey(org, from)}
	if to >= 0 {
		opt.End = PayoutWindowKey(org, to)
	}
	return tx.Scan(PayoutWindow, opt, func(k, v []byte) (bool, error) {
		c, err := codec.DecodeWindowCell(v)
		if err != nil {
			return false, err
		}
		return true, fn(k, c)
	})
}

func errWindowSum(org string) error {
	return fmt.Errorf("tambala: the payout window sum of organization %s is below its cells", org)
}

// ReadPayout reads payout id's record into rec; a missing one is notFound.
func ReadPayout(tx store.Tx, id string, rec *codec.PayoutRecord, notFound error) error {
	return GetJSON(tx, bucketPayouts, id, rec, notFound)
}

// ForEach visits the ids listed in ix, earliest due first, while fn says
// go on.
func (ix DueIndex) ForEach(tx store.Tx, fn func(id string) (bool, error)) error {
	return tx.Scan(ix, store.ScanOptions{}, func(k, _ []byte) (bool, error) {
		return fn(string(k[8:]))
	})
}

const railsKey = "rails"

// railsKeyBytes is railsKey as the bytes every accept reads it by.
var railsKeyBytes = []byte(railsKey)

// RailsRaw returns the stored rail switches, raw (the engine caches their
// decoding); found is false when none were ever set.
func RailsRaw(tx store.Tx) (raw []byte, found bool, err error) {
	raw, err = tx.Get(bucketSettings, railsKeyBytes)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	return raw, err == nil, err
}

// LoadRails reads the rail switches; none stored reads as both running.
func LoadRails(tx store.Tx) (codec.RailsRecord, error) {
	var rec codec.RailsRecord
	err := GetJSON(tx, bucketSettings, railsKey, &rec, nil)
	return rec, err
}

// SaveRails stores the rail switches.
func SaveRails(tx store.Tx, rec codec.RailsRecord) error {
	return PutJSON(tx, bucketSettings, railsKey, rec)
}
