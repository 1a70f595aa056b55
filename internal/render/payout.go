package render

import (
	"time"

	"github.com/tambalapay/tambala/internal/jsonw"
	"github.com/tambalapay/tambala/payouts"
)

// Payout is the one JSON rendering of a /v1 payout: a read of one (the
// engine's ClientV1.Payout), each item of its list (ClientV1.Payouts) and the
// data of payout webhooks are these bytes. The destination carries the
// account number on the bank rail and the mobile number on momo; fee,
// failure and terminal_at are null until known; the organization, the fee
// held at accept and UpdatedAt are not rendered. It is written by hand
// (every accept renders one): a test holds it to what encoding/json
// writes for the same shape.
func Payout(p payouts.Payout) []byte {
	return AppendPayout(make([]byte, 0, 384), p)
}

// AppendPayout appends Payout(p) to b.
func AppendPayout(b []byte, p payouts.Payout) []byte {
	b = append(b, `{"id":`...)
	b = jsonw.String(b, p.ID)
	b = append(b, `,"amount_mwk":"`...)
	b, _ = p.Amount.AppendText(b)
	b = append(b, `","fee":`...)
	if p.Fee == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b, _ = p.Fee.AppendText(b)
		b = append(b, '"')
	}
	b = append(b, `,"rail":`...)
	b = jsonw.String(b, string(p.Rail))
	b = append(b, `,"status":`...)
	b = jsonw.String(b, string(p.Status))
	b = append(b, `,"destination":{"institution_id":`...)
	b = jsonw.Int(b, int64(p.Destination.InstitutionID))
	if p.Rail == payouts.Bank {
		b = append(b, `,"account_number":`...)
		b = jsonw.String(b, p.Destination.AccountNumber)
	} else {
		b = append(b, `,"mobile_number":`...)
		b = jsonw.String(b, p.Destination.MobileNumber)
	}
	b = append(b, `,"beneficiary_name":`...)
	b = jsonw.String(b, p.Destination.BeneficiaryName)
	b = append(b, `},"failure":`...)
	if p.Failure == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"code":`...)
		b = jsonw.String(b, string(p.Failure.Code))
		b = append(b, `,"message":`...)
		b = jsonw.String(b, p.Failure.Message)
		b = append(b, '}')
	}
	b = append(b, `,"created_at":"`...)
	b = p.CreatedAt.UTC().AppendFormat(b, payouts.TimeFormat)
	b = append(b, `","terminal_at":`...)
	if p.TerminalAt == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = p.TerminalAt.UTC().AppendFormat(b, payouts.TimeFormat)
		b = append(b, '"')
	}
	return append(b, '}')
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
