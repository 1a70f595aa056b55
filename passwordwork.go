package tambala

import (
	"context"
	"runtime"
	"sync"

	"github.com/tambalapay/tambala/accounts"
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

// hashLimiter is PasswordWorkOptions' semaphore: running slots, a bounded
// FIFO queue, and how many each address and account holds.
type hashLimiter struct {
	o       PasswordWorkOptions
	mu      sync.Mutex
	running int
	queue   []*hashWaiter
	held    map[string]int // "a" or "u", NUL, address key or account -> running or waiting
}

type hashWaiter struct {
	ready chan struct{} // closed when the slot is handed over
	keys  []string
}

func newHashLimiter(o PasswordWorkOptions) *hashLimiter {
	return &hashLimiter{o: o, held: map[string]int{}}
}

// acquire takes a slot for a hash of account ("" for none) from the
// address key addr, waiting in the queue when every slot is taken:
// accounts.Busy when a limit refuses it, ctx's error when ctx ends while
// it waits. release gives the slot back; call it once.
func (l *hashLimiter) acquire(ctx context.Context, addr, account string) (release func(), err error) {
	keys := []string{"a\x00" + addr}
	limits := []int{l.o.PerAddress}
	if account != "" {
		keys = append(keys, "u\x00"+account)
		limits = append(limits, l.o.PerAccount)
	}
	l.mu.Lock()
	for i, k := range keys {
		if l.held[k] >= limits[i] {
			l.mu.Unlock()
			return nil, accounts.Busy()
		}
	}
	if l.running < l.o.MaxInFlight && len(l.queue) == 0 {
		l.running++
		l.hold(keys, 1)
		l.mu.Unlock()
		return l.releaser(keys), nil
	}
	if len(l.queue) >= l.o.MaxWaiting {
		l.mu.Unlock()
		return nil, accounts.Busy()
	}
	w := &hashWaiter{ready: make(chan struct{}), keys: keys}
	l.queue = append(l.queue, w)
	l.hold(keys, 1)
	l.mu.Unlock()

	select {
	case <-w.ready:
		return l.releaser(keys), nil
	case <-ctx.Done():
		l.mu.Lock()
		for i, q := range l.queue {
			if q == w { // still waiting: leave the queue
				l.queue = append(l.queue[:i], l.queue[i+1:]...)
				l.hold(keys, -1)
				l.mu.Unlock()
				return nil, ctx.Err()
			}
		}
		l.mu.Unlock()
		l.releaser(keys)() // handed a slot meanwhile: give it on
		return nil, ctx.Err()
	}
}

func (l *hashLimiter) hold(keys []string, d int) {
	for _, k := range keys {
		if n := l.held[k] + d; n > 0 {
			l.held[k] = n
		} else {
			delete(l.held, k)
		}
	}
}

// releaser gives a running slot of keys back, to the first waiter if any.
func (l *hashLimiter) releaser(keys []string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.hold(keys, -1)
			if len(l.queue) > 0 {
				w := l.queue[0]
				l.queue = l.queue[1:]
				close(w.ready) // the slot passes on: running is unchanged
				return
			}
			l.running--
		})
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
	release, err := e.hashers[aud].acquire(ctx, accounts.AddressKey(requestInfo(ctx).Address), account)
	if err != nil {
		return nil, err
	}
	if e.passwordHashHook != nil {
		end := e.passwordHashHook()
		return func() { end(); release() }, nil
	}
	return release, nil
}
