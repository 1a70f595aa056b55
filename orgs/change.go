package orgs

import (
	"net/netip"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// A Change is one change the operator makes to an organization:
// SetStatus, SetV2Access, SetAssets, SetBalanceFloor, SetAllowlist or
// SetPayoutLimits.
type Change interface {
	// Check checks what the change carries that needs no organization:
	// the engine calls it before it reads the organization.
	Check() error
	apply(o *Organization)
}

// SetStatus suspends or reactivates an organization.
type SetStatus struct{ Status Status }

// SetV2Access sets an organization's access to the multi-asset API.
type SetV2Access struct{ Access V2Access }

// SetAssets replaces the assets and operations enabled for an
// organization; nil enables none.
type SetAssets struct{ Assets []AssetAccess }

// SetBalanceFloor sets the balance floor; the zero Amount removes it.
type SetBalanceFloor struct{ Floor money.Amount }

// SetAllowlist replaces the IP allowlist with exact addresses; an empty
// list allows every address.
type SetAllowlist struct{ Addrs []netip.Addr }

// SetPayoutLimits sets the /v1 payout limits (unset fields keep the
// defaults).
type SetPayoutLimits struct{ Limits PayoutLimits }

// Check is nil: the status is checked on the organization.
func (SetStatus) Check() error { return nil }

// Check is nil: the access is checked on the organization.
func (SetV2Access) Check() error { return nil }

// Check is nil: the assets are checked on the organization, against the
// configured ones.
func (SetAssets) Check() error { return nil }

// Check is nil: the floor is checked on the organization.
func (SetBalanceFloor) Check() error { return nil }

// Check checks each address: valid, without a zone.
func (c SetAllowlist) Check() error { return checkAddrs(c.Addrs) }

// Check checks the limits (PayoutLimits.Check).
func (c SetPayoutLimits) Check() error { return c.Limits.Check() }

func (c SetStatus) apply(o *Organization)       { o.Status = c.Status }
func (c SetV2Access) apply(o *Organization)     { o.V2Access = c.Access }
func (c SetBalanceFloor) apply(o *Organization) { o.BalanceFloorMWK = c.Floor }

func (c SetAssets) apply(o *Organization) {
	o.Assets = cloneAssets(c.Assets)
	if o.Assets == nil {
		o.Assets = []AssetAccess{} // an organization with no asset lists none
	}
}

func (c SetAllowlist) apply(o *Organization) { o.Allowlist = canonicalAllowlist(c.Addrs) }

func (c SetPayoutLimits) apply(o *Organization) {
	l := c.Limits
	o.PayoutLimits = &l
}

// Apply makes change c to o and returns the organization it makes,
// checked (c.Check) and validated (Validate, against the configured
// assets), or the first failure and o unchanged. o itself is never
// modified.
func Apply(o Organization, c Change, assets money.Assets) (Organization, error) {
	if c == nil {
		return o, errcode.Newf(errcode.ValidationError, "no change given")
	}
	if err := c.Check(); err != nil {
		return o, err
	}
	next := o.Clone()
	c.apply(&next)
	if err := Validate(&next, assets); err != nil {
		return o, err
	}
	return next, nil
}
