package storage

import (
	"fmt"
	"time"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// The buckets of the collections (/v1 and /v2), and their per-organization
// indexes: the index handles go to the root's page readers.
var (
	collectionsV1 = []byte("collections")    // id -> codec.CollectionRecord
	collectionsV2 = []byte("collections_v2") // id -> codec.CollectionV2Record
	// CollectionsByOrg lists an organization's /v1 collections (org NUL id).
	CollectionsByOrg = []byte("collections.by_org")
	// CollectionsV2ByOrg lists an organization's /v2 collections (org NUL id).
	CollectionsV2ByOrg = []byte("collections_v2.by_org")
)

// notFound is the not_found of a missing, foreign or malformed id.
func noRecord() error { return errcode.New(errcode.NotFound) }

// ToCollectionRecord is the stored form of org's /v1 collection c.
func ToCollectionRecord(org string, c collections.Collection) codec.CollectionRecord {
	return codec.CollectionRecord{Org: org, ID: c.ID, Status: string(c.Status),
		Amount: c.AmountMWK.String(), Fee: c.Fee.String(), Credited: c.AmountCredited.String(), Rail: string(c.Rail),
		SourceCustomerName: c.SourceCustomerName, SourceAccountNumber: c.SourceAccountNumber,
		SourceInstitution: c.SourceInstitution, RTPReferenceNumber: c.RTPReferenceNumber, CreatedAt: payouts.FormatTime(c.CreatedAt)}
}

// FromCollectionRecord reads a stored /v1 collection back.
func FromCollectionRecord(r codec.CollectionRecord) (collections.Collection, error) {
	c := collections.Collection{ID: r.ID, Status: collections.Status(r.Status), Rail: payouts.Rail(r.Rail),
		SourceCustomerName: r.SourceCustomerName, SourceAccountNumber: r.SourceAccountNumber,
		SourceInstitution: r.SourceInstitution, RTPReferenceNumber: r.RTPReferenceNumber}
	var err error
	if c.CreatedAt, err = parseStoredTime(r.CreatedAt); err != nil {
		return collections.Collection{}, err
	}
	if c.AmountMWK, err = money.Parse(money.MWK, r.Amount); err != nil {
		return collections.Collection{}, err
	}
	if c.Fee, err = money.Parse(money.MWK, r.Fee); err != nil {
		return collections.Collection{}, err
	}
	if c.AmountCredited, err = money.Parse(money.MWK, r.Credited); err != nil {
		return collections.Collection{}, err
	}
	return c, nil
}

// parseStoredTime reads a time as records keep it (payouts.TimeFormat).
func parseStoredTime(s string) (time.Time, error) {
	t, err := time.Parse(payouts.TimeFormat, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("tambala: stored time %q: %w", s, err)
	}
	return t, nil
}

// AddCollection stores org's new /v1 collection c and lists it in the
// organization's index.
func AddCollection(tx store.Tx, org string, c collections.Collection) error {
	if err := SaveCollection(tx, org, c); err != nil {
		return err
	}
	return tx.Put(CollectionsByOrg, IndexKey(org, c.ID), nil)
}

// SaveCollection stores org's /v1 collection c (already listed).
func SaveCollection(tx store.Tx, org string, c collections.Collection) error {
	return PutJSON(tx, collectionsV1, c.ID, ToCollectionRecord(org, c))
}

// LoadCollection reads one of org's /v1 collections: not_found for an
// unknown, foreign or malformed id.
func LoadCollection(tx store.Tx, org, id string) (collections.Collection, error) {
	if id == "" || len(id) > 64 {
		return collections.Collection{}, noRecord()
	}
	var r codec.CollectionRecord
	if err := GetJSON(tx, collectionsV1, id, &r, noRecord()); err != nil {
		return collections.Collection{}, err
	}
	if r.Org != org {
		return collections.Collection{}, noRecord()
	}
	return FromCollectionRecord(r)
}

// EachCollection calls fn with every /v1 collection of every organization,
// as stored and as read back, until fn says stop.
func EachCollection(tx store.Tx, fn func(r codec.CollectionRecord, c collections.Collection) (bool, error)) error {
	return tx.Scan(collectionsV1, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		var r codec.CollectionRecord
		if err := Decode(v, &r); err != nil {
			return false, err
		}
		c, err := FromCollectionRecord(r)
		if err != nil {
			return false, err
		}
		return fn(r, c)
	})
}

