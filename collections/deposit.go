package collections

import (
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
)

// Deposit is money received on a network for an organization: a
// provider's callback or the operator's record. (Network, TxRef)
// identifies it. Asset is the asset's code; Amount is in that asset.
type Deposit struct {
	Network string
	Asset   money.AssetCode
	Amount  money.Amount
	TxRef   string
}

// MaxTxRefLength bounds a deposit's tx_ref, in bytes; it holds no control
// or invisible format character either, so one transaction is never
// recorded twice under references that look the same.
const MaxTxRefLength = 255

// Check checks d against the networks t and the assets the engine
// accepts, in this order: tx_ref 1 to MaxTxRefLength bytes of the text
// rule (validation_error); the network one of t (unsupported_network);
// the asset configured (unsupported_asset) and carried on the network
// (unsupported_network); the amount a positive amount of that asset
// (validation_error) at most money.Max (limit_exceeded). It returns the
// network and the asset.
func (d Deposit) Check(t networks.Table, assets money.Assets) (networks.Network, money.Asset, error) {
	if d.TxRef == "" || len(d.TxRef) > MaxTxRefLength {
		return networks.Network{}, money.Asset{}, errcode.Newf(errcode.ValidationError, "tx_ref must be 1 to %d characters.", MaxTxRefLength)
	}
	if err := textrule.CheckChars("tx_ref", d.TxRef); err != nil {
		return networks.Network{}, money.Asset{}, err
	}
	n, err := t.Lookup(d.Network)
	if err != nil {
		return networks.Network{}, money.Asset{}, err
	}
	asset, ok := assets.Lookup(d.Asset)
	if !ok {
		return networks.Network{}, money.Asset{}, errcode.Newf(errcode.UnsupportedAsset, "The asset %q is not configured.", truncate(string(d.Asset), 12))
	}
	if !n.Carries(asset.Code) {
		return networks.Network{}, money.Asset{}, errcode.Newf(errcode.UnsupportedNetwork, "%s is not carried on the %s network.", asset.Code, n.ID)
	}
	if d.Amount.Asset() != asset || d.Amount.Sign() <= 0 {
		return networks.Network{}, money.Asset{}, errcode.Newf(errcode.ValidationError, "amount must be a positive %s amount.", asset.Code)
	}
	if err := money.CheckMax("amount", d.Amount); err != nil {
		return networks.Network{}, money.Asset{}, err
	}
	return n, asset, nil
}

// Recorded is what the engine keeps of a recorded deposit under its
// (network, tx_ref): the organization credited, the asset's code, the
// amount as decimal text (the amount's String) and the /v2 collection
// that recorded it.
type Recorded struct {
	Org        string
	Asset      money.AssetCode
	Amount     string
	Collection string
}

// Recorded is what the engine keeps of d (checked: its amount is in its
// asset) once /v2 collection collection recorded it for org.
func (d Deposit) Recorded(org, collection string) Recorded {
	return Recorded{Org: org, Asset: d.Amount.Asset().Code, Amount: d.Amount.String(), Collection: collection}
}

// Replay answers d (checked) recorded for org again under the (network,
// tx_ref) of first: the id of the collection that recorded it when d has
// first's figures (organization, asset and amount), conflict otherwise.
func (d Deposit) Replay(org string, first Recorded) (string, error) {
	if first.Org != org || first.Asset != d.Amount.Asset().Code || first.Amount != d.Amount.String() {
		return "", errcode.Newf(errcode.Conflict, "The deposit %s on %s was recorded with other figures.", truncate(d.TxRef, 64), d.Network)
	}
	return first.Collection, nil
}

// DepositAddress is an organization's deposit address on a network and
// the assets it may deposit there.
type DepositAddress struct {
	Network string
	Address string
	Assets  []money.AssetCode
}

// DepositNetworks are the networks of t an organization may deposit on,
// by network id, without their addresses: those carrying at least one
// asset it collects (collects reports whether an asset of its list is
// enabled with collection), each with those assets in the network's
// order. Nil when there is none.
func DepositNetworks(t networks.Table, collects func(asset money.AssetCode) bool) []DepositAddress {
	var out []DepositAddress
	for _, n := range t.Sorted() {
		if d := AddressOn(n, "", collects); len(d.Assets) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// AddressOn is an organization's entry on network n with address: the
// assets of n it collects, in n's order (empty, never nil, when none).
func AddressOn(n networks.Network, address string, collects func(asset money.AssetCode) bool) DepositAddress {
	d := DepositAddress{Network: n.ID, Address: address, Assets: []money.AssetCode{}}
	for _, a := range n.Assets {
		if collects(a) {
			d.Assets = append(d.Assets, a)
		}
	}
	return d
}

// CheckIssued checks an address an issuer gave for network n: valid for
// the network's first asset (invalid_wallet_address otherwise).
func CheckIssued(n networks.Network, address string) error {
	return n.CheckAddress(n.Assets[0], address)
}

// CheckRotation checks the address an issuer gave to replace the one in
// use, old ("" for none): it must be another (service_unavailable,
// ErrSameAddress, otherwise).
func CheckRotation(old, issued string) error {
	if issued == old {
		return &errcode.Error{Code: errcode.ServiceUnavailable, Message: "The issuer gave the address already in use; try again later.", Err: ErrSameAddress}
	}
	return nil
}

// truncate cuts s to at most n bytes, for a message.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
