// Package orders holds the pure rules of /v2 desk orders: the Order
// record, the validation of client_ref, the beneficiary and the funding
// instructions, the to-bank and from-bank state machines as one function
// (Apply) and the failure vocabulary with its fixed messages. An order's
// one rendering, which its reads (the engine's Client.Order) and every
// order event share, is internal/render's, and its storage encoding
// internal/codec's.
//
// No I/O, no clock, no randomness, no context: callers pass ids, times and
// random bytes in. The package does not import the ledger (a pure package
// may not reach storage); it describes ledger movements as Postings that
// the engine maps one to one onto ledger commands and posts in the
// transaction that stores the order:
//
//	KindPlaceHold   -> ledger.PlaceHold{EntryID, HoldID, Org, Amount, Ref}
//	KindCaptureHold -> ledger.CaptureHold{EntryID, HoldID, Amount, To: ledger.Desk, Ref}
//	KindReleaseHold -> ledger.ReleaseHold{EntryID, HoldID, Ref}
//	KindCredit      -> ledger.Credit{EntryID, Org, Amount, From: ledger.Desk, Ref}
//
// # Creating an order
//
// New makes an order from an accepted quote: a to-bank order starts
// accepted with a PlaceHold of from_amount (entry order:<id>:hold, hold
// order:<id>); a from-bank order starts awaiting_instructions and holds
// nothing. New checks the beneficiary's presence (beneficiary_required or
// beneficiary_not_allowed) before its fields (validation_error), and
// client_ref (validation_error). Everything that needs storage stays with
// the engine: idempotency, the quote's lookup, use and expiry, enablement,
// the desk being open, client_ref uniqueness and the funds check of the
// hold. To keep the order of creation's checks, the engine calls New after
// the quote's checks (lookup, used, expired) and before enablement, the
// desk, the client_ref index and the hold (see docs/decisions.md,
// "/v2 desk (orders, quotes, corridors)").
//
// # Moving an order
//
// Apply(o, cmd, now) is both state machines. It returns the new order and
// its Effects (postings, events and, for a returned refund, the /v2
// collection record to write), or an *errcode.Error and the order
// unchanged:
//   - a bad command (a failure code outside the direction's list, a text
//     field out of bounds) gives validation_error;
//   - repeating a move the order already shows (same target, same data)
//     gives the order unchanged, no effects and no error (Effects.Changed
//     false), so desk retries are safe;
//   - a move the state does not allow, a reject-proof or confirm-funds that
//     names a proof that is not the newest, a cancel after the coins left,
//     or a failure code the direction knows but the state does not allow
//     gives conflict;
//   - a proof upload the order does not expect gives
//     proof_not_expected; a re-upload of the newest proof's SHA-256 while
//     proof_submitted is the order unchanged.
//
// Each command checks its own data first (validation_error;
// unsupported_media_type for a proof's media type), then recognises a
// repeat, then the state (conflict; proof_not_expected for a proof upload).
// A command is a repeat when the order already stands where the move would
// put it with the same data (a move made once and since superseded by
// another is a conflict, not a repeat). CoinsSent changes only the internal
// CoinsLeftAt: the record changes (Effects.Changed) but not updated_at or
// the rendering.
//
// The desk's moves have names, written once, in this package: ParseMove
// builds a move from its name and its fields, MoveNames lists the names,
// MoveTakes the fields each takes.
// The admin API, the console and the command call them, and word an
// unknown name (*UnknownMoveError) each its own way.
//
// updated_at changes on every status, proof or refund change, and
// never goes back: it is the later of its old value and now. Every stored
// time is UTC truncated to the millisecond, the precision of the wire, so
// that what is compared is what is rendered.
//
// # Expiry and the /v2 pause
//
// An order expires when it is awaiting_funds, has never had a proof and now
// is after its expires_at. Expire and ProofUploaded take an optional
// effective deadline: the engine passes a later one when expires_at fell
// inside a /v2 pause (honoured until the pause ends plus a grace);
// expires_at itself never moves. ExpiryDue answers the sweeper's question
// without building a command.
package orders