// AddCollectionV2 stores org's /v2 collection of ledger entry entry, its
// rendering rendered, and lists it in the organization's index.
func AddCollectionV2(tx store.Tx, org, entry, id string, rendered []byte) error {
	if err := PutJSON(tx, collectionsV2, id, codec.CollectionV2Record{Org: org, EntryID: entry, Rendered: rendered}); err != nil {
		return err
	}
	return tx.Put(CollectionsV2ByOrg, IndexKey(org, id), nil)
}

// LoadCollectionV2 reads one of org's /v2 collections: not_found for an
// unknown, foreign or malformed id.
func LoadCollectionV2(tx store.Tx, assets money.Assets, org, id string) (collections.CollectionV2, error) {
	if id == "" || len(id) > 64 {
		return collections.CollectionV2{}, noRecord()
	}
	var r codec.CollectionV2Record
	if err := GetJSON(tx, collectionsV2, id, &r, noRecord()); err != nil {
		return collections.CollectionV2{}, err
	}
	if r.Org != org {
		return collections.CollectionV2{}, noRecord()
	}
	return DecodeCollectionV2(r.Rendered, assets)
}

// DecodeCollectionV2 reads a stored /v2 rendering back, its amounts at the
// asset's decimals; a null network is "".
func DecodeCollectionV2(raw []byte, assets money.Assets) (collections.CollectionV2, error) {
	r, err := cache.DecodeJSON[codec.CollectionV2Rendering](raw)
	if err != nil {
		return collections.CollectionV2{}, err
	}
	c := collections.CollectionV2{ID: r.ID, Status: collections.Status(r.Status), Source: collections.Source(r.Source), OrderID: r.OrderID}
	if r.Network != nil {
		c.Network = *r.Network
	}
	if c.CreatedAt, err = parseStoredTime(r.CreatedAt); err != nil {
		return collections.CollectionV2{}, err
	}
	asset, ok := assets.Lookup(money.AssetCode(r.Asset))
	if !ok {
		return collections.CollectionV2{}, fmt.Errorf("tambala: collection %s of unknown asset %q", c.ID, r.Asset)
	}
	c.Asset = asset
	if c.Amount, err = money.Parse(asset, r.Amount); err != nil {
		return collections.CollectionV2{}, err
	}
	if c.Fee, err = money.Parse(asset, r.Fee); err != nil {
		return collections.CollectionV2{}, err
	}
	if c.AmountCredited, err = money.Parse(asset, r.AmountCredited); err != nil {
		return collections.CollectionV2{}, err
	}
	return c, nil
}

// ReferenceData is the payout reference data as read: the institutions
// with their networks and account number bounds, and when they were
// synced. It is stored as a codec.InstitutionsRecord.
type ReferenceData struct {
	Institutions []payouts.Institution
	SyncedAt     time.Time
}

// ToInstitutionsRecord is the stored form of list synced at.
func ToInstitutionsRecord(list []payouts.Institution, at time.Time) codec.InstitutionsRecord {
	rec := codec.InstitutionsRecord{Institutions: codec.StoreInstitutions(list), Networks: map[int]string{},
		AccountDigits: map[int][2]int{}, SyncedAt: at}
	for _, in := range list {
		switch in.Rail {
		case payouts.Momo:
			rec.Networks[in.ID] = in.Network
		case payouts.Bank:
			if in.AccountNumberMinDigits != 0 || in.AccountNumberMaxDigits != 0 {
				rec.AccountDigits[in.ID] = [2]int{in.AccountNumberMinDigits, in.AccountNumberMaxDigits}
			}
		}
	}
	return rec
}

// DecodeInstitutions decodes the stored reference data.
func DecodeInstitutions(raw []byte) (ReferenceData, error) {
	r, err := cache.DecodeJSON[codec.InstitutionsRecord](raw)
	if err != nil {
		return ReferenceData{}, err
	}
	rec := ReferenceData{Institutions: codec.LoadInstitutions(r.Institutions), SyncedAt: r.SyncedAt}
	for i := range rec.Institutions {
		in := &rec.Institutions[i]
		in.Network = r.Networks[in.ID]
		d := r.AccountDigits[in.ID]
		in.AccountNumberMinDigits, in.AccountNumberMaxDigits = d[0], d[1]
	}
	return rec, nil
}

// DecodeRails decodes the stored rail switches (the root's Rails, field
// for field).
func DecodeRails(raw []byte) (codec.RailsRecord, error) {
	return cache.DecodeJSON[codec.RailsRecord](raw)
}
