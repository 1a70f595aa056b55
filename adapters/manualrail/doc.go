// Package manualrail is the manual payout rail: a tambala.PayoutProvider
// for an operator whose staff pay each payout by hand, through the bank's
// or the mobile-money operator's own portal, and then record the outcome.
//
// Submit accepts every payout; Status reports it pending, always, until
// the staff record the outcome through BackOffice.ResolvePayout (or its
// route in the admin API): succeeded, with the provider's
// reference and the fee it charged, or failed, with one of the four
// failure codes (recipient_account_invalid, declined, provider_unavailable,
// temporarily_unavailable). ResolvePayout goes through the worker's own
// transition, ledger entries and event (payout.succeeded captures the
// hold, payout.failed releases it) and writes an audit entry naming the
// operator, the outcome, the reason and the reference; the worker then
// leaves the payout alone.
//
// The provider holds no state, on purpose. The queue of payouts to pay by
// hand is the engine's own list of payouts in flight
// (BackOffice.PayoutsInFlight, also listed by the admin API), kept in the
// engine's store in the same transactions as the money: nothing can be in
// one list and missing from the other, a restart loses nothing, and
// several servers over one store share one queue. A second record of
// submissions would only be a copy that can drift. Status never invents an
// outcome: the only outcome of a manual payout is the one the staff record,
// and that is recorded by the engine, not reported by the provider. Being
// stateless, it cannot tell a reference it never saw from one it did, so
// it never answers tambala.ErrUnknownReference: the engine polls only the
// payouts it submitted.
//
// The worker polls each pending payout every WorkerOptions.Poll; for this
// provider a poll is a function call, with no network. A payout left
// unpaid longer than WorkerOptions.OverdueAfter is flagged overdue in the
// list in flight.
package manualrail
