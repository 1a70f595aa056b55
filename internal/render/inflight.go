package render

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/payouts"
)

// inFlightJSON is a payout in flight as the operator lists it: the payout
// as its client reads it, already rendered (the /v1 or the /v2 rendering,
// as APIVersion says), and the worker's view beside it.
type inFlightJSON struct {
	APIVersion     string
	Payout         []byte
	Org            string
	Overdue        bool
	FailedCalls    int
	UnknownAnswers int
	NextAttemptAt  *time.Time
}

// InFlightPayout is the operator's rendering of a payout in flight (the
// items of the engine's BackOffice.PayoutsInFlight):
// {"api_version","payout","org","overdue","failed_calls",
// "unknown_answers","next_attempt_at"}, the payout in its /v2 rendering
// (PayoutV2) when it is one, else in Payout's; next_attempt_at in Time or
// null.
func InFlightPayout(p payouts.InFlight) []byte {
	f := inFlightJSON{APIVersion: "v1", Payout: Payout(p.Payout), Org: p.Payout.Org, Overdue: p.Overdue,
		FailedCalls: p.FailedCalls, UnknownAnswers: p.UnknownAnswers, NextAttemptAt: p.NextAttemptAt}
	if p.V2 != nil {
		f.APIVersion, f.Payout = "v2", PayoutV2(*p.V2)
	}
	return inFlightBytes(f)
}

func inFlightBytes(p inFlightJSON) []byte {
	var next *string
	if p.NextAttemptAt != nil {
		s := Time(*p.NextAttemptAt)
		next = &s
	}
	b, _ := json.Marshal(struct {
		APIVersion     string          `json:"api_version"`
		Payout         json.RawMessage `json:"payout"`
		Org            string          `json:"org"`
		Overdue        bool            `json:"overdue"`
		FailedCalls    int             `json:"failed_calls"`
		UnknownAnswers int             `json:"unknown_answers"`
		NextAttemptAt  *string         `json:"next_attempt_at"`
	}{p.APIVersion, p.Payout, p.Org, p.Overdue, p.FailedCalls, p.UnknownAnswers, next})
	return b
}
