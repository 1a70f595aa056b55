// Package payouts holds the pure rules of payouts: /v1 MWK payouts
// (request validation, institutions and mobile networks, the fee
// schedule, the state machine and the failure vocabulary) and the rules
// /v2 payouts add (v2.go): the destination's kinds and which fields each
// carries (V2Destination.CheckFields), the asset a kind is paid in, the
// pricing in the source asset at a frozen rate rounded up (PriceV2), the
// fee charged on success (ChargeV2) and the fee a payout shows
// (FeeShownV2). The acceptance of a payout (accept.go) is here too:
// AcceptV1 and AcceptV2 take a checked request and the terms the engine
// loaded (limits, rail switch, reference data, rolling Window, fee, rate)
// and return the held payout and its ledger Hold, or the typed refusal;
// Resolution holds the rules of the operator's verdict on a payout in
// flight. No I/O, no clock, no randomness: callers pass ids (or the id
// source, called once a payout is accepted), times and rates in. It neither renders nor decodes JSON: a payout's one
// rendering (a read, the list and webhook data) is internal/render's, a
// body's decoding the transport's, which calls the checks here
// (CheckAmount, CheckInstitutionID, CheckText, CheckRail,
// V2Destination.CheckFields).
package payouts
