package tambala

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// OrgStatus is whether an organization may use the API at all.
type OrgStatus string

const (
	OrgActive    OrgStatus = "active"
	OrgSuspended OrgStatus = "suspended"
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
	Asset      string
	Operations []string
}

// Organization is a customer of the operator.
type Organization struct {
	ID       string
	Name     string
	Status   OrgStatus
	V2Access V2Access
	Assets   []AssetAccess
	// BalanceFloorMWK is the balance.low floor ("" when none).
	BalanceFloorMWK string
	Allowlist       []string
	// PayoutLimits overrides DefaultPayoutLimits field by field.
	PayoutLimits *PayoutLimits
	CreatedAt    time.Time
}

// clone returns a copy of o that shares no slice or pointer with it.
func (o Organization) clone() Organization {
	o.Allowlist = slices.Clone(o.Allowlist)
	if o.Assets != nil {
		assets := make([]AssetAccess, len(o.Assets))
		for i, a := range o.Assets {
			assets[i] = AssetAccess{Asset: a.Asset, Operations: slices.Clone(a.Operations)}
		}
		o.Assets = assets
	}
	if o.PayoutLimits != nil {
		l := *o.PayoutLimits
		o.PayoutLimits = &l
	}
	return o
}

// Enabled reports whether operation op is enabled in asset for the
// organization (op "" asks whether the asset is enabled at all).
func (o *Organization) Enabled(asset, op string) bool {
	for _, a := range o.Assets {
		if a.Asset == asset {
			return op == "" || slices.Contains(a.Operations, op)
		}
	}
	return false
}

// Allows reports whether a request from addr passes the allowlist.
func (o *Organization) Allows(addr netip.Addr) bool {
	if len(o.Allowlist) == 0 {
		return true
	}
	addr = addr.WithZone("").Unmap()
	for _, s := range o.Allowlist {
		if a, err := netip.ParseAddr(s); err == nil && a == addr {
			return true
		}
	}
	return false
}

// NewOrganization is what the operator gives to create an organization.
type NewOrganization struct {
	// Name is trimmed, then 1 to 200 bytes with no control or invisible
	// format character (validation_error).
	Name            string
	Assets          []AssetAccess // default: MWK with payout and collection
	V2Access        V2Access      // default: onboarding_incomplete
	BalanceFloorMWK string
}

// createOrganization is Operator.CreateOrganization.
func (e *Engine) createOrganization(ctx context.Context, n NewOrganization) (Organization, error) {
	o, err := e.newOrganization(n)
	if err != nil {
		return Organization{}, err
	}
	err = e.store.Update(ctx, func(tx store.Tx) error { return saveOrg(tx, &o) })
	return o, err
}

// newOrganization makes and validates the organization n asks for, with a
// new id; nothing is written.
func (e *Engine) newOrganization(n NewOrganization) (Organization, error) {
	name := strings.TrimSpace(n.Name)
	if name == "" || len(name) > 200 {
		return Organization{}, errcode.Newf(errcode.ValidationError, "name must be 1 to 200 characters")
	}
	if err := textrule.CheckChars("name", name); err != nil {
		return Organization{}, err
	}
	o := Organization{
		ID: e.newID(), Name: name, Status: OrgActive, V2Access: V2OnboardingIncomplete,
		Assets:    []AssetAccess{{Asset: money.MWK.Code, Operations: []string{OpPayout, OpCollection}}},
		CreatedAt: e.nowUTC(), Allowlist: []string{},
	}
	if n.V2Access != "" {
		o.V2Access = n.V2Access
	}
	if n.Assets != nil {
		o.Assets = slices.Clone(n.Assets)
	}
	if err := e.validateOrg(&o); err != nil {
		return Organization{}, err
	}
	if n.BalanceFloorMWK != "" {
		if err := e.setFloor(&o, n.BalanceFloorMWK); err != nil {
			return Organization{}, err
		}
	}
	return o, nil
}

