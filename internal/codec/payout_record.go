package codec

import (
	"time"

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
