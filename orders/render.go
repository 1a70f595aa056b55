package orders

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// FormatTime renders t as every /v2 timestamp: UTC with milliseconds,
// 2006-01-02T15:04:05.000Z (payouts.FormatTime).
func FormatTime(t time.Time) string { return payouts.FormatTime(t) }

type renderedFailure struct {
	Code    FailureCode `json:"code"`
	Message string      `json:"message"`
}

type renderedRefund struct {
	Status RefundStatus `json:"status"`
}

type renderedBeneficiary struct {
	Name          string  `json:"name"`
	BankName      string  `json:"bank_name"`
	AccountNumber string  `json:"account_number"`
	Branch        *string `json:"branch,omitempty"`
}

type renderedFunding struct {
	BankName      string       `json:"bank_name"`
	AccountName   string       `json:"account_name"`
	AccountNumber string       `json:"account_number"`
	Reference     string       `json:"reference"`
	Amount        money.Amount `json:"amount"`
	Asset         string       `json:"asset"`
	Deadline      string       `json:"deadline"`
}

type renderedProof struct {
	UploadedAt     string  `json:"uploaded_at"`
	RejectedReason *string `json:"rejected_reason,omitempty"`
}

type renderedProofs struct {
	Funding *renderedProof `json:"funding,omitempty"`
}

type rendered struct {
	ID          string               `json:"id"`
	ClientRef   string               `json:"client_ref"`
	FromAsset   string               `json:"from_asset"`
	FromAmount  money.Amount         `json:"from_amount"`
	ToAsset     string               `json:"to_asset"`
	ToAmount    money.Amount         `json:"to_amount"`
	Rate        money.Rate           `json:"rate"`
	Status      Status               `json:"status"`
	Failure     *renderedFailure     `json:"failure"`
	Refund      *renderedRefund      `json:"refund,omitempty"`
	Beneficiary *renderedBeneficiary `json:"beneficiary,omitempty"`
	Funding     *renderedFunding     `json:"funding,omitempty"`
	Proofs      renderedProofs       `json:"proofs"`
	CreatedAt   string               `json:"created_at"`
	UpdatedAt   string               `json:"updated_at"`
	ExpiresAt   *string              `json:"expires_at,omitempty"`
}

func view(o Order) rendered {
	r := rendered{
		ID: o.ID, ClientRef: o.ClientRef,
		FromAsset: o.From.Asset().Code, FromAmount: o.From,
		ToAsset: o.To.Asset().Code, ToAmount: o.To,
		Rate: o.Rate, Status: o.Status,
		CreatedAt: FormatTime(o.CreatedAt), UpdatedAt: FormatTime(o.UpdatedAt),
	}
	if o.Status == Failed && o.Failure != nil {
		r.Failure = &renderedFailure{Code: o.Failure.Code, Message: o.Failure.Message}
	}
	switch o.Direction {
	case ToBank:
		if o.Status == Failed && o.Refund != nil {
			r.Refund = &renderedRefund{Status: o.Refund.Status}
		}
		if b := o.Beneficiary; b != nil {
			r.Beneficiary = &renderedBeneficiary{Name: b.Name, BankName: b.BankName, AccountNumber: b.AccountNumber, Branch: b.Branch}
		}
	case FromBank:
		if f := o.Funding; f != nil {
			deadline := FormatTime(f.Deadline)
			r.Funding = &renderedFunding{BankName: f.BankName, AccountName: f.AccountName, AccountNumber: f.AccountNumber,
				Reference: f.Reference, Amount: f.Amount, Asset: f.Amount.Asset().Code, Deadline: deadline}
			r.ExpiresAt = &deadline
		}
		if p := o.Proof; p != nil {
			r.Proofs.Funding = &renderedProof{UploadedAt: FormatTime(p.UploadedAt), RejectedReason: p.RejectedReason}
		}
	}
	return r
}

// Render is the one JSON rendering of an order: a read of one order (the
// engine's Client.Order), each item of the order lists and the data of
// every order event are these bytes. Presence rules: failure is null unless
// failed; refund only on a failed to-bank order whose coins had left;
// beneficiary on to-bank orders only, branch only when sent; funding and
// expires_at on from-bank orders from awaiting_funds on; proofs is {} until
// a proof, then {"funding":{"uploaded_at", "rejected_reason"?}} for the
// newest one; amounts at their asset's decimals, the rate trimmed, times in
// UTC with milliseconds. CoinsLeftAt, the organization, the quote id and
// the proof's id, hash, type and size are never rendered.
func Render(o Order) []byte {
	b, err := json.Marshal(view(o))
	if err != nil {
		panic("orders: rendering an order cannot fail: " + err.Error())
	}
	return b
}
