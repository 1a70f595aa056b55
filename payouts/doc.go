// Package payouts holds the pure rules of /v1 MWK payouts: request
// validation, institutions and mobile networks, the fee schedule, the state
// machine and the failure vocabulary. No I/O, no clock, no randomness:
// callers pass ids and times in. It neither renders nor decodes JSON: a
// payout's one rendering (a read, the list and webhook data) is
// internal/render's, a body's decoding the transport's, which calls the
// checks here (CheckAmount, CheckInstitutionID, CheckText, CheckRail).
package payouts
