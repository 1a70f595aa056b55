package tambala_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

// The moving parts of TestCrashRestart (crash_test.go): a clock, the
// engine's store in one incarnation, and the network between the engine
// and its provider and webhook receiver, which outlive every restart.

// crClock is a sequence's clock, shared by every engine and provider of it.
type crClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *crClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *crClock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// errCrashed is what every store call of a crashed incarnation returns.
var errCrashed = errors.New("crash test: the process is dead")

// crStore is the engine's store in one incarnation: a FaultStore over the
// bolt file that, once its fault has fired, fails every later transaction
// before it touches the file, as a process killed at that point would
// commit nothing more. The transaction the fault fired in rolls back
// (FaultStore), so the file holds exactly what was committed before it.
type crStore struct{ f *storetest.FaultStore }

func (s crStore) dead() bool { return s.f.Injected() > 0 }

func (s crStore) View(ctx context.Context, fn func(store.Tx) error) error {
	if s.dead() {
		return errCrashed
	}
	return s.f.View(ctx, func(tx store.Tx) error {
		if s.dead() {
			return errCrashed
		}
		return fn(tx)
	})
}

func (s crStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	if s.dead() {
		return errCrashed
	}
	return s.f.Update(ctx, func(tx store.Tx) error {
		if s.dead() { // checked under the writer's lock: nothing commits after the fault
			return errCrashed
		}
		return fn(tx)
	})
}

func (s crStore) Close() error { return s.f.Close() }

// crPolicy is how unreliable the network of one sequence is: each is the
// probability of its mishap on one call.
type crPolicy struct {
	submitError   float64 // Submit fails without reaching the provider
	lose          float64 // Submit answers nil without reaching the provider
	acceptTimeout float64 // the provider accepts, but the answer is lost (an error)
	statusError   float64 // Status fails without reaching the provider
	sendFail      float64 // the webhook receiver answers 503
}

// crNet is the network between the engines of one sequence and their
// provider and webhook receiver, and what the test knows of both: it
// outlives every restart. Its decisions are pure functions of the seed,
// the reference (or event id) and how many calls for it came before, so
// they do not depend on the order the worker takes payouts in.
type crNet struct {
	mu     sync.Mutex
	seed   uint64
	policy crPolicy
	// calm is the end of a sequence: no random mishaps any more; the
	// references lost forever stay lost.
	calm        bool
	lostForever map[string]bool
	submits     map[string]int  // Submit calls per reference, every incarnation
	statuses    map[string]int  // Status calls per reference
	accepted    map[string]bool // references the provider accepted
	sends       map[string]int  // Send calls per event id
	delivered   map[string]int  // 2xx answers per event id

	trace func(string, ...any) // nil: no trace

	unknown, resubmits, lost, submitErrors, acceptTimeouts, scriptedTimeouts, statusErrors int
	sendFailures, deliveries, duplicates                                                   int
}

func newCrNet(seed uint64, p crPolicy) *crNet {
	return &crNet{seed: seed, policy: p, lostForever: map[string]bool{}, submits: map[string]int{},
		statuses: map[string]int{}, accepted: map[string]bool{}, sends: map[string]int{}, delivered: map[string]int{}}
}

// draw is a number in [0, 1) fixed by the seed, what is drawn, for whom,
// and the how-manyth call it is.
func (n *crNet) draw(what, ref string, call int) float64 {
	h := fnv.New64a()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], n.seed)
	binary.LittleEndian.PutUint64(b[8:], uint64(call))
	h.Write(b[:])
	h.Write([]byte(what))
	h.Write([]byte{0})
	h.Write([]byte(ref))
	x := h.Sum64()
	// splitmix64's finalizer spreads FNV's low-entropy high bits.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

func (n *crNet) logf(format string, args ...any) {
	if n.trace != nil {
		n.trace("    "+format, args...)
	}
}

func (n *crNet) isLostForever(ref string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lostForever[ref]
}

func (n *crNet) deliveredCount(id string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.delivered[id]
}

func (n *crNet) setCalm() { n.mu.Lock(); n.calm = true; n.mu.Unlock() }

func (n *crNet) wasAccepted(ref string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.accepted[ref]
}

func (n *crNet) submitCalls(ref string) int { n.mu.Lock(); defer n.mu.Unlock(); return n.submits[ref] }

