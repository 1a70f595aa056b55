package orgs

import (
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/money"
)

// Params is what the operator gives to create an organization.
type Params struct {
	// Name is trimmed, then 1 to 200 bytes with no control or invisible
	// format character (validation_error).
	Name string
	// Assets defaults to MWK with payout and collection (nil); an empty
	// list enables no asset.
	Assets []AssetAccess
	// V2Access defaults to onboarding_incomplete ("").
	V2Access V2Access
	// BalanceFloorMWK is the balance floor; the zero Amount sets none.
	BalanceFloorMWK money.Amount
}

// New makes organization id from p at now: the name checked (CheckName),
// then the organization, active, with an empty allowlist and no payout
// limits, validated as Validate does. assets are the configured assets.
func New(id string, p Params, assets money.Assets, now time.Time) (Organization, error) {
	name, err := CheckName(p.Name)
	if err != nil {
		return Organization{}, err
	}
	o := Organization{
		ID: id, Name: name, Status: Active, V2Access: V2OnboardingIncomplete,
		Assets:          []AssetAccess{{Asset: money.MWK.Code, Operations: []string{OpPayout, OpCollection}}},
		BalanceFloorMWK: p.BalanceFloorMWK, Allowlist: []netip.Addr{}, CreatedAt: now,
	}
	if p.V2Access != "" {
		o.V2Access = p.V2Access
	}
	if p.Assets != nil {
		o.Assets = cloneAssets(p.Assets)
	}
	if err := Validate(&o, assets); err != nil {
		return Organization{}, err
	}
	return o, nil
}

// CheckName checks an organization's name and returns it trimmed: 1 to
// 200 bytes with no control or invisible format character
// (validation_error). New checks it first.
func CheckName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return "", errcode.Newf(errcode.ValidationError, "name must be 1 to 200 characters")
	}
	if err := textrule.CheckChars("name", name); err != nil {
		return "", err
	}
	return name, nil
}

// Validate checks o against the configured assets and puts its lists in
// their one order, in this order: the v2 access and the status are known
// values; each asset is configured (unsupported_asset), listed once and
// runs known operations, which are sorted without repeats (never nil);
// the assets are sorted by code; the balance floor and the payout limits
// are MWK amounts of zero or more (or unset); the allowlist holds exact
// addresses. Every failure but unsupported_asset is validation_error.
func Validate(o *Organization, assets money.Assets) error {
	switch o.V2Access {
	case V2OnboardingIncomplete, V2Enabled, V2AccessSuspended:
	default:
		return errcode.Newf(errcode.ValidationError, "v2 access must be onboarding_incomplete, enabled or access_suspended")
	}
	switch o.Status {
	case Active, Suspended:
	default:
		return errcode.Newf(errcode.ValidationError, "status must be active or suspended")
	}
	seen := map[string]bool{}
	for i, a := range o.Assets {
		if _, ok := assets.Lookup(a.Asset); !ok {
			return errcode.Newf(errcode.UnsupportedAsset, "asset %q is not configured", a.Asset)
		}
		if seen[string(a.Asset)] {
			return errcode.Newf(errcode.ValidationError, "asset %s listed twice", a.Asset)
		}
		seen[string(a.Asset)] = true
		ops := slices.Clone(a.Operations)
		for _, op := range ops {
			if op != OpPayout && op != OpConvert && op != OpCollection {
				return errcode.Newf(errcode.ValidationError, "operation %q must be payout, convert or collection", op)
			}
		}
		slices.Sort(ops)
		o.Assets[i].Operations = slices.Compact(ops)
		if o.Assets[i].Operations == nil {
			o.Assets[i].Operations = []string{}
		}
	}
	slices.SortFunc(o.Assets, func(a, b AssetAccess) int { return strings.Compare(string(a.Asset), string(b.Asset)) })
	if err := CheckFloor(o.BalanceFloorMWK); err != nil {
		return err
	}
	if o.PayoutLimits != nil {
		if err := o.PayoutLimits.Check(); err != nil {
			return err
		}
	}
	return checkAddrs(o.Allowlist)
}
