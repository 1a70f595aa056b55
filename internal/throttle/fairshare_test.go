package throttle

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
)

// shareClock is a settable clock for FairShare.
type shareClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *shareClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *shareClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newShare(limit int) (*FairShare, *shareClock) {
	c := &shareClock{t: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)}
	var f FairShare
	f.Init(limit, c.now)
	return &f, c
}

// enterAsync enters org in the background and reports on the channel
// when it is admitted (the release function) or refused.
func enterAsync(ctx context.Context, f *FairShare, org string) <-chan func() {
	ch := make(chan func(), 1)
	go func() {
		release, err := f.Enter(ctx, org)
		if err != nil {
			close(ch)
			return
		}
		ch <- release
	}()
	return ch
}

func admitted(t *testing.T, ch <-chan func()) func() {
	t.Helper()
	select {
	case r, ok := <-ch:
		require.True(t, ok, "refused")
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("not admitted")
		return nil
	}
}

func waiting(t *testing.T, ch <-chan func()) {
	t.Helper()
	select {
	case <-ch:
		t.Fatal("admitted, want waiting")
	case <-time.After(20 * time.Millisecond):
	}
}

func TestFairShare(t *testing.T) {
	ctx := context.Background()

	t.Run("an organization alone is never held back", func(t *testing.T) {
		f, _ := newShare(2)
		var releases []func()
		for range 50 {
			r, err := f.Enter(ctx, "hot")
			require.NoError(t, err)
			releases = append(releases, r)
		}
		for _, r := range releases {
			r()
		}
		assert.Empty(t, f.orgs, "nothing is kept for an idle organization")
	})

	t.Run("while another is active, the limit holds and the waiters go in order", func(t *testing.T) {
		f, clock := newShare(2)
		r1, _ := f.Enter(ctx, "hot")
		r2, _ := f.Enter(ctx, "hot")
		clock.add(10 * time.Millisecond)
		quiet, err := f.Enter(ctx, "quiet") // another organization: the share applies from now
		require.NoError(t, err)
		third := enterAsync(ctx, f, "hot")
		waiting(t, third)
		fourth := enterAsync(ctx, f, "hot")
		waiting(t, fourth)
		again, err := f.Enter(ctx, "quiet") // the quiet one is within its own share
		require.NoError(t, err)
		r1()
		r3 := admitted(t, third) // the first waiter first
		waiting(t, fourth)
		r2()
		r4 := admitted(t, fourth)
		for _, r := range []func(){r3, r4, quiet, again} {
			r()
		}
		assert.Empty(t, f.orgs)
	})

	t.Run("the share ends a window after the other organization's last request", func(t *testing.T) {
		f, clock := newShare(1)
		r1, _ := f.Enter(ctx, "hot")
		clock.add(time.Millisecond)
		q, _ := f.Enter(ctx, "quiet")
		q()
		second := enterAsync(ctx, f, "hot")
		waiting(t, second)
		clock.add(ShareWindow + time.Millisecond)
		r1() // alone again: every waiter goes in
		r2 := admitted(t, second)
		r3, err := f.Enter(ctx, "hot")
		require.NoError(t, err)
		r2()
		r3()
		assert.Empty(t, f.orgs)
	})

	t.Run("a waiter whose context ends is refused and holds nothing", func(t *testing.T) {
		f, clock := newShare(1)
		r1, _ := f.Enter(ctx, "hot")
		clock.add(time.Millisecond)
		q, _ := f.Enter(ctx, "quiet")
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := f.Enter(wctx, "hot")
			done <- err
		}()
		time.Sleep(10 * time.Millisecond)
		cancel()
		err := <-done
		require.Error(t, err)
		assert.Equal(t, errcode.ServiceUnavailable, errcode.Of(err))
		r1()
		q()
		assert.Empty(t, f.orgs, "the refused waiter left nothing behind")
	})

	t.Run("off", func(t *testing.T) {
		f, clock := newShare(-1)
		r1, _ := f.Enter(ctx, "hot")
		clock.add(time.Millisecond)
		_, _ = f.Enter(ctx, "quiet")
		r2, err := f.Enter(ctx, "hot")
		require.NoError(t, err)
		r1()
		r2()
	})
}

// TestFairShareRapid drives random enters, releases, cancellations and
// clock moves over three organizations and checks after each step that
// the share is work-conserving and exact: an organization has waiters
// only while it holds its whole share; its count
// in flight is the requests admitted and not released; nothing is kept
// for an idle organization; and every waiter is eventually admitted or
// refused.
func TestFairShareRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		limit := rapid.IntRange(1, 3).Draw(rt, "limit")
		f, clock := newShare(limit)
		orgs := []string{"a", "b", "c"}
		type pending struct {
			org    string
			ch     <-chan func()
			cancel context.CancelFunc
		}
		held := map[string][]func(){}
		var queue []pending
		settle := func() {
			// Collect every waiter whose turn came or whose refusal did.
			for range 3 {
				var still []pending
				for _, p := range queue {
					select {
					case r, ok := <-p.ch:
						if ok {
							held[p.org] = append(held[p.org], r)
						}
					case <-time.After(2 * time.Millisecond):
						still = append(still, p)
					}
				}
				queue = still
			}
		}
		check := func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			now := f.now()
			for _, org := range orgs {
				s := f.orgs[org]
				if s == nil {
					continue
				}
				// Waiters only while the organization holds its whole
				// share (the share's end hands them slots at the
				// organization's next request or release).
				if len(s.waiting) > 0 && s.inFlight < f.limit {
					rt.Fatalf("%s waits with %d in flight (limit %d, shared %v)", org, s.inFlight, f.limit, f.shared(now))
				}
				if s.inFlight == 0 && len(s.waiting) == 0 {
					rt.Fatalf("%s kept while idle", org)
				}
			}
		}
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		for range steps {
			org := rapid.SampledFrom(orgs).Draw(rt, "org")
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0: // a request enters
				ctx, cancel := context.WithCancel(context.Background())
				queue = append(queue, pending{org: org, ch: enterAsync(ctx, f, org), cancel: cancel})
			case 1: // one of org's requests ends
				if h := held[org]; len(h) > 0 {
					h[0]()
					held[org] = h[1:]
				}
			case 2: // a waiter gives up
				for _, p := range queue {
					if p.org == org {
						p.cancel()
						break
					}
				}
			case 3:
				clock.add(time.Duration(rapid.IntRange(0, 1500).Draw(rt, "ms")) * time.Millisecond)
			}
			settle()
			check()
		}
		// Wind down: release everything and cancel the rest.
		for _, p := range queue {
			p.cancel()
		}
		settle()
		for org, h := range held {
			for _, r := range h {
				r()
			}
			held[org] = nil
		}
		settle()
		for org, h := range held {
			for _, r := range h {
				r()
			}
			held[org] = nil
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.orgs) != 0 || len(queue) != 0 {
			rt.Fatalf("left behind: %d organizations, %d waiters", len(f.orgs), len(queue))
		}
	})
}
