package orgs

import (
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// CheckFunding checks a funding from the operator's float before any
// organization is read: the amount positive and at most money.Max
// (validation_error, limit_exceeded), the ref given (validation_error).
func CheckFunding(amount money.Amount, ref string) error {
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

// CheckFundable checks that the organization may be funded in asset: the
// asset is enabled for it (corridor_not_enabled).
func (o *Organization) CheckFundable(asset money.AssetCode) error {
	if !o.Enabled(asset, "") {
		return errcode.Newf(errcode.CorridorNotEnabled, "%s is not enabled for this organization", asset)
	}
	return nil
}

// FundingEntryID is the ledger entry of funding ref of organization org in
// asset: a ref funds an organization in an asset once.
func FundingEntryID(org, asset, ref string) string { return "fund:" + org + ":" + asset + ":" + ref }
