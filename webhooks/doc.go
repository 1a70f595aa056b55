// Package webhooks holds the pure rules of event delivery: the envelope
// rendered to bytes once, at the event; the Signature header (lowercase
// hex HMAC-SHA256 of the exact body, keyed with the secret's bytes);
// verification against several secrets in constant time, for receivers
// during a rotation; the retry schedule; the delivery state machine; and
// where a delivery may go (Policy: checked on the URL when it is set, and
// by the sender on each address it dials) with the fixed wording of a
// failed attempt (Failure).
// No I/O, no clock, no randomness: callers pass times and jitter in.
package webhooks
