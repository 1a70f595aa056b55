package tambala_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// The concurrent dispatcher (DispatcherOptions.Concurrency): several
// deliveries in flight at once, each claimed under its lease and recorded
// in its own transaction, with every guarantee of the serial one.

// inflight counts the requests a receiver is handling at once.
type inflight struct {
	mu       sync.Mutex
	now, max int
	reached  chan struct{} // closed once want requests were in flight together
	want     int
}

func newInflight(want int) *inflight { return &inflight{want: want, reached: make(chan struct{})} }

func (f *inflight) enter() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now++
	f.max = max(f.max, f.now)
	if f.now == f.want {
		select {
		case <-f.reached:
		default:
			close(f.reached)
		}
	}
}

func (f *inflight) leave() { f.mu.Lock(); f.now--; f.mu.Unlock() }

func (f *inflight) peak() int { f.mu.Lock(); defer f.mu.Unlock(); return f.max }

// gate holds each of the first n requests until n are in flight together,
// so the test passes only when the dispatcher sends n at once; a request
// that waits in vain answers 503 after wait, and so do the rest of the n.
func (f *inflight) gate(n int, wait time.Duration, waitedInVain *atomic.Int64) func(int, http.ResponseWriter, *http.Request) {
	return func(i int, w http.ResponseWriter, _ *http.Request) {
		f.enter()
		defer f.leave()
		if i < n {
			if waitedInVain.Load() > 0 {
				w.WriteHeader(http.StatusServiceUnavailable) // failed already: fail fast
				return
			}
			select {
			case <-f.reached:
			case <-time.After(wait):
				waitedInVain.Add(1)
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

// receivedByID counts the requests per event id.
func receivedByID(t *testing.T, rc *whReceiver) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, r := range rc.requests() {
		n[parseEnvelope(t, r.Body).ID]++
	}
	return n
}

func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	return b
}

// countingStore counts Update calls.
type countingStore struct {
	store.Store
	updates atomic.Int64
}

func (c *countingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	c.updates.Add(1)
	return c.Store.Update(ctx, fn)
}

// concurrency sets the dispatcher's concurrency and gives it a sender
// whose transport keeps an idle connection for each sender (the default
// transport keeps 2 per host and would dial anew for the others).
func concurrency(n int) whOption {
	return func(o *tambala.Options) {
		o.Dispatcher.Concurrency = n
		tr := &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}
		o.Webhooks = webhookhttp.NewSender(tr)
	}
}

// TestWebhookConcurrentDeliversEachOnce: with Concurrency 8 a receiver
// that holds the first 8 requests until 8 are in flight gets them all at
// once, never more than 8 at a time, and every event exactly once.
func TestWebhookConcurrentDeliversEachOnce(t *testing.T) {
	const events, n = 40, 8
	f := newInflight(n)
	var vain atomic.Int64
	rc := newWHReceiverFunc(t, f.gate(n, 3*time.Second, &vain))
	env := newWHEnv(t, memstore.New(), rc, concurrency(n))
	for i := range events {
		env.collect(t, 100+i)
	}

	assert.Equal(t, events, env.dispatch(t), "one pass sends every due delivery")
	assert.Zero(t, vain.Load(), "the first %d requests were in flight together", n)
	assert.Equal(t, n, f.peak(), "at most Concurrency in flight")
	got := receivedByID(t, rc)
	assert.Len(t, got, events)
	for id, c := range got {
		assert.Equal(t, 1, c, "event %s received %d times", id, c)
	}
	for _, d := range env.deliveries(t) {
		assert.Equal(t, webhooks.Delivered, d.State)
		require.Len(t, d.Attempts, 1)
		assert.Equal(t, http.StatusNoContent, d.Attempts[0].StatusCode)
	}
	env.clock.Advance(24 * time.Hour)
	assert.Equal(t, 0, env.dispatch(t))
	assert.Equal(t, events, rc.count())
}

// TestWebhookConcurrentClaimsInOneTransaction: 8 due deliveries and 8
// free senders take one claim transaction and one record transaction each.
func TestWebhookConcurrentClaimsInOneTransaction(t *testing.T) {
	const n = 8
	f := newInflight(n)
	var vain atomic.Int64
	rc := newWHReceiverFunc(t, f.gate(n, 3*time.Second, &vain))
	cs := &countingStore{Store: memstore.New()}
	env := newWHEnv(t, cs, rc, concurrency(n))
	for i := range n {
		env.collect(t, 100+i)
	}
	before := cs.updates.Load()
	assert.Equal(t, n, env.dispatch(t))
	assert.Zero(t, vain.Load())
	assert.EqualValues(t, 1+n, cs.updates.Load()-before, "one claim for all, one record each")
	assert.Equal(t, n, rc.count())
}

// TestWebhookConcurrencyOneIsSerial: Concurrency 1 is the serial
// dispatcher: one request at a time, in due order (here, the order the
// events were written), one claim and one record transaction each.
func TestWebhookConcurrencyOneIsSerial(t *testing.T) {
	const events = 12
	f := newInflight(2)
	rc := newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		f.enter()
		defer f.leave()
		time.Sleep(time.Millisecond) // room for a second request, were one sent
		w.WriteHeader(http.StatusOK)
	})
	cs := &countingStore{Store: memstore.New()}
	env := newWHEnv(t, cs, rc, concurrency(1))
	for i := range events {
		env.collect(t, 100+i)
	}
	before := cs.updates.Load()
	assert.Equal(t, events, env.dispatch(t))
	assert.Equal(t, 1, f.peak())
	assert.EqualValues(t, 2*events, cs.updates.Load()-before)
	var sent []string
	for _, r := range rc.requests() {
		sent = append(sent, parseEnvelope(t, r.Body).ID)
	}
	ds := env.deliveries(t) // newest first
	require.Len(t, ds, events)
	for i, d := range ds {
		assert.Equal(t, d.ID, sent[events-1-i], "sent oldest first")
	}
}

