package codec

import (
	"time"

	"github.com/tambalapay/tambala/internal/jsonw"
	"github.com/tambalapay/tambala/payouts"
)

// PayoutRecord is a payout as stored (the engine's record of a /v1 or /v2
// payout): amounts as decimal text, with the worker's bookkeeping. Fee is
// null until the payout is terminal, Failure until it failed. DueAt is
// when the worker next takes it up, Attempts how many provider calls in a
// row failed, Unknown how many "unknown reference" answers came in a row,
// Resubmit whether the next call is a submission again; Resolution is the
// operator's when the operator finished it. Those are absent when unset,
// and so is V2 on a /v1 payout (records of /v1 payouts read as before).
// On a /v2 payout Amount and HeldFee are principal_src and fee_src, and Fee
// the fee charged, all in the source asset.
type PayoutRecord struct {
	ID          string            `json:"id"`
	Org         string            `json:"org"`
	Rail        payouts.Rail      `json:"rail"`
	Amount      string            `json:"amount"`
	HeldFee     string            `json:"held_fee"`
	Fee         *string           `json:"fee"`
	Status      payouts.Status    `json:"status"`
	Destination PayoutDestination `json:"destination"`
	Failure     *Failure          `json:"failure"`
	CreatedAt   time.Time         `json:"created_at"`
	UpdatedAt   time.Time         `json:"updated_at"`
	TerminalAt  *time.Time        `json:"terminal_at"`
	DueAt       *time.Time        `json:"due_at,omitempty"`
	Attempts    int               `json:"attempts,omitempty"`
	Unknown     int               `json:"unknown,omitempty"`
	Resubmit    bool              `json:"resubmit,omitempty"`
	Resolution  *ResolutionRecord `json:"resolution,omitempty"`
	V2          *PayoutV2Record   `json:"v2,omitempty"`
}

// PayoutDestination is the stored form of a /v1 payout's destination. Its
// keys are the Go names the record was first written with.
type PayoutDestination struct {
	InstitutionID   int    `json:"InstitutionID"`
	AccountNumber   string `json:"AccountNumber"`
	MobileNumber    string `json:"MobileNumber"`
	BeneficiaryName string `json:"BeneficiaryName"`
}

// StorePayoutDestination is the stored form of d.
func StorePayoutDestination(d payouts.Destination) PayoutDestination {
	return PayoutDestination(d)
}

// Destination reads a stored destination back.
func (d PayoutDestination) Destination() payouts.Destination {
	return payouts.Destination(d)
}

// ResolutionRecord is how the operator finished a payout: the outcome,
// the reason given, the provider's reference when given, and when.
// Reference is omitted when empty, so a record written before it existed
// reads unchanged.
type ResolutionRecord struct {
	Outcome   payouts.Status `json:"outcome"`
	Reason    string         `json:"reason"`
	Reference string         `json:"reference,omitempty"`
	At        time.Time      `json:"at"`
}

// PayoutV2Record is the /v2 part of a payout record: the source and
// delivered assets (code and decimals), the amount delivered and the fee
// priced at accept (in the delivered asset), the rate (null on a
// same-asset payout) and the destination. FeeObserved is the provider's
// fee in the delivered asset when it was below the priced fee on an FX
// payout (charged converted); absent otherwise.
type PayoutV2Record struct {
	SourceAsset    string                    `json:"source_asset"`
	SourceDecimals int32                     `json:"source_decimals"`
	Asset          string                    `json:"asset"`
	AssetDecimals  int32                     `json:"asset_decimals"`
	Amount         string                    `json:"amount"`
	PricedFee      string                    `json:"fee"`
	Rate           *string                   `json:"rate"`
	Destination    PayoutV2DestinationRecord `json:"destination"`
	FeeObserved    *string                   `json:"fee_observed,omitempty"`
}

// PayoutV2DestinationRecord is the stored form of a /v2 payout's
// destination (the engine's PayoutV2Destination): the fields of its kind,
// the others absent.
type PayoutV2DestinationRecord struct {
	Type            string `json:"type"`
	InstitutionID   int    `json:"institution_id,omitempty"`
	AccountNumber   string `json:"account_number,omitempty"`
	MobileNumber    string `json:"mobile_number,omitempty"`
	BeneficiaryName string `json:"beneficiary_name,omitempty"`
	Network         string `json:"network,omitempty"`
	Address         string `json:"address,omitempty"`
}

