package tambala

import (
	"context"
	"runtime"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/internal/throttle"
)

// PasswordWorkOptions bound the password hashes and verifications
// (argon2id) the engine runs at once: sign-in, a password change, the
// acceptance of an invitation or of a password reset. Each runs only in
// a slot: at most MaxInFlight run, at most MaxWaiting more wait for one
// (first come, first served), and one client address (accounts.AddressKey)
// or one account (its normalised email) holds at most PerAddress or
// PerAccount of them, running or waiting. An attempt beyond any of these
// is refused at once, rate_limited (accounts.ErrBusy), without hashing
// and without counting as a failure of the account or the address; a
// waiting attempt whose context ends leaves the queue.
//
// Memory: a hash holds its parameters' Memory (19 MiB at
// accounts.DefaultParams) while it runs, and nothing while it waits, so
// the password hashing of a sign-in flood never holds more than
// 2 × MaxInFlight × Memory at once (the public portal and the staff's
// console, Engine.StaffPortal, have a limiter each, so a flood of one
// never refuses the other): 152 MiB at most with the defaults and
// accounts.DefaultParams. Go's collector lets freed memory build up to
// about the live heap again before it runs (GOGC=100), and hashes that
// start while it runs add to that: budget three times the bound above
// the rest of the heap for the process's peak (456 MiB at the most with
// the defaults; measured far lower, under 100 MiB of RSS for 200
// sign-ins at once). Zero fields take the defaults.
type PasswordWorkOptions struct {
	// MaxInFlight is how many hashes run at once. Default: half the
	// processors (GOMAXPROCS), at least 1 and at most 4, so that hashing
	// leaves the API's requests processors of their own.
	MaxInFlight int
	// MaxWaiting is how many more wait for a slot. Default 16.
	MaxWaiting int
	// PerAddress is how many one client address may have running or
	// waiting. Default 4.
	PerAddress int
	// PerAccount is how many one account may have running or waiting.
	// Default 2.
	PerAccount int
}

func (o *PasswordWorkOptions) defaults() {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = min(max(runtime.GOMAXPROCS(0)/2, 1), 4)
	}
	if o.MaxWaiting <= 0 {
		o.MaxWaiting = 16
	}
	if o.PerAddress <= 0 {
		o.PerAddress = 4
	}
	if o.PerAccount <= 0 {
		o.PerAccount = 2
	}
}

// passwordWork takes a slot of the audience's limiter for a password
// hash or verification (argon2id, about 50 ms and 19 MiB at
// accounts.DefaultParams) of account ("" for none) from the request's
// client address, or refuses it (accounts.Busy) before any hashing. The
// engine runs the hash outside every store transaction, never while it
// holds the store's write path: an Update only re-reads what the slow
// step read and records the outcome, so one organization's (or an
// outsider's) sign-ins cannot stall the writes of another. done ends the
// slot.
func (e *Engine) passwordWork(ctx context.Context, aud audience, account string) (done func(), err error) {
	if e.passwordWorkHook != nil {
		e.passwordWorkHook()
	}
	release, err := e.hashers[aud].Acquire(ctx, accounts.AddressKey(requestInfo(ctx).Address), account)
	if err != nil {
		return nil, err
	}
	if e.passwordHashHook != nil {
		end := e.passwordHashHook()
		return func() { end(); release() }, nil
	}
	return release, nil
}

// newHashing is a limiter of password work of o (defaults filled in).
func newHashing(o PasswordWorkOptions) *throttle.Hashing {
	return throttle.NewHashing(throttle.HashLimits(o))
}
