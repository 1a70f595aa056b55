package orgs

import (
	"net/netip"
	"slices"
	"time"

	"github.com/tambalapay/tambala/money"
)

// Status is whether an organization may use the API at all.
type Status string

const (
	Active    Status = "active"
	Suspended Status = "suspended"
)

// V2Access is an organization's access to the multi-asset API.
type V2Access string

const (
	V2OnboardingIncomplete V2Access = "onboarding_incomplete"
	V2Enabled              V2Access = "enabled"
	V2AccessSuspended      V2Access = "access_suspended"
)

// Operations an organization may run in an asset.
const (
	OpPayout     = "payout"
	OpConvert    = "convert"
	OpCollection = "collection"
)

// AssetAccess is an asset enabled for an organization and the operations
// it may run in it.
type AssetAccess struct {
	Asset      money.AssetCode
	Operations []string
}

// EnabledAsset is an asset enabled for an organization as its client
// lists it: the asset's code and decimals, and the operations it may run
// in it.
type EnabledAsset struct {
	Asset      money.AssetCode
	Decimals   int32
	Operations []string
}

// Organization is a customer of the operator.
type Organization struct {
	ID       string
	Name     string
	Status   Status
	V2Access V2Access
	Assets   []AssetAccess
	// BalanceFloorMWK is the floor below which the organization's MWK
	// balance is reported low; the zero Amount when none (IsSet).
	BalanceFloorMWK money.Amount
	// Allowlist is the addresses the organization's keys may be used
	// from: exact, unmapped, sorted by their text, without repeats. Empty
	// allows every address.
	Allowlist []netip.Addr
	// PayoutLimits overrides DefaultPayoutLimits field by field; nil when
	// never set.
	PayoutLimits *PayoutLimits
	CreatedAt    time.Time
}

// Clone returns a copy of o that shares no slice or pointer with it.
func (o Organization) Clone() Organization {
	o.Allowlist = slices.Clone(o.Allowlist)
	o.Assets = cloneAssets(o.Assets)
	if o.PayoutLimits != nil {
		l := *o.PayoutLimits
		o.PayoutLimits = &l
	}
	return o
}

// cloneAssets copies a list of assets and their operations; nil stays nil.
func cloneAssets(in []AssetAccess) []AssetAccess {
	if in == nil {
		return nil
	}
	out := make([]AssetAccess, len(in))
	for i, a := range in {
		out[i] = AssetAccess{Asset: a.Asset, Operations: slices.Clone(a.Operations)}
	}
	return out
}

// Enabled reports whether operation op is enabled in asset for the
// organization (op "" asks whether the asset is enabled at all).
func (o *Organization) Enabled(asset money.AssetCode, op string) bool {
	for _, a := range o.Assets {
		if a.Asset == asset {
			return op == "" || slices.Contains(a.Operations, op)
		}
	}
	return false
}

// Allows reports whether a request from addr passes the allowlist: an
// empty list allows every address; otherwise addr, without its zone and
// unmapped, must be on it.
func (o *Organization) Allows(addr netip.Addr) bool {
	if len(o.Allowlist) == 0 {
		return true
	}
	return slices.Contains(o.Allowlist, addr.WithZone("").Unmap())
}
