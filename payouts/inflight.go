package payouts

import "time"

// InFlight is a payout not terminal yet, with the worker's view of it.
type InFlight struct {
	// Payout is the payout as the worker sees it: on a /v2 payout its
	// amounts are the frozen principal and fee in the source asset.
	Payout Payout
	// V2 is set on a /v2 payout only: the payout as its client reads it
	// (source and destination assets, rate, wallet destination).
	V2 *V2Payout
	// Overdue says it was accepted longer ago than the worker's overdue
	// threshold.
	Overdue bool
	// FailedCalls is how many provider calls for it failed in a row, and
	// UnknownAnswers how many times in a row the provider said it does not
	// know it.
	FailedCalls    int
	UnknownAnswers int
	// NextAttemptAt is when the worker next takes it up.
	NextAttemptAt *time.Time
}
