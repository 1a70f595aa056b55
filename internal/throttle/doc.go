// Package throttle decides what the engine lets in, in this process: an
// organization's token bucket of requests (Rates), its fair share of the
// engine while others are active (FairShare), and the slots of password
// hashing (Hashing). It holds no store and no engine: the engine calls it
// with the organization, the client address and the clock, and gets back
// a yes, a wait, or a refusal.
package throttle
