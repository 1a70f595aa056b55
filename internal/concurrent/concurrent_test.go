package concurrent

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestForEachCallsEachOnce(t *testing.T) {
	for _, tc := range []struct{ workers, n int }{{1, 0}, {1, 5}, {8, 3}, {8, 100}, {0, 4}} {
		var mu sync.Mutex
		seen := map[int]int{}
		var inFlight, most atomic.Int64
		ForEach(context.Background(), tc.workers, tc.n, func(i int) {
			cur := inFlight.Add(1)
			for {
				m := most.Load()
				if cur <= m || most.CompareAndSwap(m, cur) {
					break
				}
			}
			runtime.Gosched()
			mu.Lock()
			seen[i]++
			mu.Unlock()
			inFlight.Add(-1)
		})
		require.Len(t, seen, tc.n, "%+v", tc)
		for i, c := range seen {
			require.Equal(t, 1, c, "item %d of %+v", i, tc)
		}
		require.LessOrEqual(t, most.Load(), int64(max(1, tc.workers)), "%+v", tc)
	}
}

func TestForEachOneWorkerKeepsOrder(t *testing.T) {
	var got []int
	ForEach(context.Background(), 1, 6, func(i int) { got = append(got, i) })
	require.Equal(t, []int{0, 1, 2, 3, 4, 5}, got)
}

func TestForEachStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	ForEach(ctx, 1, 10, func(i int) {
		if calls.Add(1) == 3 {
			cancel()
		}
	})
	require.Equal(t, int64(3), calls.Load())
}

func TestForEachPanicWaitsForOthers(t *testing.T) {
	for range 20 {
		var started, done atomic.Int64
		func() {
			defer func() {
				require.Equal(t, "boom", recover())
				require.Equal(t, started.Load()-1, done.Load(), "every other call begun returned before the panic went on")
			}()
			ForEach(context.Background(), 4, 40, func(i int) {
				started.Add(1)
				if i == 2 {
					panic("boom")
				}
				time.Sleep(time.Millisecond)
				done.Add(1)
			})
		}()
		require.Less(t, started.Load(), int64(40), "no new work after the panic")
	}
}

func TestForEachGoexit(t *testing.T) {
	var after atomic.Bool
	var others atomic.Int64
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		ForEach(context.Background(), 3, 3, func(i int) {
			if i == 0 {
				runtime.Goexit()
			}
			others.Add(1)
		})
		after.Store(true)
	}()
	<-ch
	require.False(t, after.Load(), "Goexit ends the caller's goroutine")
}
