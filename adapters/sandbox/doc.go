// Package sandbox is a simulated bank and mobile-money provider that
// implements tambala.PayoutProvider for the sandbox and for tests.
//
// It pays only the sandbox test destinations of docs/decisions.md (bank
// accounts 3333888800..09, the listed test wallets); any other destination
// fails with recipient_account_invalid. A payout succeeds after a
// configurable delay and reports the fee of the schedule. Tests script any
// outcome per destination or per payout: success with a given fee, each
// failure code, a timeout (the submission is accepted but the call fails,
// the worst case for double submission), or a clawback after success.
// Submissions are idempotent per reference, and the provider counts how
// many times each reference was actually paid.
package sandbox
