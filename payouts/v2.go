package payouts

import (
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

// Wallet is the rail of a /v2 payout to a blockchain wallet.
const Wallet Rail = "wallet"

// DestinationKind is the kind of a /v2 payout's destination.
type DestinationKind string

// Destination kinds of a /v2 payout.
const (
	DestinationBank   DestinationKind = "bank"
	DestinationMomo   DestinationKind = "momo"
	DestinationWallet DestinationKind = "wallet"
)

// Check is the rule of the kind itself: given (destination.type is
// required) and one of bank, momo or wallet.
func (k DestinationKind) Check() error {
	switch k {
	case DestinationBank, DestinationMomo, DestinationWallet:
		return nil
	case "":
		return missing("destination.type")
	}
	return errcode.Newf(errcode.ValidationError, "destination.type must be bank, momo or wallet.")
}

// Rail is the rail a destination of kind k is paid on: Bank, Momo or
// Wallet; "" for a kind that is none of those.
func (k DestinationKind) Rail() Rail {
	switch k {
	case DestinationBank:
		return Bank
	case DestinationMomo:
		return Momo
	case DestinationWallet:
		return Wallet
	}
	return ""
}

// Fields is the set of fields a destination of kind k carries, beside its
// type: institution_id, account_number and beneficiary_name (bank);
// institution_id, mobile_number and beneficiary_name (momo); network and
// address (wallet); none for any other kind.
func (k DestinationKind) Fields() DestinationFields {
	switch k {
	case DestinationBank:
		return FieldInstitutionID | FieldAccountNumber | FieldBeneficiaryName
	case DestinationMomo:
		return FieldInstitutionID | FieldMobileNumber | FieldBeneficiaryName
	case DestinationWallet:
		return FieldNetwork | FieldAddress
	}
	return 0
}

// CheckAsset is the rule of the asset a destination of kind k is paid
// in: MWK on bank and momo, a stablecoin (by classes) on a wallet. Either
// failure is unsupported_asset. A kind that is none of those has no asset
// rule (Check refuses it).
func (k DestinationKind) CheckAsset(asset money.Asset, classes quotes.Classes) error {
	switch k {
	case DestinationBank, DestinationMomo:
		if asset.Code != money.MWK.Code {
			return errcode.Newf(errcode.UnsupportedAsset, "A %s payout is paid in MWK only, not %s.", k, asset.Code)
		}
	case DestinationWallet:
		if c, _ := classes.Lookup(asset.Code); c != quotes.Stablecoin {
			return errcode.Newf(errcode.UnsupportedAsset, "A wallet payout is paid in a stablecoin only, not %s.", asset.Code)
		}
	}
	return nil
}

// DestinationFields is a set of the fields of a /v2 destination, beside
// its type.
type DestinationFields uint8

// The fields of a /v2 destination.
const (
	FieldInstitutionID DestinationFields = 1 << iota
	FieldAccountNumber
	FieldMobileNumber
	FieldBeneficiaryName
	FieldNetwork
	FieldAddress
)

// Has reports whether every field of g is in f.
func (f DestinationFields) Has(g DestinationFields) bool { return f&g == g }

// Any reports whether some field of g is in f.
func (f DestinationFields) Any(g DestinationFields) bool { return f&g != 0 }

// V2Destination is where a /v2 payout goes: bank or momo (the /v1 fields
// and rules) or wallet (Network and Address). CheckFields says which
// fields each kind carries.
type V2Destination struct {
	Type            DestinationKind
	InstitutionID   int
	AccountNumber   string
	MobileNumber    string
	BeneficiaryName string
	Network         string
	Address         string
}

// Present is the set of d's fields that are set: a non-zero
// InstitutionID, a non-empty text. It is what a Go caller sends, and what
// CheckFields takes from one.
func (d V2Destination) Present() DestinationFields {
	var f DestinationFields
	for _, s := range []struct {
		set   bool
		field DestinationFields
	}{
		{d.InstitutionID != 0, FieldInstitutionID},
		{d.AccountNumber != "", FieldAccountNumber},
		{d.MobileNumber != "", FieldMobileNumber},
		{d.BeneficiaryName != "", FieldBeneficiaryName},
		{d.Network != "", FieldNetwork},
		{d.Address != "", FieldAddress},
	} {
		if s.set {
			f |= s.field
		}
	}
	return f
}

// Destination is d's bank or momo fields as a /v1 Destination, which
// Request.Validate and CheckInstitution check.
func (d V2Destination) Destination() Destination {
	return Destination{InstitutionID: d.InstitutionID, AccountNumber: d.AccountNumber,
		MobileNumber: d.MobileNumber, BeneficiaryName: d.BeneficiaryName}
}

// CheckFields is the one rule of which fields a /v2 destination carries,
// for a transport that decodes one and for the engine alike. sent is the
// set of fields the caller sent: a transport passes the members its body
// carries (a text sent as "" was sent; it is refused later, by
// Request.Validate, on bank and momo), the engine d.Present(). In order:
//
//   - the kind (DestinationKind.Check);
//   - bank and momo: institution_id sent; no network or address; a
//     beneficiary_name; then a bank destination account_number and no
//     mobile_number, a momo one mobile_number and no account_number;
//   - wallet: none of the bank and momo fields; then a network and an
//     address, each sent and not empty (no later rule asks for them).
//
// Each failure is validation_error naming the field or the kind. The
// values themselves (an institution's existence, a number's format, a
// network's address rule) are other rules'.
func (d V2Destination) CheckFields(sent DestinationFields) error {
	k := d.Type
	if err := k.Check(); err != nil {
		return err
	}
	switch k {
	case DestinationBank, DestinationMomo:
		if !sent.Has(FieldInstitutionID) {
			return missing("destination.institution_id")
		}
		if sent.Any(FieldNetwork | FieldAddress) {
			return errcode.Newf(errcode.ValidationError, "A %s destination has no network or address.", k)
		}
		if !sent.Has(FieldBeneficiaryName) {
			return missing("destination.beneficiary_name")
		}
		if k == DestinationBank {
			if !sent.Has(FieldAccountNumber) || sent.Has(FieldMobileNumber) {
				return errcode.Newf(errcode.ValidationError, "A bank destination has account_number and no mobile_number.")
			}
		} else if !sent.Has(FieldMobileNumber) || sent.Has(FieldAccountNumber) {
			return errcode.Newf(errcode.ValidationError, "A momo destination has mobile_number and no account_number.")
		}
	default: // wallet
		if sent.Any(DestinationBank.Fields() | DestinationMomo.Fields()) {
			return errcode.Newf(errcode.ValidationError, "A wallet destination has only network and address.")
		}
		if !sent.Has(FieldNetwork) || d.Network == "" {
			return missing("destination.network")
		}
		if !sent.Has(FieldAddress) || d.Address == "" {
			return missing("destination.address")
		}
	}
	return nil
}

// FX is the rate of a /v2 payout whose source asset is not its delivered
// asset, frozen at accept: Pair (From the source asset, To the delivered
// asset, Direction ToBank when the source is the stablecoin) at Rate, in
// corridor currency per one stablecoin.
type FX struct {
	Pair quotes.Pair
	Rate money.Rate
}

// ConvertUp converts a, in the delivered asset, to the source asset at
// fx's rate, rounded up to the source asset's decimals: what the source
// pays is never worth less than what is delivered. Zero is zero.
func (fx FX) ConvertUp(a money.Amount) (money.Amount, error) {
	if a.IsZero() {
		return money.Zero(fx.Pair.From), nil
	}
	if fx.Pair.Direction == quotes.ToBank { // source stablecoin, delivered corridor currency
		return money.Quo(a, fx.Rate, fx.Pair.From, money.RoundUp)
	}
	return money.Mul(a, fx.Rate, fx.Pair.From, money.RoundUp)
}

// V2Price is what a /v2 payout holds in its source asset: Principal for
// the amount delivered and Fee for the fee priced.
type V2Price struct {
	Principal money.Amount
	Fee       money.Amount
}

// Total is the hold: Principal plus Fee.
func (p V2Price) Total() (money.Amount, error) { return p.Principal.Add(p.Fee) }

// PriceV2 prices a /v2 payout of amount with fee, both in the delivered
// asset, in its source asset. A same-asset payout (fx nil) holds them as
// they are. An FX payout holds each converted by fx.ConvertUp; a principal
// above money.Max of the source asset is limit_exceeded.
func PriceV2(amount, fee money.Amount, fx *FX) (V2Price, error) {
	if fx == nil {
		return V2Price{Principal: amount, Fee: fee}, nil
	}
	principal, err := fx.ConvertUp(amount)
	if err != nil {
		return V2Price{}, err
	}
	if err := money.CheckMax("the source amount at this rate", principal); err != nil {
		return V2Price{}, err
	}
	feeSrc, err := fx.ConvertUp(fee)
	if err != nil {
		return V2Price{}, err
	}
	return V2Price{Principal: principal, Fee: feeSrc}, nil
}

// ChargeV2 is the fee, in the source asset, a /v2 payout p charges when it
// succeeds, p.HeldFee being the fee held. fee is the provider's fee in
// asset, the delivered asset (nil when it reported none; else it must be
// a non-negative amount in asset, or validation_error). The fee charged
// is the held fee, or the provider's fee (converted by fx.ConvertUp on an
// FX payout, as it is when fx is nil) when that is less; observed is then
// the provider's fee, nil otherwise. A provider fee above the hold is
// absorbed: the charge never exceeds p.HeldFee.
func ChargeV2(p Payout, asset money.Asset, fee *money.Amount, fx *FX) (charged money.Amount, observed *money.Amount, err error) {
	charged = p.HeldFee
	if fee == nil {
		return charged, nil, nil
	}
	if fee.Asset() != asset || fee.Sign() < 0 {
		return money.Amount{}, nil, errcode.Newf(errcode.ValidationError, "The fee of payout %s must be a non-negative amount in %s.", p.ID, asset.Code)
	}
	inSource := *fee
	if fx != nil {
		if inSource, err = fx.ConvertUp(*fee); err != nil {
			return money.Amount{}, nil, err
		}
	}
	if inSource.Cmp(p.HeldFee) < 0 {
		f := *fee
		return inSource, &f, nil
	}
	return charged, nil, nil
}

// FeeShownV2 is the fee a /v2 payout p shows, in asset, its delivered
// asset: nil until p is terminal (p.Fee nil), then 0 on a failure. Else,
// on a same-asset payout (fx false), the fee charged, p.Fee; on an FX
// payout the provider's fee when that was charged (observed, as ChargeV2
// returned it), or the fee priced at accept (priced).
func FeeShownV2(p Payout, asset money.Asset, fx bool, priced money.Amount, observed *money.Amount) (*money.Amount, error) {
	if p.Fee == nil {
		return nil, nil
	}
	var fee money.Amount
	var err error
	switch {
	case p.Status == Failed:
		fee = money.Zero(asset)
	case !fx: // same asset: the fee charged
		fee, err = money.Parse(asset, p.Fee.String())
	case observed != nil: // FX, the provider's fee below the priced one
		fee = *observed
	default: // FX: the priced fee was charged, in the source asset
		fee = priced
	}
	if err != nil {
		return nil, err
	}
	return &fee, nil
}

// V2Payout is a /v2 payout. Amount is what the destination
// receives in Asset; SourceAmount what was held in SourceAsset
// (principal plus fee, each converted and rounded up on an FX payout).
// Fee, in Asset, is nil until the payout is terminal: then the fee
// charged (0 on a failure).
type V2Payout struct {
	ID           string
	Org          string
	SourceAsset  money.Asset
	SourceAmount money.Amount
	Asset        money.Asset
	Amount       money.Amount
	Rate         *money.Rate
	Fee          *money.Amount
	Status       Status
	Destination  V2Destination
	Failure      *Failure
	CreatedAt    time.Time
	UpdatedAt    time.Time
	TerminalAt   *time.Time
	// PrincipalSource and FeeSource are the frozen source-asset parts of
	// SourceAmount (not rendered).
	PrincipalSource money.Amount
	FeeSource       money.Amount
}
