// Package ledger is the engine's double-entry ledger.
//
// Every organization has, per asset, an "available" and a "held" account,
// and a "shortfall" account for fees charged beyond its balance; system
// accounts stand for the operator's float, money in flight at payment
// providers, fees earned, the desk and the outside world. Every balance
// change is an Entry whose postings sum to zero per asset, available and
// held never go negative, shortfall never positive, and each held account
// equals the sum of its open holds.
//
// The package has two halves:
//
//   - Pure rules: Plan turns a Command (Credit, PlaceHold, ReleaseHold,
//     CaptureHold, Charge, Reverse, Convert) and the current State into the Effect it
//     has (an entry, new balances, hold changes), or an error. Check verifies
//     a Snapshot of balances, holds and journal.
//   - Storage: Post, ReadBalance and the other functions read and write the
//     ledger's own buckets inside a caller's store.Tx, so the engine can post
//     in the same transaction as its own records, and a host can use the
//     ledger alone.
//
// An entry is identified by its id: posting the same command with the same
// id again has no second effect and reports Replayed; posting a different
// command under a used id fails with ErrEntryIDReused. A command that fails
// writes nothing.
package ledger
