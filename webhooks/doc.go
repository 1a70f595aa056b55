// Package webhooks holds the pure rules of event delivery: the envelope
// rendered to bytes once, at the event; the Signature header (lowercase
// hex HMAC-SHA256 of the exact body, keyed with the secret's bytes);
// verification against several secrets in constant time, for receivers
// during a rotation; the retry schedule; and the delivery state machine.
// No I/O, no clock, no randomness: callers pass times and jitter in.
package webhooks
