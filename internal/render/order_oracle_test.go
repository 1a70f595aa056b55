package render

import (
	"encoding/json"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
)

// The shape Order renders, as encoding/json would write it: the oracle
// the hand-written rendering is held to.
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

type orderShape struct {
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

func orderByReflection(o orders.Order) []byte {
	r := orderShape{
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
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return b
}

// Order writes what encoding/json writes for its shape, for any order:
// either direction or another, any status, text, amount, rate, failure,
// refund, beneficiary, funding, proof and time zone.
func TestOrderMatchesEncodingJSON(t *testing.T) {
	text := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune{'"', '\\', '<', '&', '\u2028', 0, '\n', 'a', 'é'})),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }))
	optText := rapid.Ptr(text, true)
	asset := rapid.SampledFrom([]money.Asset{money.MWK, money.USDT, {Code: "X", Decimals: 0}, {Code: "Y", Decimals: 18}})
	amount := rapid.Custom(func(t *rapid.T) money.Amount {
		return money.FromUnits(asset.Draw(t, "asset"), rapid.Int64Range(-1<<62, 1<<62).Draw(t, "units"))
	})
	rate := rapid.Custom(func(t *rapid.T) money.Rate {
		if rapid.Bool().Draw(t, "no rate") {
			return money.Rate{}
		}
		return money.RateFromUnits(rapid.Int64Range(1, 1<<62).Draw(t, "rate units"), rapid.IntRange(0, 18).Draw(t, "rate decimals"))
	})
	at := rapid.Custom(func(t *rapid.T) time.Time {
		return time.Unix(rapid.Int64Range(0, 250_000_000_000).Draw(t, "sec"), rapid.Int64Range(0, 999_999_999).Draw(t, "nsec")).
			In(rapid.SampledFrom([]*time.Location{time.UTC, time.FixedZone("CAT", 7200)}).Draw(t, "zone"))
	})
	rapid.Check(t, func(t *rapid.T) {
		o := orders.Order{ID: text.Draw(t, "id"), Org: text.Draw(t, "org"), QuoteID: text.Draw(t, "quote"), ClientRef: text.Draw(t, "ref"),
			Direction: rapid.SampledFrom([]orders.Direction{orders.ToBank, orders.FromBank, orders.Direction(text.Draw(t, "direction"))}).Draw(t, "dir"),
			From:      amount.Draw(t, "from"), To: amount.Draw(t, "to"), Rate: rate.Draw(t, "rate"),
			Status:    rapid.SampledFrom([]orders.Status{orders.Failed, orders.Status(text.Draw(t, "status"))}).Draw(t, "statuskind"),
			CreatedAt: at.Draw(t, "created"), UpdatedAt: at.Draw(t, "updated")}
		if rapid.Bool().Draw(t, "failure") {
			o.Failure = &orders.Failure{Code: orders.FailureCode(text.Draw(t, "code")), Message: text.Draw(t, "message")}
		}
		if rapid.Bool().Draw(t, "refund") {
			o.Refund = &orders.Refund{Status: orders.RefundStatus(text.Draw(t, "refund status"))}
		}
		if rapid.Bool().Draw(t, "beneficiary") {
			o.Beneficiary = &orders.Beneficiary{Name: text.Draw(t, "name"), BankName: text.Draw(t, "bank"), AccountNumber: text.Draw(t, "account"),
				Branch: optText.Draw(t, "branch")}
		}
		if rapid.Bool().Draw(t, "funding") {
			o.Funding = &orders.Funding{BankName: text.Draw(t, "funding bank"), AccountName: text.Draw(t, "account name"),
				AccountNumber: text.Draw(t, "funding account"), Reference: text.Draw(t, "reference"), Amount: amount.Draw(t, "funding amount"),
				Deadline: at.Draw(t, "deadline")}
		}
		if rapid.Bool().Draw(t, "proof") {
			o.Proof = &orders.Proof{ID: text.Draw(t, "proof id"), UploadedAt: at.Draw(t, "uploaded"), RejectedReason: optText.Draw(t, "reason")}
		}
		if got, want := Order(o), orderByReflection(o); string(got) != string(want) {
			t.Fatalf("Order wrote\n%s\nencoding/json\n%s", got, want)
		}
	})
}
