package tambala

import (
	"math"
	"sync"

	"golang.org/x/time/rate"
)

// limiters holds one token bucket per organization, in this process.
type limiters struct {
	mu    sync.Mutex
	every rate.Limit
	burst int
	m     map[string]*rate.Limiter
}

func (l *limiters) init(perSecond float64, burst int) {
	l.every, l.burst, l.m = rate.Limit(perSecond), burst, map[string]*rate.Limiter{}
}

func (l *limiters) get(org string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.m[org]
	if !ok {
		lim = rate.NewLimiter(l.every, l.burst)
		l.m[org] = lim
	}
	return lim
}

// Allow takes one token from the organization's bucket. When none is left
// it returns false and how long to wait, in whole seconds (at least 1), for
// the Retry-After header.
func (e *Engine) Allow(orgID string) (ok bool, retryAfterSeconds int) {
	lim := e.limiters.get(orgID)
	now := e.now()
	r := lim.ReserveN(now, 1)
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
