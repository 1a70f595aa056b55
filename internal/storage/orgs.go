package storage

import (
	"errors"
	"fmt"
	"net/netip"

	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/store"
)

// The organizations, their balance floors, the engine's settings and the
// operator's per-asset limits.
var (
	bucketOrgs        = []byte("orgs")
	bucketOrgFloors   = []byte("orgs.floor") // org id -> MWK floor text
	bucketSettings    = []byte("settings")
	bucketAssetLimits = []byte("asset_limits") // asset NUL operation -> limits
)

// The due indexes of the payout worker and the webhook dispatcher.
var (
	PayoutsDue    = DueIndex("payouts.due")
	DeliveriesDue = DueIndex("webhooks.due")
)

// mwkText is the stored text of an optional MWK amount: "" when unset.
func mwkText(a money.Amount) string {
	if !a.IsSet() {
		return ""
	}
	return a.String()
}

// mwkOf reads back an optional MWK amount's stored text.
func mwkOf(s string) (money.Amount, error) {
	if s == "" {
		return money.Amount{}, nil
	}
	return money.Parse(money.MWK, s)
}

// orgRecord is the stored form of o.
func orgRecord(o orgs.Organization) codec.OrgRecord {
	r := codec.OrgRecord{ID: o.ID, Name: o.Name, Status: string(o.Status), V2Access: string(o.V2Access),
		BalanceFloorMWK: mwkText(o.BalanceFloorMWK), CreatedAt: o.CreatedAt}
	if o.Assets != nil {
		r.Assets = make([]codec.AssetAccessRecord, len(o.Assets))
		for i, a := range o.Assets {
			r.Assets[i] = codec.AssetAccessRecord(a)
		}
	}
	if o.Allowlist != nil {
		r.Allowlist = make([]string, len(o.Allowlist))
		for i, a := range o.Allowlist {
			r.Allowlist[i] = a.String()
		}
	}
	if l := o.PayoutLimits; l != nil {
		r.PayoutLimits = &codec.PayoutLimitsRecord{MaxPerPayoutMWK: mwkText(l.MaxPerPayoutMWK),
			DailyVolumeMWK: mwkText(l.DailyVolumeMWK), HourlyCount: l.HourlyCount}
	}
	return r
}

// fromOrgRecord reads a stored organization back.
func fromOrgRecord(r codec.OrgRecord) (orgs.Organization, error) {
	o := orgs.Organization{ID: r.ID, Name: r.Name, Status: orgs.Status(r.Status), V2Access: orgs.V2Access(r.V2Access), CreatedAt: r.CreatedAt}
	var err error
	if o.BalanceFloorMWK, err = mwkOf(r.BalanceFloorMWK); err != nil {
		return orgs.Organization{}, fmt.Errorf("tambala: organization %s: stored floor: %w", r.ID, err)
	}
	if r.Assets != nil {
		o.Assets = make([]orgs.AssetAccess, len(r.Assets))
		for i, a := range r.Assets {
			o.Assets[i] = orgs.AssetAccess(a)
		}
	}
	if r.Allowlist != nil {
		o.Allowlist = make([]netip.Addr, len(r.Allowlist))
		for i, s := range r.Allowlist {
			if o.Allowlist[i], err = netip.ParseAddr(s); err != nil {
				return orgs.Organization{}, fmt.Errorf("tambala: organization %s: stored allowlist: %w", r.ID, err)
			}
		}
	}
	if o.PayoutLimits, err = fromPayoutLimits(r.PayoutLimits); err != nil {
		return orgs.Organization{}, fmt.Errorf("tambala: organization %s: stored payout limits: %w", r.ID, err)
	}
	return o, nil
}

// fromPayoutLimits reads stored payout limits back (nil: none set).
func fromPayoutLimits(rl *codec.PayoutLimitsRecord) (*orgs.PayoutLimits, error) {
	if rl == nil {
		return nil, nil
	}
	l := orgs.PayoutLimits{HourlyCount: rl.HourlyCount}
	var err error
	if l.MaxPerPayoutMWK, err = mwkOf(rl.MaxPerPayoutMWK); err != nil {
		return nil, err
	}
	if l.DailyVolumeMWK, err = mwkOf(rl.DailyVolumeMWK); err != nil {
		return nil, err
	}
	return &l, nil
}

// decodeOrg decodes a stored organization.
func decodeOrg(raw []byte) (orgs.Organization, error) {
	r, err := cache.DecodeJSON[codec.OrgRecord](raw)
	if err != nil {
		return orgs.Organization{}, err
	}
	return fromOrgRecord(r)
}

// LoadOrg reads organization id; a missing one is notFound.
func LoadOrg(tx store.Tx, id string, notFound error) (orgs.Organization, error) {
	var r codec.OrgRecord
	if err := GetJSON(tx, bucketOrgs, id, &r, notFound); err != nil {
		return orgs.Organization{}, err
	}
	return fromOrgRecord(r)
}

// CachedOrg reads organization id through c (the value is shared: read
// it, never change it); a missing one is notFound.
func CachedOrg(tx store.Tx, id string, c *cache.Records[orgs.Organization], notFound error) (orgs.Organization, error) {
	return cache.Get(tx, bucketOrgs, id, c, notFound, decodeOrg)
}

