package codec

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/internal/jsonw"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// Failure is the stored form of why a payout or an order failed:
// {"code","message"}. The engine's payout record keeps a payout's failure
// in it, and the order record an order's.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// appendJSON appends f as encoding/json's Marshal writes it.
func (f *Failure) appendJSON(b []byte) []byte {
	b = append(b, `{"code":`...)
	b = jsonw.String(b, f.Code)
	b = append(b, `,"message":`...)
	b = jsonw.String(b, f.Message)
	return append(b, '}')
}

// StorePayoutFailure is the stored form of a payout's failure; nil stays
// nil.
func StorePayoutFailure(f *payouts.Failure) *Failure {
	if f == nil {
		return nil
	}
	return &Failure{Code: string(f.Code), Message: f.Message}
}

// PayoutFailure reads a payout's failure back; nil stays nil.
func (f *Failure) PayoutFailure() *payouts.Failure {
	if f == nil {
		return nil
	}
	return &payouts.Failure{Code: payouts.FailureCode(f.Code), Message: f.Message}
}

// PayoutFromRendering reads a /v1 payout back from its rendering (the
// bytes of render.Payout): every field the rendering carries, so that
// rendering the payout again gives the same bytes. The organization, the
// fee held at accept and UpdatedAt are not in a rendering: HeldFee is
// zero MWK, UpdatedAt is CreatedAt and the organization is the caller's
// to set. The engine reads idempotency outcomes that earlier versions
// stored as rendered bytes with it.
func PayoutFromRendering(b []byte) (payouts.Payout, error) {
	var r struct {
		ID          string         `json:"id"`
		AmountMWK   string         `json:"amount_mwk"`
		Fee         *string        `json:"fee"`
		Rail        payouts.Rail   `json:"rail"`
		Status      payouts.Status `json:"status"`
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
		return payouts.Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
	}
	p := payouts.Payout{ID: r.ID, Rail: r.Rail, Status: r.Status, Failure: r.Failure.PayoutFailure(),
		Destination: payouts.Destination{InstitutionID: r.Destination.InstitutionID, BeneficiaryName: r.Destination.BeneficiaryName}}
	var err error
	if p.Amount, err = money.Parse(money.MWK, r.AmountMWK); err != nil {
		return payouts.Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
	}
	p.HeldFee = money.Zero(money.MWK)
	if r.Fee != nil {
		f, err := money.Parse(money.MWK, *r.Fee)
		if err != nil {
			return payouts.Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
		}
		p.Fee = &f
	}
	if r.Destination.AccountNumber != nil {
		p.Destination.AccountNumber = *r.Destination.AccountNumber
	}
	if r.Destination.MobileNumber != nil {
		p.Destination.MobileNumber = *r.Destination.MobileNumber
	}
	if p.CreatedAt, err = time.Parse(payouts.TimeFormat, r.CreatedAt); err != nil {
		return payouts.Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
	}
	p.UpdatedAt = p.CreatedAt
	if r.TerminalAt != nil {
		t, err := time.Parse(payouts.TimeFormat, *r.TerminalAt)
		if err != nil {
			return payouts.Payout{}, fmt.Errorf("payouts: bad rendering: %w", err)
		}
		p.TerminalAt = &t
	}
	return p, nil
}
