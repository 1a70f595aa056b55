package render

import (
	"time"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

type payoutDestination struct {
	InstitutionID   int     `json:"institution_id"`
	AccountNumber   *string `json:"account_number,omitempty"`
	MobileNumber    *string `json:"mobile_number,omitempty"`
	BeneficiaryName string  `json:"beneficiary_name"`
}

type payout struct {
	ID          string            `json:"id"`
	AmountMWK   money.Amount      `json:"amount_mwk"`
	Fee         *money.Amount     `json:"fee"`
	Rail        payouts.Rail      `json:"rail"`
	Status      payouts.Status    `json:"status"`
	Destination payoutDestination `json:"destination"`
	Failure     *Failure          `json:"failure"`
	CreatedAt   string            `json:"created_at"`
	TerminalAt  *string           `json:"terminal_at"`
}

// Payout is the one JSON rendering of a /v1 payout: a read of one (the
// engine's Client.Payout), each item of its list (Client.Payouts) and the
// data of payout webhooks are these bytes. The destination carries the
// account number on the bank rail and the mobile number on momo; fee,
// failure and terminal_at are null until known; the organization, the fee
// held at accept and UpdatedAt are not rendered.
func Payout(p payouts.Payout) []byte {
	r := payout{
		ID: p.ID, AmountMWK: p.Amount, Fee: p.Fee, Rail: p.Rail, Status: p.Status, Failure: PayoutFailure(p.Failure),
		CreatedAt:   Time(p.CreatedAt),
		Destination: payoutDestination{InstitutionID: p.Destination.InstitutionID, BeneficiaryName: p.Destination.BeneficiaryName},
	}
	if p.Rail == payouts.Bank {
		r.Destination.AccountNumber = &p.Destination.AccountNumber
	} else {
		r.Destination.MobileNumber = &p.Destination.MobileNumber
	}
	if p.TerminalAt != nil {
		s := Time(*p.TerminalAt)
		r.TerminalAt = &s
	}
	return mustMarshal(r)
}

// PayoutFailure is the rendering of a payout's failure (of /v1 and /v2
// payouts alike); nil renders as null.
func PayoutFailure(f *payouts.Failure) *Failure {
	if f == nil {
		return nil
	}
	return &Failure{Code: string(f.Code), Message: f.Message}
}

type institution struct {
	ID   int          `json:"institution_id"`
	Name string       `json:"name"`
	Rail payouts.Rail `json:"rail"`
}

// Institutions is the rendering of the payable institutions
// (Client.Institutions) as of their last sync:
// {"institutions":[{"institution_id","name","rail"}],"synced_at"}. A
// momo institution's network and a bank's account number bounds are not
// rendered.
func Institutions(list []payouts.Institution, syncedAt time.Time) []byte {
	out := struct {
		Institutions []institution `json:"institutions"`
		SyncedAt     string        `json:"synced_at"`
	}{Institutions: make([]institution, len(list)), SyncedAt: Time(syncedAt)}
	for i, in := range list {
		out.Institutions[i] = institution{ID: in.ID, Name: in.Name, Rail: in.Rail}
	}
	return mustMarshal(out)
}
