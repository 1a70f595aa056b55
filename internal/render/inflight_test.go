package render

import "testing"

func TestInFlightPayoutBytes(t *testing.T) {
	pin(t, inFlightBytes(inFlightJSON{APIVersion: "v2", Payout: []byte(`{"id":"p"}`), Org: "o", Overdue: true, FailedCalls: 2,
		UnknownAnswers: 1, NextAttemptAt: &pinAt}),
		`{"api_version":"v2","payout":{"id":"p"},"org":"o","overdue":true,"failed_calls":2,"unknown_answers":1,"next_attempt_at":"2026-03-04T05:06:07.891Z"}`)
	pin(t, inFlightBytes(inFlightJSON{APIVersion: "v1", Payout: []byte(`{"id":"p"}`)}),
		`{"api_version":"v1","payout":{"id":"p"},"org":"","overdue":false,"failed_calls":0,"unknown_answers":0,"next_attempt_at":null}`)
}
