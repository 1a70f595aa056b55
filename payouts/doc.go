// Package payouts holds the pure rules of /v1 MWK payouts: request
// validation, institutions and mobile networks, the fee schedule, the state
// machine, the failure vocabulary, and the one rendering of a payout that a
// read of one (the engine's Client.Payout), the list (Client.Payouts) and
// webhook data all share. No I/O, no clock, no randomness: callers pass ids
// and times in.
package payouts
