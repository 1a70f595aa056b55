package payouts

import (
	"encoding/json"
	"fmt"
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

// Render is the one JSON rendering of a payout: a read of one (the
// engine's Client.Payout), each item of its list (Client.Payouts) and the
// data of payout webhooks are these bytes.
func Render(p Payout) []byte {
	b, err := json.Marshal(view(p))
	if err != nil {
		panic("payouts: rendering a payout cannot fail: " + err.Error())
	}
	return b
}

// DecodeRendered reads a payout back from its rendering (Render's bytes):
// every field the rendering carries, so that Render(DecodeRendered(b)) is
// b again. The organization, the fee held at accept and UpdatedAt are not
// in a rendering and stay zero. The engine reads idempotency outcomes that
// earlier versions stored as rendered bytes with it.
func DecodeRendered(b []byte) (Payout, error) {
	var r struct {
		ID          string  `json:"id"`
		AmountMWK   string  `json:"amount_mwk"`
		Fee         *string `json:"fee"`
		Rail        Rail    `json:"rail"`
		Status      Status  `json:"status"`
		Destination struct {
			InstitutionID   int     `json:"institution_id"`
			AccountNumber   *string `json:"account_number"`
			MobileNumber    *string `json:"mobile_number"`
			BeneficiaryName string  `json:"beneficiary_name"`
		} `json:"destination"`
		Failure    *Failure `json:"failure"`
		CreatedAt  string   `json:"created_at"`
		TerminalAt *string  `json:"terminal_at"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
	}
	p := Payout{ID: r.ID, Rail: r.Rail, Status: r.Status, Failure: r.Failure,
		Destination: Destination{InstitutionID: r.Destination.InstitutionID, BeneficiaryName: r.Destination.BeneficiaryName}}
	var err error
	if p.Amount, err = money.Parse(money.MWK, r.AmountMWK); err != nil {
		return Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
	}
	p.HeldFee = money.Zero(money.MWK)
	if r.Fee != nil {
		f, err := money.Parse(money.MWK, *r.Fee)
		if err != nil {
			return Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
		}
		p.Fee = &f
	}
	if r.Destination.AccountNumber != nil {
		p.Destination.AccountNumber = *r.Destination.AccountNumber
	}
	if r.Destination.MobileNumber != nil {
		p.Destination.MobileNumber = *r.Destination.MobileNumber
	}
	if p.CreatedAt, err = time.Parse(TimeFormat, r.CreatedAt); err != nil {
		return Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
	}
	p.UpdatedAt = p.CreatedAt
	if r.TerminalAt != nil {
		t, err := time.Parse(TimeFormat, *r.TerminalAt)
		if err != nil {
			return Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
		}
		p.TerminalAt = &t
	}
	return p, nil
}
