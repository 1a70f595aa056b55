package throttle

import (
	"context"
	"sync"

	"github.com/tambalapay/tambala/accounts"
)

// HashLimits bound the password hashes running at once (the root's
// PasswordWorkOptions, defaults filled in): MaxInFlight run, MaxWaiting
// more wait, one address holds PerAddress and one account PerAccount of
// them, running or waiting.
type HashLimits struct {
	MaxInFlight int
	MaxWaiting  int
	PerAddress  int
	PerAccount  int
}

// Hashing is the semaphore of HashLimits: running slots, a bounded FIFO
// queue, and how many each address and account holds.
type Hashing struct {
	o       HashLimits
	mu      sync.Mutex
	running int
	queue   []*hashWaiter
	held    map[string]int // "a" or "u", NUL, address key or account -> running or waiting
}

type hashWaiter struct {
	ready chan struct{} // closed when the slot is handed over
	keys  []string
}

// NewHashing returns a limiter of o.
func NewHashing(o HashLimits) *Hashing {
	return &Hashing{o: o, held: map[string]int{}}
}

// Acquire takes a slot for a hash of account ("" for none) from the
// address key addr, waiting in the queue when every slot is taken:
// accounts.Busy when a limit refuses it, ctx's error when ctx ends while
// it waits. release gives the slot back; call it once.
func (l *Hashing) Acquire(ctx context.Context, addr, account string) (release func(), err error) {
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

func (l *Hashing) hold(keys []string, d int) {
	for _, k := range keys {
		if n := l.held[k] + d; n > 0 {
			l.held[k] = n
		} else {
			delete(l.held, k)
		}
	}
}

// releaser gives a running slot of keys back, to the first waiter if any.
func (l *Hashing) releaser(keys []string) func() {
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
