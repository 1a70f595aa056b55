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
// not a user has it) admits 5 failures in 15 minutes from each client
// address (AccountThrottle's pairs), then a delay from 1 minute doubling
// to 15 minutes, and AccountCapPolicy's from every address together; a
// client address (AddressKey) admits 20 in 15 minutes over every account,
// with the same delays.
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

// AccountCapPolicy is the cap on the failed sign-ins of one account from
// every address together: 100 in any hour (ASVS 2.2.1's bound), then a
// delay from 1 minute doubling to 15 minutes. AccountPolicy applies to
// each (account, address) pair alone (AccountThrottle).
var AccountCapPolicy = ThrottlePolicy{MaxFailures: 100, Window: time.Hour, BaseDelay: time.Minute, MaxDelay: 15 * time.Minute}

// AccountThrottle is the failed sign-ins of one account: the cap over
// every address (AccountCapPolicy) and, per client address key
// (AddressKey), the pair's own Throttle (AccountPolicy). Failures from
// one address lock that address out of the account, not the account's
// owner signing in from elsewhere; only the cap, which takes
// AccountCapPolicy.MaxFailures failures in its window, locks the account
// for every address. Like Throttle it is a pure value the store keeps per
// account, read again and written in the transaction that records an
// attempt.
type AccountThrottle struct {
	// Cap counts the account's failures from every address.
	Cap Throttle
	// Pairs are the throttles of the addresses with a failure the
	// AccountPolicy still holds; no entry is the zero Throttle.
	Pairs map[string]Throttle
}

// Pair is the throttle of the account from the address key addr.
func (a AccountThrottle) Pair(addr string) Throttle { return a.Pairs[addr] }

// Wait is how long before a sign-in from addr is admitted: the longer of
// the pair's and the cap's waits.
func (a AccountThrottle) Wait(addr string, now time.Time) time.Duration {
	return max(a.Pair(addr).Wait(now), a.Cap.Wait(now))
}

// Fail returns a with a failure from addr at now recorded on the pair
// (AccountPolicy) and the cap (AccountCapPolicy); pairs that hold nothing
// any more are dropped, so the value stays bounded by the failures the
// cap admits. The caller records a failure only for an attempt a
// admitted.
func (a AccountThrottle) Fail(addr string, now time.Time) AccountThrottle {
	out := AccountThrottle{Cap: a.Cap.Fail(AccountCapPolicy, now), Pairs: map[string]Throttle{}}
	for k, t := range a.Pairs {
		if k != addr && !t.Forgotten(AccountPolicy, now) {
			out.Pairs[k] = t
		}
	}
	out.Pairs[addr] = a.Pair(addr).Fail(AccountPolicy, now)
	return out
}

// Succeed returns a after a sign-in from addr completed (password and,
// when due, the second factor): the pair of addr and the cap are cleared;
// the pairs of other addresses keep their failures, so the owner's
// sign-in buys an attacker elsewhere no guesses.
func (a AccountThrottle) Succeed(addr string) AccountThrottle {
	out := AccountThrottle{}
	for k, t := range a.Pairs {
		if k != addr {
			if out.Pairs == nil {
				out.Pairs = map[string]Throttle{}
			}
			out.Pairs[k] = t
		}
	}
	return out
}

// Locked reports whether the failure that made a from before (Fail) locked
// the pair of addr or the cap at now, for the audit trail: the lock that
// failure brought, "" for none.
func (a AccountThrottle) Locked(before AccountThrottle, addr string, now time.Time) string {
	switch {
	case a.Cap.Wait(now) > 0 && !a.Cap.LockedUntil.Equal(before.Cap.LockedUntil):
		return "account"
	case a.Pair(addr).Wait(now) > 0 && !a.Pair(addr).LockedUntil.Equal(before.Pair(addr).LockedUntil):
		return "address"
	}
	return ""
}

// Forgotten reports whether a holds nothing at now: its cap and every
// pair Forgotten under their policies.
func (a AccountThrottle) Forgotten(now time.Time) bool {
	if !a.Cap.Forgotten(AccountCapPolicy, now) {
		return false
	}
	for _, t := range a.Pairs {
		if !t.Forgotten(AccountPolicy, now) {
			return false
		}
	}
	return true
}
