package render

import (
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

type orderRefund struct {
	Status orders.RefundStatus `json:"status"`
}

type orderBeneficiary struct {
	Name          string  `json:"name"`
	BankName      string  `json:"bank_name"`
	AccountNumber string  `json:"account_number"`
	Branch        *string `json:"branch,omitempty"`
}

type orderFunding struct {
	BankName      string       `json:"bank_name"`
	AccountName   string       `json:"account_name"`
	AccountNumber string       `json:"account_number"`
	Reference     string       `json:"reference"`
	Amount        money.Amount `json:"amount"`
	Asset         string       `json:"asset"`
	Deadline      string       `json:"deadline"`
}

type orderProof struct {
	UploadedAt     string  `json:"uploaded_at"`
	RejectedReason *string `json:"rejected_reason,omitempty"`
}

type orderProofs struct {
	Funding *orderProof `json:"funding,omitempty"`
}

type order struct {
	ID          string            `json:"id"`
	ClientRef   string            `json:"client_ref"`
	FromAsset   string            `json:"from_asset"`
	FromAmount  money.Amount      `json:"from_amount"`
	ToAsset     string            `json:"to_asset"`
	ToAmount    money.Amount      `json:"to_amount"`
	Rate        money.Rate        `json:"rate"`
	Status      orders.Status     `json:"status"`
	Failure     *Failure          `json:"failure"`
	Refund      *orderRefund      `json:"refund,omitempty"`
	Beneficiary *orderBeneficiary `json:"beneficiary,omitempty"`
	Funding     *orderFunding     `json:"funding,omitempty"`
	Proofs      orderProofs       `json:"proofs"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
	ExpiresAt   *string           `json:"expires_at,omitempty"`
}

// Order is the one JSON rendering of an order: a read of one order (the
// engine's Client.Order), each item of the order lists and the data of
// every order event are these bytes. Presence rules: failure is null unless
// failed; refund only on a failed to-bank order whose coins had left;
// beneficiary on to-bank orders only, branch only when sent; funding and
// expires_at on from-bank orders from awaiting_funds on; proofs is {} until
// a proof, then {"funding":{"uploaded_at", "rejected_reason"?}} for the
// newest one; amounts at their asset's decimals, the rate trimmed, times in
// UTC with milliseconds. CoinsLeftAt, the organization, the quote id and
// the proof's id, hash, type and size are never rendered.
func Order(o orders.Order) []byte {
	r := order{
		ID: o.ID, ClientRef: o.ClientRef,
		FromAsset: string(o.From.Asset().Code), FromAmount: o.From,
		ToAsset: string(o.To.Asset().Code), ToAmount: o.To,
		Rate: o.Rate, Status: o.Status,
		CreatedAt: Time(o.CreatedAt), UpdatedAt: Time(o.UpdatedAt),
	}
	if o.Status == orders.Failed && o.Failure != nil {
		r.Failure = &Failure{Code: string(o.Failure.Code), Message: o.Failure.Message}
	}
	switch o.Direction {
	case orders.ToBank:
		if o.Status == orders.Failed && o.Refund != nil {
			r.Refund = &orderRefund{Status: o.Refund.Status}
		}
		if b := o.Beneficiary; b != nil {
			r.Beneficiary = &orderBeneficiary{Name: b.Name, BankName: b.BankName, AccountNumber: b.AccountNumber, Branch: b.Branch}
		}
	case orders.FromBank:
		if f := o.Funding; f != nil {
			deadline := Time(f.Deadline)
			r.Funding = &orderFunding{BankName: f.BankName, AccountName: f.AccountName, AccountNumber: f.AccountNumber,
				Reference: f.Reference, Amount: f.Amount, Asset: string(f.Amount.Asset().Code), Deadline: deadline}
			r.ExpiresAt = &deadline
		}
		if p := o.Proof; p != nil {
			r.Proofs.Funding = &orderProof{UploadedAt: Time(p.UploadedAt), RejectedReason: p.RejectedReason}
		}
	}
	return mustMarshal(r)
}
