package tambala

import (
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/store"
)

// toOrgRecord is the stored form of o.
func toOrgRecord(o Organization) codec.OrgRecord {
	r := codec.OrgRecord{ID: o.ID, Name: o.Name, Status: string(o.Status), V2Access: string(o.V2Access),
		BalanceFloorMWK: o.BalanceFloorMWK, Allowlist: o.Allowlist, CreatedAt: o.CreatedAt}
	if o.Assets != nil {
		r.Assets = make([]codec.AssetAccessRecord, len(o.Assets))
		for i, a := range o.Assets {
			r.Assets[i] = codec.AssetAccessRecord(a)
		}
	}
	if o.PayoutLimits != nil {
		l := codec.PayoutLimitsRecord(*o.PayoutLimits)
		r.PayoutLimits = &l
	}
	return r
}

// fromOrgRecord reads a stored organization back.
func fromOrgRecord(r codec.OrgRecord) Organization {
	o := Organization{ID: r.ID, Name: r.Name, Status: OrgStatus(r.Status), V2Access: V2Access(r.V2Access),
		BalanceFloorMWK: r.BalanceFloorMWK, Allowlist: r.Allowlist, CreatedAt: r.CreatedAt}
	if r.Assets != nil {
		o.Assets = make([]AssetAccess, len(r.Assets))
		for i, a := range r.Assets {
			o.Assets[i] = AssetAccess(a)
		}
	}
	if r.PayoutLimits != nil {
		l := PayoutLimits(*r.PayoutLimits)
		o.PayoutLimits = &l
	}
	return o
}

// decodeOrg decodes a stored organization.
func decodeOrg(raw []byte) (Organization, error) {
	r, err := cache.DecodeJSON[codec.OrgRecord](raw)
	return fromOrgRecord(r), err
}

// loadOrg reads organization id into o; a missing one is notFound.
func loadOrg(tx store.Tx, id string, o *Organization, notFound error) error {
	var r codec.OrgRecord
	if err := records.GetJSON(tx, bucketOrgs, id, &r, notFound); err != nil {
		return err
	}
	*o = fromOrgRecord(r)
	return nil
}

// cachedOrg reads organization id through the engine's cache (the value is
// shared: read it, never change it); a missing one is notFound.
func (e *Engine) cachedOrg(tx store.Tx, id string, notFound error) (Organization, error) {
	return cache.Get(tx, bucketOrgs, id, &e.cachedOrgs, notFound, decodeOrg)
}
