package tambala

import (
	"fmt"
	"net/netip"

	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
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

// toOrgRecord is the stored form of o.
func toOrgRecord(o Organization) codec.OrgRecord {
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
func fromOrgRecord(r codec.OrgRecord) (Organization, error) {
	o := Organization{ID: r.ID, Name: r.Name, Status: OrgStatus(r.Status), V2Access: V2Access(r.V2Access), CreatedAt: r.CreatedAt}
	var err error
	if o.BalanceFloorMWK, err = mwkOf(r.BalanceFloorMWK); err != nil {
		return Organization{}, fmt.Errorf("tambala: organization %s: stored floor: %w", r.ID, err)
	}
	if r.Assets != nil {
		o.Assets = make([]AssetAccess, len(r.Assets))
		for i, a := range r.Assets {
			o.Assets[i] = AssetAccess(a)
		}
	}
	if r.Allowlist != nil {
		o.Allowlist = make([]netip.Addr, len(r.Allowlist))
		for i, s := range r.Allowlist {
			if o.Allowlist[i], err = netip.ParseAddr(s); err != nil {
				return Organization{}, fmt.Errorf("tambala: organization %s: stored allowlist: %w", r.ID, err)
			}
		}
	}
	if rl := r.PayoutLimits; rl != nil {
		l := PayoutLimits{HourlyCount: rl.HourlyCount}
		if l.MaxPerPayoutMWK, err = mwkOf(rl.MaxPerPayoutMWK); err != nil {
			return Organization{}, fmt.Errorf("tambala: organization %s: stored payout limits: %w", r.ID, err)
		}
		if l.DailyVolumeMWK, err = mwkOf(rl.DailyVolumeMWK); err != nil {
			return Organization{}, fmt.Errorf("tambala: organization %s: stored payout limits: %w", r.ID, err)
		}
		o.PayoutLimits = &l
	}
	return o, nil
}

// decodeOrg decodes a stored organization.
func decodeOrg(raw []byte) (Organization, error) {
	r, err := cache.DecodeJSON[codec.OrgRecord](raw)
	if err != nil {
		return Organization{}, err
	}
	return fromOrgRecord(r)
}

// loadOrg reads organization id into o; a missing one is notFound.
func loadOrg(tx store.Tx, id string, o *Organization, notFound error) error {
	var r codec.OrgRecord
	if err := storage.GetJSON(tx, bucketOrgs, id, &r, notFound); err != nil {
		return err
	}
	var err error
	*o, err = fromOrgRecord(r)
	return err
}

// cachedOrg reads organization id through the engine's cache (the value is
// shared: read it, never change it); a missing one is notFound.
func (e *Engine) cachedOrg(tx store.Tx, id string, notFound error) (Organization, error) {
	return cache.Get(tx, bucketOrgs, id, &e.cachedOrgs, notFound, decodeOrg)
}