// AppendJSON appends the record's JSON, the bytes encoding/json writes for
// it (tests hold the two together), without reflection: the record is
// written on every payout accept and every worker step.
func (r PayoutRecord) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = jsonw.String(b, r.ID)
	b = append(b, `,"org":`...)
	b = jsonw.String(b, r.Org)
	b = append(b, `,"rail":`...)
	b = jsonw.String(b, string(r.Rail))
	b = append(b, `,"amount":`...)
	b = jsonw.String(b, r.Amount)
	b = append(b, `,"held_fee":`...)
	b = jsonw.String(b, r.HeldFee)
	b = append(b, `,"fee":`...)
	b = jsonw.StringPtr(b, r.Fee)
	b = append(b, `,"status":`...)
	b = jsonw.String(b, string(r.Status))
	b = append(b, `,"destination":{"InstitutionID":`...)
	b = jsonw.Int(b, int64(r.Destination.InstitutionID))
	b = append(b, `,"AccountNumber":`...)
	b = jsonw.String(b, r.Destination.AccountNumber)
	b = append(b, `,"MobileNumber":`...)
	b = jsonw.String(b, r.Destination.MobileNumber)
	b = append(b, `,"BeneficiaryName":`...)
	b = jsonw.String(b, r.Destination.BeneficiaryName)
	b = append(b, `},"failure":`...)
	if r.Failure == nil {
		b = append(b, "null"...)
	} else {
		b = r.Failure.appendJSON(b)
	}
	b = append(b, `,"created_at":`...)
	if b, err = jsonw.Time(b, r.CreatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"updated_at":`...)
	if b, err = jsonw.Time(b, r.UpdatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"terminal_at":`...)
	if b, err = jsonw.TimePtr(b, r.TerminalAt); err != nil {
		return nil, err
	}
	if r.DueAt != nil {
		b = append(b, `,"due_at":`...)
		if b, err = jsonw.Time(b, *r.DueAt); err != nil {
			return nil, err
		}
	}
	if r.Attempts != 0 {
		b = append(b, `,"attempts":`...)
		b = jsonw.Int(b, int64(r.Attempts))
	}
	if r.Unknown != 0 {
		b = append(b, `,"unknown":`...)
		b = jsonw.Int(b, int64(r.Unknown))
	}
	if r.Resubmit {
		b = append(b, `,"resubmit":true`...)
	}
	if res := r.Resolution; res != nil {
		b = append(b, `,"resolution":{"outcome":`...)
		b = jsonw.String(b, string(res.Outcome))
		b = append(b, `,"reason":`...)
		b = jsonw.String(b, res.Reason)
		if res.Reference != "" {
			b = append(b, `,"reference":`...)
			b = jsonw.String(b, res.Reference)
		}
		b = append(b, `,"at":`...)
		if b, err = jsonw.Time(b, res.At); err != nil {
			return nil, err
		}
		b = append(b, '}')
	}
	if v := r.V2; v != nil {
		b = v.appendJSON(append(b, `,"v2":`...))
	}
	return append(b, '}'), nil
}

func (v *PayoutV2Record) appendJSON(b []byte) []byte {
	b = append(b, `{"source_asset":`...)
	b = jsonw.String(b, v.SourceAsset)
	b = append(b, `,"source_decimals":`...)
	b = jsonw.Int(b, int64(v.SourceDecimals))
	b = append(b, `,"asset":`...)
	b = jsonw.String(b, v.Asset)
	b = append(b, `,"asset_decimals":`...)
	b = jsonw.Int(b, int64(v.AssetDecimals))
	b = append(b, `,"amount":`...)
	b = jsonw.String(b, v.Amount)
	b = append(b, `,"fee":`...)
	b = jsonw.String(b, v.PricedFee)
	b = append(b, `,"rate":`...)
	b = jsonw.StringPtr(b, v.Rate)
	d := &v.Destination
	b = append(b, `,"destination":{"type":`...)
	b = jsonw.String(b, d.Type)
	if d.InstitutionID != 0 {
		b = append(b, `,"institution_id":`...)
		b = jsonw.Int(b, int64(d.InstitutionID))
	}
	for _, f := range [...]struct{ name, value string }{
		{`,"account_number":`, d.AccountNumber}, {`,"mobile_number":`, d.MobileNumber},
		{`,"beneficiary_name":`, d.BeneficiaryName}, {`,"network":`, d.Network}, {`,"address":`, d.Address},
	} {
		if f.value != "" {
			b = jsonw.String(append(b, f.name...), f.value)
		}
	}
	b = append(b, '}')
	if v.FeeObserved != nil {
		b = append(b, `,"fee_observed":`...)
		b = jsonw.String(b, *v.FeeObserved)
	}
	return append(b, '}')
}
