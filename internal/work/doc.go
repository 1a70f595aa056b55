// Package work is the engine's one work loop: items listed as due in a
// store (payouts, conversions, webhook deliveries, in-process events) are
// claimed under a lease in a transaction, handed to a port with no
// transaction open, and their outcome recorded in another transaction.
//
// A Pass runs up to Workers at once. A worker that needs an item claims
// for every worker free at that moment in one transaction (one claim at a
// time), so that claims share commits; a worker is free as soon as its
// call returns, so the claim of its next item overlaps the record of its
// last. A claim that fails is retried one item per transaction, so one bad
// item holds back no other. A call that panics (or calls runtime.Goexit)
// stops the pass once the other workers have recorded what they called,
// and the panic goes on in the caller's goroutine.
package work