func (n *crNet) loseForever(ref string) { n.mu.Lock(); n.lostForever[ref] = true; n.mu.Unlock() }

var (
	errCrReset       = errors.New("crash test: connection reset by peer")
	errCrAnswerLost  = errors.New("crash test: read timeout (the provider accepted the payout)")
	errCrUnreachable = errors.New("crash test: provider unreachable")
)

// crProvider is the payout provider as an engine incarnation reaches it:
// a sandbox Provider over the bolt file (its submissions persist, as a real
// provider's do) behind a network that loses, fails and times out.
type crProvider struct {
	inner *sandbox.Provider
	net   *crNet
}

var _ tambala.PayoutProvider = (*crProvider)(nil)

func (p *crProvider) Submit(ctx context.Context, s tambala.PayoutSubmission) error {
	n := p.net
	n.mu.Lock()
	n.submits[s.Reference]++
	call := n.submits[s.Reference]
	if call > 1 {
		n.resubmits++
	}
	if n.lostForever[s.Reference] {
		n.lost++
		n.mu.Unlock()
		n.logf("submit %s #%d: acked, lost (forever)", s.Reference, call)
		return nil // "ack but lose", always
	}
	answerLost := false
	if !n.calm {
		u, pol := n.draw("submit", s.Reference, call), n.policy
		switch {
		case u < pol.submitError:
			n.submitErrors++
			n.mu.Unlock()
			n.logf("submit %s #%d: unreachable", s.Reference, call)
			return errCrUnreachable
		case u < pol.submitError+pol.lose:
			n.lost++
			n.mu.Unlock()
			n.logf("submit %s #%d: acked, lost", s.Reference, call)
			return nil // acknowledged, never forwarded: Status will not know it
		case u < pol.submitError+pol.lose+pol.acceptTimeout:
			answerLost = true
		}
	}
	n.mu.Unlock()

	err := p.inner.Submit(ctx, s)
	n.logf("submit %s #%d: provider: %v (answer lost: %v)", s.Reference, call, err, answerLost && err == nil)
	n.mu.Lock()
	defer n.mu.Unlock()
	if err == nil || errors.Is(err, sandbox.ErrTimeout) {
		n.accepted[s.Reference] = true
	}
	if errors.Is(err, sandbox.ErrTimeout) {
		n.scriptedTimeouts++
	}
	if err == nil && answerLost {
		n.acceptTimeouts++
		return errCrAnswerLost
	}
	return err
}

func (p *crProvider) Status(ctx context.Context, ref string) (tambala.ProviderStatus, error) {
	n := p.net
	n.mu.Lock()
	n.statuses[ref]++
	call := n.statuses[ref]
	if !n.calm && n.draw("status", ref, call) < n.policy.statusError {
		n.statusErrors++
		n.mu.Unlock()
		n.logf("status %s #%d: connection reset", ref, call)
		return tambala.ProviderStatus{}, errCrReset
	}
	n.mu.Unlock()
	st, err := p.inner.Status(ctx, ref)
	n.logf("status %s #%d: %+v %v", ref, call, st, err)
	if errors.Is(err, tambala.ErrUnknownReference) {
		n.mu.Lock()
		n.unknown++
		wrap := n.draw("wrap", ref, call) < 0.5
		n.mu.Unlock()
		if wrap { // a real client wraps what it got; the engine must see through it
			return st, fmt.Errorf("crash test: status of %s: %w", ref, err)
		}
	}
	return st, err
}

// crSender is the webhook receiver: it counts the deliveries of each event
// id and, while the network is not calm, sometimes answers 503.
type crSender struct{ net *crNet }

func (s crSender) Send(_ context.Context, _ string, body []byte, _ string) (tambala.SendResult, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil || env.ID == "" {
		return tambala.SendResult{StatusCode: 400}, nil
	}
	n := s.net
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sends[env.ID]++
	if !n.calm && n.draw("send", env.ID, n.sends[env.ID]) < n.policy.sendFail {
		n.sendFailures++
		return tambala.SendResult{StatusCode: 503}, nil
	}
	n.delivered[env.ID]++
	n.deliveries++
	if n.delivered[env.ID] > 1 {
		n.duplicates++
	}
	return tambala.SendResult{StatusCode: 200}, nil
}