// SaveOrg writes the organization and, beside it, its balance floor: every
// transaction that lowers a balance checks the floor, and reads only that
// small record (OrgFloor) instead of decoding the whole organization.
func SaveOrg(tx store.Tx, o orgs.Organization) error {
	r := orgRecord(o)
	if err := PutJSON(tx, bucketOrgs, o.ID, r); err != nil {
		return err
	}
	if r.BalanceFloorMWK == "" {
		return tx.Delete(bucketOrgFloors, []byte(o.ID))
	}
	return tx.Put(bucketOrgFloors, []byte(o.ID), []byte(r.BalanceFloorMWK))
}

// AppendOrgKey appends the key of org's record, for a store that reads
// it ahead (store.Prefetch).
func AppendOrgKey(dst []store.KeyRef, org string) []store.KeyRef {
	return append(dst, store.KeyRef{Bucket: bucketOrgs, Key: []byte(org)})
}

// AppendOrgFloorKey appends the key of org's balance floor, for a store
// that reads it ahead (store.Prefetch).
func AppendOrgFloorKey(dst []store.KeyRef, org string) []store.KeyRef {
	return append(dst, store.KeyRef{Bucket: bucketOrgFloors, Key: []byte(org)})
}

// OrgFloor is the stored text of organization id's MWK balance floor;
// store.ErrNotFound when it has none.
func OrgFloor(tx store.Tx, id string) ([]byte, error) { return getByString(tx, bucketOrgFloors, id) }

// Orgs lists every organization, in id order.
func Orgs(tx store.Tx) ([]orgs.Organization, error) {
	var out []orgs.Organization
	err := tx.Scan(bucketOrgs, store.ScanOptions{}, func(_, v []byte) (bool, error) {
		o, err := decodeOrg(v)
		if err != nil {
			return false, err
		}
		out = append(out, o)
		return true, nil
	})
	return out, err
}

// AnyOrg reports whether the store holds an organization.
func AnyOrg(tx store.Tx) (bool, error) { return anyIn(tx, bucketOrgs) }

// anyIn reports whether bucket holds a record.
func anyIn(tx store.Tx, bucket []byte) (bool, error) {
	found := false
	err := tx.Scan(bucket, store.ScanOptions{}, func(_, _ []byte) (bool, error) {
		found = true
		return false, nil
	})
	return found, err
}

// Setting reads the engine's setting key; store.ErrNotFound when unset.
func Setting(tx store.Tx, key []byte) ([]byte, error) { return tx.Get(bucketSettings, key) }

// PutSetting writes the engine's setting key.
func PutSetting(tx store.Tx, key, v []byte) error { return tx.Put(bucketSettings, key, v) }

// DeleteSetting removes the engine's setting key.
func DeleteSetting(tx store.Tx, key []byte) error { return tx.Delete(bucketSettings, key) }

// SettingJSON loads the setting key into v (GetJSON); unset is notFound.
func SettingJSON(tx store.Tx, key string, v any, notFound error) error {
	return GetJSON(tx, bucketSettings, key, v, notFound)
}

// PutSettingJSON stores v as the setting key (PutJSON).
func PutSettingJSON(tx store.Tx, key string, v any) error { return PutJSON(tx, bucketSettings, key, v) }

// pauseSetting is the setting of the pause switches.
var pauseSetting = []byte("pause")

// Pause is the stored pause switches; nil when never set.
func Pause(tx store.Tx) ([]byte, error) {
	raw, err := Setting(tx, pauseSetting)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return raw, err
}

// SavePause stores the pause switches.
func SavePause(tx store.Tx, r codec.PauseRecord) error {
	return PutSettingJSON(tx, string(pauseSetting), r)
}

// bootstrapMarkerPrefix starts a bootstrap marker's setting; its value is
// the organization's id.
const bootstrapMarkerPrefix = "bootstrap."

// BootstrapMarker is the id of the organization the bootstrap under marker
// created; ok is false when none did.
func BootstrapMarker(tx store.Tx, marker string) (id string, ok bool, err error) {
	v, err := Setting(tx, []byte(bootstrapMarkerPrefix+marker))
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	return string(v), err == nil, err
}

// SaveBootstrapMarker records that the bootstrap under marker created org.
func SaveBootstrapMarker(tx store.Tx, marker, org string) error {
	return PutSetting(tx, []byte(bootstrapMarkerPrefix+marker), []byte(org))
}

func assetLimitsKey(asset money.AssetCode, op string) string { return string(asset) + "\x00" + op }

// AssetLimits is the operator's limits of op in asset (the zero record
// when none are set).
func AssetLimits(tx store.Tx, asset money.AssetCode, op string) (codec.AssetLimitsRecord, error) {
	var r codec.AssetLimitsRecord
	err := GetJSON(tx, bucketAssetLimits, assetLimitsKey(asset, op), &r, nil)
	return r, err
}

// SaveAssetLimits stores the limits of op in asset; a record with neither
// bound removes them.
func SaveAssetLimits(tx store.Tx, asset money.AssetCode, op string, r codec.AssetLimitsRecord) error {
	if r.Min == nil && r.Max == nil {
		return tx.Delete(bucketAssetLimits, []byte(assetLimitsKey(asset, op)))
	}
	return PutJSON(tx, bucketAssetLimits, assetLimitsKey(asset, op), r)
}
