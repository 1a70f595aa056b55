package render

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// payoutV2JSON is a /v2 payout (payouts.V2Payout) as its client reads it,
// the assets by code. Rate is nil on a
// same-asset payout; Fee, Failure and TerminalAt are nil until known.
type payoutV2JSON struct {
	ID           string
	SourceAsset  string
	SourceAmount money.Amount
	Asset        string
	Amount       money.Amount
	Rate         *money.Rate
	Fee          *money.Amount
	Status       payouts.Status
	Destination  PayoutV2Destination
	Failure      *payouts.Failure
	CreatedAt    time.Time
	TerminalAt   *time.Time
}

// PayoutV2Destination is where a /v2 payout goes: the engine's
// PayoutV2Destination, the fields of its type only (the others are left
// out).
type PayoutV2Destination struct {
	Type            string `json:"type"`
	InstitutionID   int    `json:"institution_id,omitempty"`
	AccountNumber   string `json:"account_number,omitempty"`
	MobileNumber    string `json:"mobile_number,omitempty"`
	BeneficiaryName string `json:"beneficiary_name,omitempty"`
	Network         string `json:"network,omitempty"`
	Address         string `json:"address,omitempty"`
}

// PayoutV2 is the one rendering of a /v2 payout: a read of one (the
// engine's Client.Payout), each item of its list, the operator's view of
// one in flight and the data of the payout_v2.* events are these bytes:
// {"id","source_asset","source_amount","asset","amount","rate","fee",
// "status","destination","failure","created_at","terminal_at"}, rate,
// fee, failure and terminal_at null until known, the times in Time.
func PayoutV2(p payouts.V2Payout) []byte {
	d := p.Destination
	return payoutV2Bytes(payoutV2JSON{ID: p.ID, SourceAsset: string(p.SourceAsset.Code), SourceAmount: p.SourceAmount,
		Asset: string(p.Asset.Code), Amount: p.Amount, Rate: p.Rate, Fee: p.Fee, Status: p.Status, Failure: p.Failure,
		CreatedAt: p.CreatedAt, TerminalAt: p.TerminalAt,
		Destination: PayoutV2Destination{Type: string(d.Type), InstitutionID: d.InstitutionID, AccountNumber: d.AccountNumber,
			MobileNumber: d.MobileNumber, BeneficiaryName: d.BeneficiaryName, Network: d.Network, Address: d.Address}})
}

func payoutV2Bytes(p payoutV2JSON) []byte {
	var term *string
	if p.TerminalAt != nil {
		s := Time(*p.TerminalAt)
		term = &s
	}
	b, _ := json.Marshal(struct {
		ID           string              `json:"id"`
		SourceAsset  string              `json:"source_asset"`
		SourceAmount money.Amount        `json:"source_amount"`
		Asset        string              `json:"asset"`
		Amount       money.Amount        `json:"amount"`
		Rate         *money.Rate         `json:"rate"`
		Fee          *money.Amount       `json:"fee"`
		Status       payouts.Status      `json:"status"`
		Destination  PayoutV2Destination `json:"destination"`
		Failure      *Failure            `json:"failure"`
		CreatedAt    string              `json:"created_at"`
		TerminalAt   *string             `json:"terminal_at"`
	}{p.ID, p.SourceAsset, p.SourceAmount, p.Asset, p.Amount, p.Rate, p.Fee, p.Status, p.Destination,
		PayoutFailure(p.Failure), Time(p.CreatedAt), term})
	return b
}