func (e *Engine) validateOrg(o *Organization) error {
	switch o.V2Access {
	case V2OnboardingIncomplete, V2Enabled, V2AccessSuspended:
	default:
		return errcode.Newf(errcode.ValidationError, "v2 access must be onboarding_incomplete, enabled or access_suspended")
	}
	switch o.Status {
	case OrgActive, OrgSuspended:
	default:
		return errcode.Newf(errcode.ValidationError, "status must be active or suspended")
	}
	seen := map[string]bool{}
	for i, a := range o.Assets {
		if _, ok := e.assets.Lookup(a.Asset); !ok {
			return errcode.Newf(errcode.UnsupportedAsset, "asset %q is not configured", a.Asset)
		}
		if seen[a.Asset] {
			return errcode.Newf(errcode.ValidationError, "asset %s listed twice", a.Asset)
		}
		seen[a.Asset] = true
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
	slices.SortFunc(o.Assets, func(a, b AssetAccess) int { return strings.Compare(a.Asset, b.Asset) })
	return nil
}

func (e *Engine) setFloor(o *Organization, floor string) error {
	if floor == "" {
		o.BalanceFloorMWK = ""
		return nil
	}
	a, err := money.Parse(money.MWK, floor)
	if err != nil {
		return err
	}
	o.BalanceFloorMWK = a.String()
	return nil
}

// organization is Operator.Organization.
func (e *Engine) organization(ctx context.Context, id string) (Organization, error) {
	var o Organization
	err := e.store.View(ctx, func(tx store.Tx) error { return loadOrg(tx, id, &o, errNotFound) })
	return o, err
}

// organizations is Operator.Organizations.
func (e *Engine) organizations(ctx context.Context) ([]Organization, error) {
	var out []Organization
	err := e.store.View(ctx, func(tx store.Tx) error {
		return tx.Scan(bucketOrgs, store.ScanOptions{}, func(_, v []byte) (bool, error) {
			o, err := decodeOrg(v)
			if err != nil {
				return false, err
			}
			out = append(out, o)
			return true, nil
		})
	})
	return out, err
}

func (e *Engine) updateOrg(ctx context.Context, id string, mutate func(*Organization) error) (Organization, error) {
	var o Organization
	err := e.store.Update(ctx, func(tx store.Tx) error {
		o = Organization{}
		if err := loadOrg(tx, id, &o, errNotFound); err != nil {
			return err
		}
		if err := mutate(&o); err != nil {
			return err
		}
		if err := e.validateOrg(&o); err != nil {
			return err
		}
		return saveOrg(tx, &o)
	})
	return o, err
}

// saveOrg writes the organization and, beside it, its balance floor: every
// transaction that lowers a balance checks the floor, and reads only that
// small record instead of decoding the whole organization.
func saveOrg(tx store.Tx, o *Organization) error {
	if err := records.PutJSON(tx, bucketOrgs, o.ID, toOrgRecord(*o)); err != nil {
		return err
	}
	if o.BalanceFloorMWK == "" {
		return tx.Delete(bucketOrgFloors, []byte(o.ID))
	}
	return tx.Put(bucketOrgFloors, []byte(o.ID), []byte(o.BalanceFloorMWK))
}

// setOrganizationStatus is Operator.SetOrganizationStatus.
func (e *Engine) setOrganizationStatus(ctx context.Context, id string, s OrgStatus) (Organization, error) {
	return e.updateOrg(ctx, id, func(o *Organization) error { o.Status = s; return nil })
}

// setV2Access is Operator.SetV2Access.
func (e *Engine) setV2Access(ctx context.Context, id string, a V2Access) (Organization, error) {
	return e.updateOrg(ctx, id, func(o *Organization) error { o.V2Access = a; return nil })
}

// setAssets is Operator.SetAssets.
func (e *Engine) setAssets(ctx context.Context, id string, assets []AssetAccess) (Organization, error) {
	return e.updateOrg(ctx, id, func(o *Organization) error {
		o.Assets = append([]AssetAccess{}, assets...) // never nil: an organization with no asset lists none
		return nil
	})
}

// setBalanceFloor is Operator.SetBalanceFloor.
func (e *Engine) setBalanceFloor(ctx context.Context, id, floorMWK string) (Organization, error) {
	return e.updateOrg(ctx, id, func(o *Organization) error { return e.setFloor(o, floorMWK) })
}

// setAllowlist is Operator.SetAllowlist.
func (e *Engine) setAllowlist(ctx context.Context, id string, addrs []string) (Organization, error) {
	clean := make([]string, 0, len(addrs))
	for _, s := range addrs {
		if strings.Contains(s, "/") {
			return Organization{}, errcode.Newf(errcode.ValidationError, "allowlist entry %q is a range; only exact addresses are allowed", s)
		}
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil || a.Zone() != "" {
			return Organization{}, errcode.Newf(errcode.ValidationError, "allowlist entry %q is not an IPv4 or IPv6 address", s)
		}
		clean = append(clean, a.Unmap().String())
	}
	slices.Sort(clean)
	clean = slices.Compact(clean)
	return e.updateOrg(ctx, id, func(o *Organization) error { o.Allowlist = clean; return nil })
}

// setPayoutLimits is Operator.SetPayoutLimits.
func (e *Engine) setPayoutLimits(ctx context.Context, id string, l PayoutLimits) (Organization, error) {
	for _, v := range []string{l.MaxPerPayoutMWK, l.DailyVolumeMWK} {
		if v == "" {
			continue
		}
		if _, err := money.Parse(money.MWK, v); err != nil {
			return Organization{}, err
		}
	}
	if l.HourlyCount < 0 {
		return Organization{}, errcode.Newf(errcode.ValidationError, "hourly_count must not be negative")
	}
	return e.updateOrg(ctx, id, func(o *Organization) error { o.PayoutLimits = &l; return nil })
}

// fundOrg is Operator.Fund.
func (e *Engine) fundOrg(ctx context.Context, orgID string, amount money.Amount, ref string) error {
	if err := checkFunding(amount, ref); err != nil {
		return err
	}
	if err := textrule.CheckChars("ref", ref); err != nil {
		return err
	}
	return e.store.Update(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		return e.fund(tx, &o, amount, ref)
	})
}

// checkFunding checks a funding's amount and ref before any transaction.
func checkFunding(amount money.Amount, ref string) error {
	if amount.Sign() <= 0 {
		return errcode.Newf(errcode.ValidationError, "amount must be positive")
	}
	if err := money.CheckMax("amount", amount); err != nil {
		return err
	}
	if ref == "" {
		return errcode.Newf(errcode.ValidationError, "ref is required")
	}
	return nil
}

// fund credits o from the operator's float in tx (checkFunding first).
func (e *Engine) fund(tx store.Tx, o *Organization, amount money.Amount, ref string) error {
	if !o.Enabled(amount.Asset().Code, "") {
		return errcode.Newf(errcode.CorridorNotEnabled, "%s is not enabled for this organization", amount.Asset().Code)
	}
	_, err := ledger.Post(tx, ledger.Credit{
		EntryID: "fund:" + o.ID + ":" + amount.Asset().Code + ":" + ref, Org: o.ID, Amount: amount, From: ledger.Float, Ref: ref, At: e.nowUTC(),
	})
	if errors.Is(err, ledger.ErrEntryIDReused) {
		return errcode.Newf(errcode.Conflict, "This funding ref was already used with another amount.")
	}
	if err != nil {
		return fmt.Errorf("fund %s: %w", o.ID, err)
	}
	return nil
}
