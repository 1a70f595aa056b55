package work_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/internal/work"
	"github.com/tambalapay/tambala/store"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var bucket = []byte("items")

// fixture is a store holding items "0".."n-1", each claimable once (its
// value says "due"), with counters of what the job saw.
type fixture struct {
	s        store.Store
	ids      []string
	mu       sync.Mutex
	called   map[string]int
	recorded map[string]int
	claims   [][]string // the ids of each claim transaction that committed
	inFlight atomic.Int64
	most     atomic.Int64
}

func newFixture(t *testing.T, n int) *fixture {
	t.Helper()
	f := &fixture{s: memstore.New(), called: map[string]int{}, recorded: map[string]int{}}
	t.Cleanup(func() { f.s.Close() })
	require.NoError(t, f.s.Update(context.Background(), func(tx store.Tx) error {
		for i := range n {
			id := fmt.Sprint(i)
			f.ids = append(f.ids, id)
			if err := tx.Put(bucket, []byte(id), []byte("due")); err != nil {
				return err
			}
		}
		return nil
	}))
	return f
}

func (f *fixture) job(call func(id string)) work.Job[string, string] {
	var pending []string
	return work.Job[string, string]{
		Name: "test", Item: "item",
		ID: func(id string) string { return id },
		Claim: func(tx store.Tx, id string) (string, bool, error) {
			v, err := tx.Get(bucket, []byte(id))
			if err != nil {
				return "", false, err
			}
			if string(v) != "due" {
				return "", false, nil
			}
			pending = append(pending, id)
			return id, true, tx.Put(bucket, []byte(id), []byte("leased"))
		},
		Claimed: func(id string) {
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(pending) > 0 {
				f.claims = append(f.claims, pending)
				pending = nil
			}
		},
		Call: func(ctx context.Context, id string) (string, bool) {
			cur := f.inFlight.Add(1)
			for {
				m := f.most.Load()
				if cur <= m || f.most.CompareAndSwap(m, cur) {
					break
				}
			}
			if call != nil {
				call(id)
			}
			runtime.Gosched()
			f.mu.Lock()
			f.called[id]++
			f.mu.Unlock()
			f.inFlight.Add(-1)
			return "done " + id, true
		},
		Record: func(ctx context.Context, id, out string) (bool, error) {
			f.mu.Lock()
			f.recorded[id]++
			f.mu.Unlock()
			return true, f.s.Update(ctx, func(tx store.Tx) error { return tx.Put(bucket, []byte(id), []byte(out)) })
		},
	}
}

// Every item is claimed, called and recorded once, with at most workers
// calls at once.
func TestPassEachOnce(t *testing.T) {
	for _, tc := range []struct{ workers, n int }{{1, 0}, {1, 5}, {8, 3}, {8, 100}, {0, 4}} {
		f := newFixture(t, tc.n)
		got := work.Pass(context.Background(), f.s, quiet, tc.workers, f.ids, f.job(nil))
		require.Equal(t, tc.n, got, "%+v", tc)
		require.Len(t, f.called, tc.n)
		for _, id := range f.ids {
			require.Equal(t, 1, f.called[id], "item %s of %+v", id, tc)
			require.Equal(t, 1, f.recorded[id], "item %s of %+v", id, tc)
		}
		require.LessOrEqual(t, f.most.Load(), int64(max(1, tc.workers)), "%+v", tc)
		// A second pass over the same ids finds none due.
		require.Zero(t, work.Pass(context.Background(), f.s, quiet, tc.workers, f.ids, f.job(nil)))
	}
}

// One worker takes the items in order, one claim each.
func TestPassOneWorkerKeepsOrder(t *testing.T) {
	f := newFixture(t, 6)
	var got []string
	work.Pass(context.Background(), f.s, quiet, 1, f.ids, f.job(func(id string) { got = append(got, id) }))
	require.Equal(t, f.ids, got)
}

// Claims group: with every worker free at the start, the first claim
// takes an item for each.
func TestPassClaimsForEveryFreeWorker(t *testing.T) {
	f := newFixture(t, 8)
	work.Pass(context.Background(), f.s, quiet, 4, f.ids, f.job(func(string) { time.Sleep(time.Millisecond) }))
	require.NotEmpty(t, f.claims)
	require.Len(t, f.claims[0], 4, "the first claim is for the four free workers")
}

// A claim transaction that fails is retried one item at a time, so one bad
// item holds back no other.
func TestPassClaimFailureIsolated(t *testing.T) {
	f := newFixture(t, 5)
	job := f.job(nil)
	claim := job.Claim
	job.Claim = func(tx store.Tx, id string) (string, bool, error) {
		if id == "2" {
			return "", false, errors.New("corrupt record")
		}
		return claim(tx, id)
	}
	got := work.Pass(context.Background(), f.s, quiet, 5, f.ids, job)
	require.Equal(t, 4, got)
	require.Zero(t, f.called["2"])
}

func TestPassStopsOnCancel(t *testing.T) {
	f := newFixture(t, 10)
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	work.Pass(ctx, f.s, quiet, 1, f.ids, f.job(func(string) {
		if calls.Add(1) == 3 {
			cancel()
		}
	}))
	require.Equal(t, int64(3), calls.Load())
}

// A call that panics stops the pass once the other calls are recorded;
// the panic goes on in the caller.
func TestPassPanicWaitsForOthers(t *testing.T) {
	for range 20 {
		f := newFixture(t, 40)
		var started atomic.Int64
		func() {
			defer func() {
				require.Equal(t, "boom", recover())
				f.mu.Lock()
				defer f.mu.Unlock()
				require.Equal(t, int(started.Load())-1, len(f.recorded), "every other call begun was recorded before the panic went on")
			}()
			work.Pass(context.Background(), f.s, quiet, 4, f.ids, f.job(func(id string) {
				started.Add(1)
				if id == "2" {
					panic("boom")
				}
				time.Sleep(time.Millisecond)
			}))
		}()
		require.Less(t, started.Load(), int64(40), "no new work after the panic")
	}
}

func TestPassGoexit(t *testing.T) {
	f := newFixture(t, 3)
	var after atomic.Bool
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		work.Pass(context.Background(), f.s, quiet, 3, f.ids, f.job(func(id string) {
			if id == "0" {
				runtime.Goexit()
			}
		}))
		after.Store(true)
	}()
	<-ch
	require.False(t, after.Load(), "Goexit ends the caller's goroutine")
}
