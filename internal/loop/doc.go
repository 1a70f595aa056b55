// Package loop is the machinery of the engine's background work: a pass
// run at an interval until its context ends (Run, Every), the set of
// loops run together, one set at a time (Group), and the jittered
// exponential wait after failed calls (Backoff). What a pass does is the
// engine's: the payout worker, the webhook dispatcher, the conversion
// worker, the event loop, the order expiry sweep and the pruning.
package loop
