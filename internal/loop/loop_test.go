package loop

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunStopsAfterPassUnderWay(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var inPass, passes atomic.Int32
	done := make(chan struct{})
	go func() {
		Run(ctx, time.Millisecond, func(context.Context) (bool, error) {
			inPass.Add(1)
			passes.Add(1)
			if passes.Load() == 3 {
				cancel()
				time.Sleep(20 * time.Millisecond) // a slow pass under way at cancel
			}
			inPass.Add(-1)
			return false, nil
		}, nil)
		close(done)
	}()
	<-done
	if inPass.Load() != 0 {
		t.Fatal("Run returned while a pass was under way")
	}
	if n := passes.Load(); n != 3 {
		t.Fatalf("%d passes, want 3: none after the context ended", n)
	}
}

func TestRunFullPassRunsNextAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var passes atomic.Int32
	Run(ctx, time.Hour, func(context.Context) (bool, error) {
		if passes.Add(1) == 5 {
			cancel()
			return false, nil
		}
		return true, nil // full: the next pass follows without waiting the hour
	}, nil)
	if passes.Load() != 5 {
		t.Fatalf("%d passes, want 5", passes.Load())
	}
}

func TestRunReportsErrorsWhileLive(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var reported atomic.Int32
	boom := errors.New("boom")
	Run(ctx, time.Millisecond, func(context.Context) (bool, error) {
		if reported.Load() == 2 {
			cancel()
		}
		return true, boom // an error never counts as full
	}, func(err error) {
		if !errors.Is(err, boom) {
			t.Errorf("reported %v", err)
		}
		reported.Add(1)
	})
	if reported.Load() != 2 {
		t.Fatalf("%d errors reported, want 2 (none after cancel)", reported.Load())
	}
}

func TestGroupRunsOneSetAtATime(t *testing.T) {
	var g Group
	ctx, cancel := context.WithCancel(context.Background())
	in := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		started, err := g.Run(ctx, func(ctx context.Context) error {
			close(in)
			<-ctx.Done()
			return errors.New("first")
		}, func(context.Context) error { return nil })
		if !started {
			err = errors.New("not started")
		}
		done <- err
	}()
	<-in
	if started, _ := g.Run(ctx); started {
		t.Fatal("a second set ran while the first was under way")
	}
	cancel()
	if err := <-done; err == nil || err.Error() != "first" {
		t.Fatalf("joined errors: %v", err)
	}
	if started, err := g.Run(ctx); !started || err != nil {
		t.Fatalf("after the first: %v %v", started, err)
	}
}

func TestBackoff(t *testing.T) {
	for attempts, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second, 30: time.Minute} {
		for range 20 {
			d := Backoff(attempts, time.Minute)
			if d < want/2 || d > want || d != d.Truncate(time.Millisecond) {
				t.Fatalf("Backoff(%d) = %v, want in [%v, %v]", attempts, d, want/2, want)
			}
		}
	}
}
