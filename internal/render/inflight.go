package render

import (
	"encoding/json"
	"time"
)

// InFlightPayoutFields is a payout not terminal yet as the operator lists
// it (the engine's InFlightPayout): the payout as its client reads it,
// already rendered (the /v1 or the /v2 rendering, as APIVersion says), and
// the worker's view beside it.
type InFlightPayoutFields struct {
	APIVersion     string
	Payout         []byte
	Org            string
	Overdue        bool
	FailedCalls    int
	UnknownAnswers int
	NextAttemptAt  *time.Time
}

// InFlightPayout is the operator's rendering of a payout in flight (the
// items of the engine's Operator.PayoutsInFlight):
// {"api_version","payout","org","overdue","failed_calls",
// "unknown_answers","next_attempt_at"}, next_attempt_at in Time or null.
func InFlightPayout(p InFlightPayoutFields) []byte {
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
