package throttle

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Rates holds one token bucket per organization.
type Rates struct {
	mu    sync.Mutex
	every rate.Limit
	burst int
	m     map[string]*rate.Limiter
}

// NewRates returns the buckets of perSecond tokens a second, burst deep.
func NewRates(perSecond float64, burst int) *Rates {
	return &Rates{every: rate.Limit(perSecond), burst: burst, m: map[string]*rate.Limiter{}}
}

func (l *Rates) get(org string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.m[org]
	if !ok {
		lim = rate.NewLimiter(l.every, l.burst)
		l.m[org] = lim
	}
	return lim
}

// Allow takes one token from org's bucket at now. When none is left it
// returns false and how long to wait, in whole seconds (at least 1).
func (l *Rates) Allow(org string, now time.Time) (ok bool, retryAfterSeconds int) {
	r := l.get(org).ReserveN(now, 1)
	if !r.OK() {
		return false, 1
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return true, 0
	}
	r.CancelAt(now)
	return false, max(1, int(math.Ceil(d.Seconds())))
}
