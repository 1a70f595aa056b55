package payouts

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/money"
)

// TimeFormat renders every timestamp: UTC, millisecond precision.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

type renderedDestination struct {
	InstitutionID   int     `json:"institution_id"`
	AccountNumber   *string `json:"account_number,omitempty"`
	MobileNumber    *string `json:"mobile_number,omitempty"`
	BeneficiaryName string  `json:"beneficiary_name"`
}

type rendered struct {
	ID          string              `json:"id"`
	AmountMWK   money.Amount        `json:"amount_mwk"`
	Fee         *money.Amount       `json:"fee"`
	Rail        Rail                `json:"rail"`
	Status      Status              `json:"status"`
	Destination renderedDestination `json:"destination"`
	Failure     *Failure            `json:"failure"`
	CreatedAt   string              `json:"created_at"`
	TerminalAt  *string             `json:"terminal_at"`
}

func view(p Payout) rendered {
	r := rendered{
		ID: p.ID, AmountMWK: p.Amount, Fee: p.Fee, Rail: p.Rail, Status: p.Status, Failure: p.Failure,
		CreatedAt:   FormatTime(p.CreatedAt),
		Destination: renderedDestination{InstitutionID: p.Destination.InstitutionID, BeneficiaryName: p.Destination.BeneficiaryName},
	}
	if p.Rail == Bank {
		r.Destination.AccountNumber = &p.Destination.AccountNumber
	} else {
		r.Destination.MobileNumber = &p.Destination.MobileNumber
	}
	if p.TerminalAt != nil {
		s := FormatTime(*p.TerminalAt)
		r.TerminalAt = &s
	}
	return r
}

// Render is the one JSON rendering of a payout: GET /v1/payouts/{id}, each
// item of GET /v1/payouts and the data of payout webhooks are these bytes.
func Render(p Payout) []byte {
	b, err := json.Marshal(view(p))
	if err != nil {
		panic("payouts: rendering a payout cannot fail: " + err.Error())
	}
	return b
}
