package tambala

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/store"
)

// The organization's rules are package orgs's; these are its names in the
// engine's API.

// Organization is a customer of the operator (orgs.Organization).
type Organization = orgs.Organization

// OrgStatus is whether an organization may use the API at all.
type OrgStatus = orgs.Status

const (
	OrgActive    = orgs.Active
	OrgSuspended = orgs.Suspended
)

// V2Access is an organization's access to the multi-asset API.
type V2Access = orgs.V2Access

const (
	V2OnboardingIncomplete = orgs.V2OnboardingIncomplete
	V2Enabled              = orgs.V2Enabled
	V2AccessSuspended      = orgs.V2AccessSuspended
)

// Operations an organization may run in an asset.
const (
	OpPayout     = orgs.OpPayout
	OpConvert    = orgs.OpConvert
	OpCollection = orgs.OpCollection
)

// AssetAccess is an asset enabled for an organization and the operations
// it may run in it.
type AssetAccess = orgs.AssetAccess

// NewOrganization is what the operator gives to create an organization
// (orgs.Params).
type NewOrganization = orgs.Params

// PayoutLimits are an organization's business limits on /v1 payouts
// (orgs.PayoutLimits): the zero value of a field is unset.
type PayoutLimits = orgs.PayoutLimits

// DefaultPayoutLimits apply to an organization with none set.
func DefaultPayoutLimits() PayoutLimits { return orgs.DefaultPayoutLimits() }

// createOrganization is Operator.CreateOrganization.
func (e *Engine) createOrganization(ctx context.Context, n NewOrganization) (Organization, error) {
	o, err := e.newOrganization(n)
	if err != nil {
		return Organization{}, err
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		if err := saveOrg(tx, &o); err != nil {
			return err
		}
		return e.auditAs(ctx, tx, o.ID, AuditOrgCreated, o.ID, fmt.Sprintf("created %q", o.Name))
	})
	return o, err
}

// newOrganization makes and validates the organization n asks for, with a
// new id; nothing is written. The name is checked before an id is drawn.
func (e *Engine) newOrganization(n NewOrganization) (Organization, error) {
	if _, err := orgs.CheckName(n.Name); err != nil {
		return Organization{}, err
	}
	return orgs.New(e.newID(), n, e.assets, e.nowUTC())
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

// updateOrg makes change c to organization id: c's own figures checked
// first, then, in one transaction, the organization read (not_found),
// changed and validated (orgs.Apply) and written.
func (e *Engine) updateOrg(ctx context.Context, id string, c orgs.Change) (Organization, error) {
	if c != nil {
		if err := c.Check(); err != nil {
			return Organization{}, err
		}
	}
	var o Organization
	err := e.store.Update(ctx, func(tx store.Tx) error {
		var prev Organization
		if err := loadOrg(tx, id, &prev, errNotFound); err != nil {
			return err
		}
		next, err := orgs.Apply(prev, c, e.assets)
		if err != nil {
			return err
		}
		o = next
		if err := saveOrg(tx, &o); err != nil {
			return err
		}
		return e.auditOrgChange(ctx, tx, prev, next, c)
	})
	if err != nil {
		return Organization{}, err
	}
	return o, nil
}

// saveOrg writes the organization and, beside it, its balance floor: every
// transaction that lowers a balance checks the floor, and reads only that
// small record instead of decoding the whole organization.
func saveOrg(tx store.Tx, o *Organization) error {
	r := toOrgRecord(*o)
	if err := storage.PutJSON(tx, bucketOrgs, o.ID, r); err != nil {
		return err
	}
	if r.BalanceFloorMWK == "" {
		return tx.Delete(bucketOrgFloors, []byte(o.ID))
	}
	return tx.Put(bucketOrgFloors, []byte(o.ID), []byte(r.BalanceFloorMWK))
}

// setOrganizationStatus is Operator.SetOrganizationStatus.
func (e *Engine) setOrganizationStatus(ctx context.Context, id string, s OrgStatus) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetStatus{Status: s})
}

// setV2Access is Operator.SetV2Access.
func (e *Engine) setV2Access(ctx context.Context, id string, a V2Access) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetV2Access{Access: a})
}

// setAssets is Operator.SetAssets.
func (e *Engine) setAssets(ctx context.Context, id string, assets []AssetAccess) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetAssets{Assets: assets})
}

// setBalanceFloor is Operator.SetBalanceFloor.
func (e *Engine) setBalanceFloor(ctx context.Context, id string, floor money.Amount) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetBalanceFloor{Floor: floor})
}

// setAllowlist is Operator.SetAllowlist.
func (e *Engine) setAllowlist(ctx context.Context, id string, addrs []netip.Addr) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetAllowlist{Addrs: addrs})
}

// setPayoutLimits is Operator.SetPayoutLimits.
func (e *Engine) setPayoutLimits(ctx context.Context, id string, l PayoutLimits) (Organization, error) {
	return e.updateOrg(ctx, id, orgs.SetPayoutLimits{Limits: l})
}

// fundOrg is Operator.Fund.
func (e *Engine) fundOrg(ctx context.Context, orgID string, amount money.Amount, ref string) error {
	_, err := e.fundOrgOnce(ctx, orgID, amount, ref)
	return err
}

// fundOrgOnce is fundOrg; credited is false when ref had credited the
// amount before (nothing moved now).
func (e *Engine) fundOrgOnce(ctx context.Context, orgID string, amount money.Amount, ref string) (credited bool, err error) {
	if err := orgs.CheckFunding(amount, ref); err != nil {
		return false, err
	}
	if err := textrule.CheckChars("ref", ref); err != nil {
		return false, err
	}
	var pending *Approval
	err = e.store.Update(ctx, func(tx store.Tx) error {
		pending, credited = nil, false
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		if err := o.CheckFundable(amount.Asset().Code); err != nil {
			return err
		}
		var err error
		pending, err = e.gate(ctx, tx, approvals.Funding, orgID, amount, orgs.FundingEntryID(orgID, string(amount.Asset().Code), ref),
			accounts.StaffOperations, map[string]string{"ref": ref})
		if err != nil || pending != nil {
			return err
		}
		credited, err = e.fund(tx, &o, amount, ref)
		if err != nil || !credited {
			return err
		}
		return e.auditAs(ctx, tx, orgID, AuditOrgFunded, orgID, fmt.Sprintf("credited %s from the float, ref %q", amountText(amount), ref))
	})
	if err == nil && pending != nil {
		return false, &ApprovalPendingError{Approval: *pending}
	}
	return credited && err == nil, err
}

// fund credits o from the operator's float in tx (orgs.CheckFunding
// first); credited is false when ref had already credited the same amount.
func (e *Engine) fund(tx store.Tx, o *Organization, amount money.Amount, ref string) (credited bool, err error) {
	code := amount.Asset().Code
	if err := o.CheckFundable(code); err != nil {
		return false, err
	}
	eff, err := postLedger(tx, ledger.Credit{
		EntryID: orgs.FundingEntryID(o.ID, string(code), ref), Org: o.ID, Amount: amount, From: ledger.Float, Ref: ref, At: e.nowUTC(),
	})
	if errors.Is(err, ledger.ErrEntryIDReused) {
		return false, errcode.Newf(errcode.Conflict, "This funding ref was already used with another amount.")
	}
	if err != nil {
		return false, fmt.Errorf("fund %s: %w", o.ID, err)
	}
	return !eff.Replayed, nil
}