// TestWebhookConcurrentRetrySchedule: a receiver that fails some events
// once and others always; with Concurrency 8 every delivery still keeps
// its own schedule: no retry before its wait, one after it, dead after
// the last, and the receiver saw exactly the attempts the log records.
func TestWebhookConcurrentRetrySchedule(t *testing.T) {
	const events = 24
	// failures per collection id: 0 succeeds at once, 1 fails once, -1
	// always fails.
	failures := map[string]int{}
	var mu sync.Mutex
	seen := map[string]int{} // requests per collection id
	f := newInflight(0)
	rc := newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		f.enter()
		defer f.leave()
		time.Sleep(time.Millisecond) // let requests overlap
		col := dataID(t, readBody(r))
		mu.Lock()
		seen[col]++
		k, want := seen[col], failures[col]
		mu.Unlock()
		if want < 0 || k <= want {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	env := newWHEnv(t, memstore.New(), rc, concurrency(8))
	for i := range events {
		c := env.collect(t, 100+i)
		mu.Lock()
		failures[c.ID] = []int{0, 1, -1}[i%3]
		mu.Unlock()
	}

	pending := func() int {
		n := 0
		for _, d := range env.deliveries(t) {
			if d.State == webhooks.Pending {
				n++
			}
		}
		return n
	}
	assert.Equal(t, events, env.dispatch(t), "every first attempt at once")
	assert.Equal(t, events, rc.count())
	assert.Equal(t, 2*events/3, pending())
	for i, wait := range webhooks.DefaultSchedule {
		due := pending()
		env.clock.Advance(wait - time.Millisecond)
		assert.Equal(t, 0, env.dispatch(t), "retry %d sent before %s", i+1, wait)
		env.clock.Advance(time.Millisecond + wait/10)
		assert.Equal(t, due, env.dispatch(t), "retry %d of each pending delivery after %s", i+1, wait+wait/10)
		assert.Equal(t, 0, env.dispatch(t), "once per wait")
	}
	assert.Zero(t, pending())
	assert.Greater(t, f.peak(), 1, "sent concurrently")
	assert.LessOrEqual(t, f.peak(), 8)

	got := receivedByID(t, rc)
	for _, d := range env.deliveries(t) {
		col := dataID(t, []byte(d.Body))
		switch failures[col] {
		case 0:
			assert.Equal(t, webhooks.Delivered, d.State)
			assert.Len(t, d.Attempts, 1)
		case 1:
			assert.Equal(t, webhooks.Delivered, d.State)
			assert.Len(t, d.Attempts, 2)
		default:
			assert.Equal(t, webhooks.Dead, d.State)
			assert.Len(t, d.Attempts, 1+len(webhooks.DefaultSchedule))
		}
		assert.Equal(t, len(d.Attempts), got[d.ID], "the receiver saw each recorded attempt once")
		for i := 1; i < len(d.Attempts); i++ {
			// Newest first, each retry at least its wait after the one before.
			gap := d.Attempts[i-1].At.Sub(d.Attempts[i].At)
			wait := webhooks.DefaultSchedule[len(d.Attempts)-1-i]
			assert.GreaterOrEqual(t, gap, wait)
			assert.LessOrEqual(t, gap, wait+wait/10+time.Millisecond)
		}
	}
}

// TestWebhookConcurrentDispatchersRace: two engines over one store, each
// sending 8 at once from small batches, race for the same deliveries; the
// receiver fails every first attempt. Each event is received exactly once
// per round, and the log records exactly the attempts received.
func TestWebhookConcurrentDispatchersRace(t *testing.T) {
	eachStore(t, func(t *testing.T, st store.Store) {
		const events = 40
		var mu sync.Mutex
		seen := map[string]int{}
		rc := newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, r *http.Request) {
			id := parseEnvelope(t, readBody(r)).ID
			mu.Lock()
			seen[id]++
			first := seen[id] == 1
			mu.Unlock()
			time.Sleep(200 * time.Microsecond)
			if first {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		env := newWHEnv(t, st, rc, concurrency(8), func(o *tambala.Options) { o.Dispatcher.Batch = 13 })
		for i := range events {
			env.collect(t, 100+i)
		}
		engines := []*tambala.Engine{env.engine, env.open(t)}
		race := func(want int) {
			t.Helper()
			total := 0
			for round := 0; round < 20 && total < events; round++ {
				var wg sync.WaitGroup
				var sent atomic.Int64
				for _, e := range engines {
					wg.Go(func() {
						n, err := e.Work().ProcessDeliveries(context.Background())
						assert.NoError(t, err)
						sent.Add(int64(n))
					})
				}
				wg.Wait()
				total += int(sent.Load())
			}
			assert.Equal(t, events, total)
			got := receivedByID(t, rc)
			assert.Len(t, got, events)
			for id, n := range got {
				assert.Equal(t, want, n, "event %s received %d times, want %d", id, n, want)
			}
			for _, d := range env.deliveries(t) {
				assert.Len(t, d.Attempts, want, "delivery %s", d.ID)
			}
		}
		race(1) // every first attempt fails
		for _, d := range env.deliveries(t) {
			assert.Equal(t, webhooks.Pending, d.State)
		}
		env.clock.Advance(time.Minute + 6*time.Second + time.Millisecond)
		race(2) // every retry succeeds
		for _, d := range env.deliveries(t) {
			assert.Equal(t, webhooks.Delivered, d.State)
		}
		env.clock.Advance(24 * time.Hour)
		for _, e := range engines {
			assert.Equal(t, 0, dispatchWith(t, e))
		}
		assert.Equal(t, 2*events, rc.count())
	})
}

// TestWebhookConcurrentStop: a pass stopped while 8 sends are in flight
// records nothing and returns the context's error; the lease brings every
// delivery back, none with a retry used up.
func TestWebhookConcurrentStop(t *testing.T) {
	const n = 8
	f := newInflight(n)
	var hold atomic.Bool
	hold.Store(true)
	var rc *whReceiver
	rc = newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		f.enter()
		defer f.leave()
		if hold.Load() {
			select { // until the sender gives up
			case <-r.Context().Done():
			case <-rc.release:
			}
		}
		w.WriteHeader(http.StatusOK)
	})
	env := newWHEnv(t, memstore.New(), rc, concurrency(n))
	for i := range n {
		env.collect(t, 100+i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := env.engine.Work().ProcessDeliveries(ctx)
		done <- err
	}()
	select {
	case <-f.reached:
	case <-time.After(5 * time.Second):
		t.Fatal("the dispatcher never had 8 requests in flight")
	}
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	for _, d := range env.deliveries(t) {
		assert.Equal(t, webhooks.Pending, d.State)
		assert.Empty(t, d.Attempts, "stopped mid-send: nothing recorded")
	}

	hold.Store(false)
	env.clock.Advance(time.Minute - time.Second) // still leased
	assert.Equal(t, 0, env.dispatch(t))
	env.clock.Advance(2 * time.Second)
	assert.Equal(t, n, env.dispatch(t))
	for _, d := range env.deliveries(t) {
		assert.Equal(t, webhooks.Delivered, d.State)
		assert.Len(t, d.Attempts, 1)
	}
	assert.Equal(t, 2*n, rc.count())
}

// dyingSender panics or ends its goroutine on one delivery's first send,
// and sends every other for real.
type dyingSender struct {
	inner  tambala.WebhookSender
	victim atomic.Pointer[string] // the body that kills
	goexit bool
	died   atomic.Bool
}

func (s *dyingSender) Send(ctx context.Context, url string, body []byte, sig string) (tambala.SendResult, error) {
	if v := s.victim.Load(); v != nil && *v == string(body) && s.died.CompareAndSwap(false, true) {
		if s.goexit {
			runtime.Goexit()
		}
		panic("sender blew up")
	}
	return s.inner.Send(ctx, url, body, sig)
}

// TestWebhookConcurrentSenderDies: a Send that panics or ends its
// goroutine, on whichever goroutine of the pass it runs, ends the pass as
// it ended the serial one: ProcessDeliveries panics with the value, or
// ends its caller's goroutine, never returning. Every other request the
// receiver got is recorded; the victim and whatever was not sent stay
// pending with no attempt used, and a later pass delivers them.
func TestWebhookConcurrentSenderDies(t *testing.T) {
	for _, goexit := range []bool{false, true} {
		name := "panic"
		if goexit {
			name = "goexit"
		}
		t.Run(name, func(t *testing.T) {
			const events = 16
			rc := newWHReceiver(t, http.StatusOK)
			// A wrapped sender keeps its own destination rule: the
			// sandbox's, for the receiver on loopback.
			inner := webhookhttp.NewSender(&http.Transport{MaxIdleConnsPerHost: 16}).WithDestinations(webhooks.Policy{Loopback: true})
			ds := &dyingSender{inner: inner, goexit: goexit}
			env := newWHEnv(t, memstore.New(), rc, concurrency(8), func(o *tambala.Options) { o.Webhooks = ds })
			for i := range events {
				env.collect(t, 100+i)
			}
			victim := env.deliveries(t)[events/2].Body
			ds.victim.Store(&victim)

			var recovered any
			returned := false
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer func() { recovered = recover() }()
				_, _ = env.engine.Work().ProcessDeliveries(context.Background())
				returned = true
			}()
			<-done
			assert.False(t, returned, "ProcessDeliveries must not return")
			if goexit {
				assert.Nil(t, recovered)
			} else {
				assert.Equal(t, "sender blew up", recovered)
			}
			received := receivedByID(t, rc)
			for _, d := range env.deliveries(t) {
				if d.Body == victim {
					assert.Equal(t, webhooks.Pending, d.State)
					assert.Empty(t, d.Attempts)
					assert.Zero(t, received[d.ID])
					continue
				}
				// Sent and recorded, or never sent.
				assert.Len(t, d.Attempts, received[d.ID], "delivery %s", d.ID)
				if received[d.ID] == 0 {
					assert.Equal(t, webhooks.Pending, d.State)
				} else {
					assert.Equal(t, webhooks.Delivered, d.State)
				}
			}

			env.clock.Advance(time.Minute + time.Second) // past any lease
			assert.Equal(t, events-len(received), env.dispatch(t), "the rest, in one pass")
			got := receivedByID(t, rc)
			assert.Len(t, got, events)
			for _, d := range env.deliveries(t) {
				assert.Equal(t, webhooks.Delivered, d.State)
				assert.Len(t, d.Attempts, 1)
				assert.Equal(t, 1, got[d.ID], "event %s", d.ID)
			}
		})
	}
}
