package apikeys

import "github.com/tambalapay/tambala/errcode"

// A key that can still be revoked: an active one counts towards the cap.
type activer interface{ Active() bool }

// CountActive is how many of keys are active (not revoked).
func CountActive[K activer](keys []K) int {
	n := 0
	for _, k := range keys {
		if k.Active() {
			n++
		}
	}
	return n
}

// AtCap reports whether an organization with active keys may create no
// other while max is the most it may hold at once.
func AtCap(active, max int) bool { return active >= max }

// CheckCap is the cap on an organization's active keys: with active keys
// already, a new one is a conflict once AtCap holds.
func CheckCap(active, max int) error {
	if AtCap(active, max) {
		return errcode.Newf(errcode.Conflict, "the organization already has %d active keys; revoke one first", active)
	}
	return nil
}
