package ledger

import (
	"fmt"
	"strings"

	"github.com/tambalapay/tambala/money"
)

// Bucket is the kind of an account.
type Bucket string

// Customer buckets, one each per organization and asset.
const (
	Available Bucket = "available"
	Held      Bucket = "held"
	// Shortfall is what the organization owes: fees charged beyond its
	// available balance. It is never positive (its negation is the amount
	// owed), and the next credit covers it first.
	Shortfall Bucket = "shortfall"
)

// System buckets, one each per asset. They may go negative: a negative
// external balance is money that came in from outside.
const (
	Float    Bucket = "float"    // the operator's own funds (OTC trades are paid from it)
	Provider Bucket = "provider" // paid out, at or past a payment provider
	Fees     Bucket = "fees"     // fees charged to organizations
	Desk     Bucket = "desk"     // the operator's desk (conversions, orders)
	External Bucket = "external" // the outside world (collections, clawbacks)
)

// IsCustomer reports whether b is an organization's bucket.
func (b Bucket) IsCustomer() bool { return b == Available || b == Held || b == Shortfall }

// violates reports whether a balance with the given sign breaks the
// ledger's rule for b: customer available and held never go below zero,
// shortfall never above it; system accounts have no bound.
func violates(b Bucket, balance int) bool {
	switch b {
	case Available, Held:
		return balance < 0
	case Shortfall:
		return balance > 0
	}
	return false
}

// IsSystem reports whether b is a system bucket.
func (b Bucket) IsSystem() bool {
	switch b {
	case Float, Provider, Fees, Desk, External:
		return true
	}
	return false
}

// Account is one balance: an organization's customer bucket, or a system
// bucket (Owner empty) in one asset.
type Account struct {
	Owner  string
	Bucket Bucket
	Asset  money.Asset
}

// OrgAccount returns an organization's available or held account.
func OrgAccount(org string, b Bucket, asset money.Asset) Account {
	return Account{Owner: org, Bucket: b, Asset: asset}
}

// SystemAccount returns a system account.
func SystemAccount(b Bucket, asset money.Asset) Account {
	return Account{Bucket: b, Asset: asset}
}

func (a Account) String() string {
	if a.Owner == "" {
		return fmt.Sprintf("system/%s/%s", a.Bucket, a.Asset.Code)
	}
	return fmt.Sprintf("org/%s/%s/%s", a.Owner, a.Bucket, a.Asset.Code)
}

func (a Account) valid() error {
	switch {
	case a.Bucket.IsCustomer() && a.Owner == "":
		return fmt.Errorf("ledger: %s account needs an owner", a.Bucket)
	case a.Bucket.IsSystem() && a.Owner != "":
		return fmt.Errorf("ledger: system account %s has an owner", a.Bucket)
	case !a.Bucket.IsCustomer() && !a.Bucket.IsSystem():
		return fmt.Errorf("ledger: unknown bucket %q", a.Bucket)
	case strings.ContainsRune(a.Owner, 0):
		return fmt.Errorf("ledger: owner contains NUL")
	case a.Asset.Code == "":
		return fmt.Errorf("ledger: account without asset")
	}
	return nil
}

// Balance is an organization's balance in one asset.
type Balance struct {
	Asset     money.Asset
	Available money.Amount
	Held      money.Amount
	// Shortfall is what the organization owes (zero or positive): fees
	// charged beyond its available balance, covered first by the next credit.
	Shortfall money.Amount
}
