package tambala

import (
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// payoutRecord is a payout as stored, with the worker's bookkeeping: a
// codec.PayoutRecord, whose fields and encoding it has, with the engine's
// readings of it.
type payoutRecord codec.PayoutRecord

// resolutionRecord is how the operator finished a payout.
type resolutionRecord = codec.ResolutionRecord

// payoutV2Record is the /v2 part of a payout record.
type payoutV2Record = codec.PayoutV2Record

func toPayoutRecord(p payouts.Payout) payoutRecord {
	r := payoutRecord{ID: p.ID, Org: p.Org, Rail: p.Rail, Amount: p.Amount.String(), HeldFee: p.HeldFee.String(),
		Status: p.Status, Destination: codec.StorePayoutDestination(p.Destination), Failure: codec.StorePayoutFailure(p.Failure),
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, TerminalAt: p.TerminalAt}
	if p.Fee != nil {
		s := p.Fee.String()
		r.Fee = &s
	}
	return r
}

func (r payoutRecord) payout() (payouts.Payout, error) {
	asset := money.MWK
	if r.V2 != nil {
		asset = v2Source(r.V2)
	}
	amt, err := money.Parse(asset, r.Amount)
	if err != nil {
		return payouts.Payout{}, err
	}
	held, err := money.Parse(asset, r.HeldFee)
	if err != nil {
		return payouts.Payout{}, err
	}
	p := payouts.Payout{ID: r.ID, Org: r.Org, Rail: r.Rail, Amount: amt, HeldFee: held, Status: r.Status,
		Destination: r.Destination.Destination(), Failure: r.Failure.PayoutFailure(), CreatedAt: r.CreatedAt,
		UpdatedAt: r.UpdatedAt, TerminalAt: r.TerminalAt}
	if r.Fee != nil {
		f, err := money.Parse(asset, *r.Fee)
		if err != nil {
			return payouts.Payout{}, err
		}
		p.Fee = &f
	}
	return p, nil
}

// v2Source is the source asset of a /v2 payout.
func v2Source(v *payoutV2Record) money.Asset {
	return money.Asset{Code: money.AssetCode(v.SourceAsset), Decimals: v.SourceDecimals}
}

// v2Asset is the delivered asset of a /v2 payout.
func v2Asset(v *payoutV2Record) money.Asset {
	return money.Asset{Code: money.AssetCode(v.Asset), Decimals: v.AssetDecimals}
}

// toPayoutV2DestinationRecord is the stored form of d.
func toPayoutV2DestinationRecord(d PayoutV2Destination) codec.PayoutV2DestinationRecord {
	return codec.PayoutV2DestinationRecord{Type: string(d.Type), InstitutionID: d.InstitutionID, AccountNumber: d.AccountNumber,
		MobileNumber: d.MobileNumber, BeneficiaryName: d.BeneficiaryName, Network: d.Network, Address: d.Address}
}

// fromPayoutV2DestinationRecord reads a stored destination back.
func fromPayoutV2DestinationRecord(d codec.PayoutV2DestinationRecord) PayoutV2Destination {
	return PayoutV2Destination{Type: DestinationKind(d.Type), InstitutionID: d.InstitutionID, AccountNumber: d.AccountNumber,
		MobileNumber: d.MobileNumber, BeneficiaryName: d.BeneficiaryName, Network: d.Network, Address: d.Address}
}

// AppendJSON is codec.PayoutRecord's: the record's JSON without reflection.
func (r payoutRecord) AppendJSON(b []byte) ([]byte, error) {
	return codec.PayoutRecord(r).AppendJSON(b)
}
