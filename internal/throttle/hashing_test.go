package throttle

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/tambalapay/tambala/accounts"
)

// TestHashLimiter: slots, the bounded FIFO queue, and the per-address and
// per-account bounds of PasswordWorkOptions; a refusal is immediate and
// rate_limited, a waiter whose context ends leaves the queue and frees
// its address's and account's share.
func TestHashLimiter(t *testing.T) {
	l := NewHashing(HashLimits{MaxInFlight: 1, MaxWaiting: 2, PerAddress: 2, PerAccount: 1})
	ctx := context.Background()
	busy := func(err error) bool { return errors.Is(err, accounts.ErrBusy) }

	r1, err := l.Acquire(ctx, "a1", "u1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire(ctx, "a2", "u1"); !busy(err) {
		t.Fatalf("a second hash of one account: %v", err)
	}
	// a1's second share waits in the queue.
	got := make(chan func(), 1)
	go func() {
		r, err := l.Acquire(ctx, "a1", "u2")
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	waitQueue(l, 1)
	if _, err := l.Acquire(ctx, "a1", "u3"); !busy(err) {
		t.Fatalf("a third share of one address: %v", err)
	}
	// Another waiter, whose context ends: it leaves the queue.
	cctx, cancel := context.WithCancel(ctx)
	left := make(chan error, 1)
	go func() {
		_, err := l.Acquire(cctx, "a3", "u4")
		left <- err
	}()
	waitQueue(l, 2)
	if _, err := l.Acquire(ctx, "a4", "u5"); !busy(err) {
		t.Fatalf("beyond the queue: %v", err)
	}
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled waiter: %v", err)
	}
	waitQueue(l, 1)
	// The slot passes to the first waiter.
	r1()
	r1() // a second release is nothing
	r2 := <-got
	l.mu.Lock()
	if l.running != 1 || len(l.queue) != 0 || l.held["u\x00u4"] != 0 || l.held["a\x00a3"] != 0 {
		t.Errorf("after the hand-over: running %d, queue %d, held %v", l.running, len(l.queue), l.held)
	}
	l.mu.Unlock()
	r2()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running != 0 || len(l.held) != 0 {
		t.Errorf("all released: running %d, held %v", l.running, l.held)
	}
}

// waitQueue waits for l's queue to hold n waiters.
func waitQueue(l *Hashing, n int) {
	for {
		l.mu.Lock()
		k := len(l.queue)
		l.mu.Unlock()
		if k == n {
			return
		}
		runtime.Gosched()
	}
}
