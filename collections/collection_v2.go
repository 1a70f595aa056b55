package collections

import (
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
)

// Source is where a /v2 collection came from.
type Source string

// Sources of a /v2 collection.
const (
	SourceDeposit     Source = "deposit"
	SourceOrderRefund Source = "order_refund"
	SourceSimulated   Source = "simulated"
)

// CollectionV2 is money received on /v2: a deposit, a returned order
// refund, or a simulated collection, in Asset. Amount - Fee =
// AmountCredited. Network is the network it came on, "" for none. An
// order_refund collection records the refund's one ledger posting; it is
// never a second credit.
type CollectionV2 struct {
	ID             string
	Status         Status
	Asset          money.Asset
	Amount         money.Amount
	Fee            money.Amount
	AmountCredited money.Amount
	Network        string
	Source         Source
	OrderID        *string
	CreatedAt      time.Time
}

// SimulatedV2 is a /v2 collection the sandbox makes up: an asset code, an
// amount as decimal text (bound to the asset once it is checked) and the
// network it came on, "" for none.
type SimulatedV2 struct {
	Asset   money.AssetCode
	Amount  money.Decimal // in Asset, bound to it when the asset is checked
	Network string
	// EmptyNetwork is set by a transport whose request named the network
	// as empty text (present, not absent or null), Network being "": the
	// network is then given, and refused as the unsupported network ""
	// where the network is checked (CheckNetwork), after the asset. A host
	// calling in Go leaves it false.
	EmptyNetwork bool
}

// Check checks what can be checked of s before its asset is looked up:
// an asset and an amount given (validation_error, the asset first).
func (s SimulatedV2) Check() error {
	if s.Asset == "" {
		return errcode.Newf(errcode.ValidationError, "asset is required.")
	}
	if s.Amount.String() == "" {
		return errcode.Newf(errcode.ValidationError, "amount is required.")
	}
	return nil
}

// CheckNetwork checks the network s names for asset (checked) and returns
// its id, "" when s names none: a fiat asset (classes) is carried on no
// network (validation_error); the network must be one of t
// (unsupported_network) and carry asset (unsupported_network).
func (s SimulatedV2) CheckNetwork(asset money.Asset, classes quotes.Classes, t networks.Table) (string, error) {
	if s.Network == "" && !s.EmptyNetwork {
		return "", nil
	}
	if class, _ := classes.Lookup(asset.Code); class == quotes.Fiat {
		return "", errcode.Newf(errcode.ValidationError, "network must be absent for %s, which is not carried on a network.", asset.Code)
	}
	n, err := t.Lookup(s.Network)
	if err != nil {
		return "", err
	}
	if !n.Carries(asset.Code) {
		return "", errcode.Newf(errcode.UnsupportedNetwork, "%s is not carried on the %s network.", asset.Code, n.ID)
	}
	return n.ID, nil
}

// ParseAmount binds a /v2 amount to asset: the grammar of money.Parse,
// no more decimals than the asset carries, above 0 (validation_error
// otherwise), and at most money.Max (limit_exceeded): the money binder,
// whose message of a non-positive amount reads "greater than 0" here.
func ParseAmount(asset money.Asset, d money.Decimal) (money.Amount, error) {
	return collectionAmount.BindDecimal(asset, d)
}

// collectionAmount names a /v2 collection's amount in the binder's messages.
var collectionAmount = money.AmountField{Name: "amount", Zero: "0"}

// FeeV2 is the fee of a /v2 collection of amount under the fee schedule
// s: MWK pays the /v1 collection fee (momo schedule), every other asset 0.
// An MWK amount above money.Max is limit_exceeded, one below its fee
// validation_error (ErrBelowFee), one the schedule cannot price
// rate_unavailable. So 0 <= fee <= amount, in amount's asset.
func FeeV2(s payouts.FeeSchedule, amount money.Amount) (money.Amount, error) {
	if amount.Asset() != money.MWK {
		return money.Zero(amount.Asset()), nil
	}
	if err := money.CheckMax("amount", amount); err != nil {
		return money.Amount{}, err
	}
	fee, err := Fee(s, payouts.Momo, amount)
	if err != nil {
		return money.Amount{}, err
	}
	if fee.Cmp(amount) > 0 {
		return money.Amount{}, &errcode.Error{Code: errcode.ValidationError,
			Message: fmt.Sprintf("amount is below the collection fee of %s %s.", fee, amount.Asset().Code), Err: ErrBelowFee}
	}
	return fee, nil
}

// SettleV2 makes /v2 collection id of org at now: amount received from
// source on network ("" for none), fee (FeeV2) kept; settled,
// AmountCredited = amount - fee, with the credit from external (entry
// collection_v2:<id>) and event collection_v2.settled. A fee in another
// asset or above the amount is ErrBelowFee.
func SettleV2(id, org string, amount, fee money.Amount, network string, source Source, now time.Time) (CollectionV2, []Posting, string, error) {
	credited, err := net(amount, fee)
	if err != nil {
		return CollectionV2{}, nil, "", err
	}
	c := CollectionV2{ID: id, Status: Settled, Asset: amount.Asset(), Amount: amount, Fee: fee, AmountCredited: credited,
		Network: network, Source: source, CreatedAt: now}
	return c, []Posting{credit(EntryIDV2(id), id, org, amount, fee)}, EventV2Settled, nil
}

// Refunded is /v2 collection id of a returned order refund, at now:
// settled, source order_refund, fee 0, Amount and AmountCredited the
// refund's, OrderID its order, on no network, with event
// collection_v2.settled. It posts nothing: it records the refund's one
// posting (rc.EntryID), never a second credit.
func Refunded(id string, rc orders.RefundCollection, now time.Time) (CollectionV2, string) {
	order := rc.OrderID
	return CollectionV2{ID: id, Status: Settled, Asset: rc.Amount.Asset(), Amount: rc.Amount, Fee: money.Zero(rc.Amount.Asset()),
		AmountCredited: rc.Amount, Source: SourceOrderRefund, OrderID: &order, CreatedAt: now}, EventV2Settled
}
