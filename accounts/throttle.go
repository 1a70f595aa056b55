package accounts

import (
	"net/netip"
	"time"
)

// ThrottlePolicy is how many failed sign-ins a key (an account, a client
// address) may have and what follows. A Throttle admits at most
// MaxFailures failures in any Window: a failure that brings the Window to
// MaxFailures locks the key until the oldest of them leaves the Window,
// and for at least a delay that starts at BaseDelay and doubles with each
// such lock, up to MaxDelay. So once the threshold is reached, every
// further failure in reach of the earlier ones locks the key again, for
// longer. The doubling is forgotten once a whole Window has passed since
// the last lock ended without a failure.
type ThrottlePolicy struct {
	MaxFailures int
	Window      time.Duration
	BaseDelay   time.Duration
	MaxDelay    time.Duration
}

// The policies of sign-in. An account (its normalised email, whether or
// not a user has it) admits 5 failures in 15 minutes, then a delay from 1
// minute doubling to 15 minutes; a client address (AddressKey) admits 20
// in 15 minutes, with the same delays.
var (
	AccountPolicy = ThrottlePolicy{MaxFailures: 5, Window: 15 * time.Minute, BaseDelay: time.Minute, MaxDelay: 15 * time.Minute}
	AddressPolicy = ThrottlePolicy{MaxFailures: 20, Window: 15 * time.Minute, BaseDelay: time.Minute, MaxDelay: 15 * time.Minute}
)

// Throttle is the failed sign-ins of one key: a pure state machine the
// store keeps per key, read again and written in the transaction that
// records the attempt (and Admit checked there again: the password is
// checked outside any transaction, and other attempts may fail
// meanwhile).
type Throttle struct {
	// Failures are the times of the failures within the last Window,
	// oldest first; at most MaxFailures.
	Failures []time.Time
	// Lockouts counts the locks since the doubling was last forgotten; the
	// next lock's delay is BaseDelay doubled that many times.
	Lockouts int
	// LockedUntil is when attempts are admitted again; zero or past when
	// they are.
	LockedUntil time.Time
}

// Wait is how long before t admits an attempt: zero when it admits one
// now.
func (t Throttle) Wait(now time.Time) time.Duration {
	if now.Before(t.LockedUntil) {
		return t.LockedUntil.Sub(now)
	}
	return 0
}

// Fail returns t with a failure at now recorded under p. The caller
// records a failure only for an attempt t admitted (Wait was zero); an
// attempt refused is not checked and is no failure.
func (t Throttle) Fail(p ThrottlePolicy, now time.Time) Throttle {
	max := max(p.MaxFailures, 1)
	kept := make([]time.Time, 0, max)
	for _, f := range t.Failures {
		if now.Sub(f) < p.Window {
			kept = append(kept, f)
		}
	}
	lockouts := t.Lockouts
	if len(kept) == 0 && !now.Before(t.LockedUntil.Add(p.Window)) {
		lockouts = 0
	}
	kept = append(kept, now)
	if len(kept) > max {
		kept = kept[len(kept)-max:]
	}
	until := t.LockedUntil
	if len(kept) == max {
		delay := p.MaxDelay
		if lockouts < 62 && p.BaseDelay > 0 && p.BaseDelay <= p.MaxDelay>>lockouts {
			delay = p.BaseDelay << lockouts
		}
		lock := now.Add(delay)
		if slide := kept[0].Add(p.Window); slide.After(lock) {
			lock = slide
		}
		if lock.After(until) {
			until = lock
		}
		lockouts++
	}
	return Throttle{Failures: kept, Lockouts: lockouts, LockedUntil: until}
}

// Forgotten reports whether t holds nothing under p at now, so that
// deleting it changes no answer: no failure within the Window, no lock in
// force, and a whole Window since the last lock ended (Fail forgets the
// doubling then).
func (t Throttle) Forgotten(p ThrottlePolicy, now time.Time) bool {
	for _, f := range t.Failures {
		if now.Sub(f) < p.Window {
			return false
		}
	}
	return !now.Before(t.LockedUntil.Add(p.Window))
}

// Succeed returns t after a successful sign-in: cleared. A success resets
// an account's throttle, never an address's (one good account must not
// buy an address more guesses at others).
func (t Throttle) Succeed() Throttle { return Throttle{} }

// Admit checks the throttles of a sign-in attempt (the account's and the
// address's, in any order) before its password is checked: nil when all
// admit it now, else Throttled with the longest wait. The answer is the
// same for an email no user has, whose throttle the store keeps all the
// same.
func Admit(now time.Time, throttles ...Throttle) error {
	var wait time.Duration
	for _, t := range throttles {
		wait = max(wait, t.Wait(now))
	}
	if wait > 0 {
		return Throttled(wait)
	}
	return nil
}

// AddressKey is the key of a client address's throttle: an IPv4 address
// (an IPv4-mapped IPv6 address as its IPv4 form), or the /64 prefix of an
// IPv6 address, the block one subscriber usually holds.
func AddressKey(addr netip.Addr) string {
	addr = addr.Unmap()
	if addr.Is4() || !addr.IsValid() {
		return addr.String()
	}
	p, _ := addr.WithZone("").Prefix(64)
	return p.String()
}
