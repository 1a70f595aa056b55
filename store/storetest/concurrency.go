package storetest

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

// testNoDirtyReads checks that a View running while an Update has written
// but not returned never sees the write.
//
// The Update's fn writes and then blocks. A View then starts from another
// goroutine. A snapshot-isolating store (bbolt) lets the View finish at once
// with the old data; a lock-based store (memstore) makes it wait until the
// Update has committed. Both are allowed: the View must simply never see the
// new data unless the Update had already been released when the View read.
func (s *suite) testNoDirtyReads(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	put(t, st, "b", "k", "old")

	var released atomic.Bool
	written := make(chan struct{})
	var writtenOnce sync.Once
	release := make(chan struct{})
	releaseUpdate := sync.OnceFunc(func() {
		released.Store(true)
		close(release)
	})
	defer releaseUpdate() // never leave the Update blocked: Close would wait for it
	updateDone := make(chan error, 1)
	go func() {
		updateDone <- st.Update(ctx, func(tx store.Tx) error {
			if err := tx.Put(b("b"), b("k"), b("new")); err != nil {
				return err
			}
			if err := tx.Put(b("b"), b("k2"), b("new")); err != nil {
				return err
			}
			if err := tx.Put(b("nb"), b("k"), b("new")); err != nil {
				return err
			}
			writtenOnce.Do(func() { close(written) })
			<-release // fn may be run again: release stays closed
			return nil
		})
	}()

	select {
	case <-written:
	case err := <-updateDone:
		t.Fatalf("Update returned before its fn wrote: %v", err)
	}

	type state struct {
		K, K2, NB string
		Scan      []kv
	}
	type seen struct {
		state
		released bool
		err      error
	}
	viewDone := make(chan seen, 1)
	go func() {
		var r seen
		r.err = st.View(ctx, func(tx store.Tx) error {
			read := func(bucket, key string) string {
				v, err := tx.Get(b(bucket), b(key))
				if errors.Is(err, store.ErrNotFound) {
					return "<missing>"
				}
				if err != nil {
					return "<error: " + err.Error() + ">"
				}
				return string(v)
			}
			r.K, r.K2, r.NB = read("b", "k"), read("b", "k2"), read("nb", "k")
			var err error
			r.Scan, err = scanTx(tx, "b", store.ScanOptions{})
			// Read after the data: if the data was new, the commit
			// happened, so the release came before it.
			r.released = released.Load()
			return err
		})
		viewDone <- r
	}()

	var r seen
	finishedEarly := false
	select {
	case r = <-viewDone:
		finishedEarly = true
	case <-time.After(100 * time.Millisecond):
		// A lock-based store makes the View wait for the Update.
	}
	releaseUpdate()
	require.NoError(t, <-updateDone)
	if !finishedEarly {
		r = <-viewDone
	}
	require.NoError(t, r.err)

	oldState := state{K: "old", K2: "<missing>", NB: "<missing>", Scan: []kv{{"k", "old"}}}
	newState := state{K: "new", K2: "new", NB: "new", Scan: []kv{{"k", "new"}, {"k2", "new"}}}
	switch {
	case assert.ObjectsAreEqual(oldState, r.state):
	case assert.ObjectsAreEqual(newState, r.state):
		require.True(t, r.released, "View saw the writes of an Update that had not committed")
		require.False(t, finishedEarly, "View saw the writes of an Update that had not committed")
	default:
		t.Fatalf("View saw neither the old nor the new data: %+v", r.state)
	}

	// Once Update has returned, every new View sees the writes.
	requireValue(t, st, "b", "k", "new")
	requireValue(t, st, "b", "k2", "new")
	requireValue(t, st, "nb", "k", "new")
}

// testConsistentSnapshot checks that a View reading two keys that every
// Update changes together always sees them equal. The writer paces itself on
// the readers so that reads and writes interleave even on a store whose
// Updates are much faster than its Views.
func (s *suite) testConsistentSnapshot(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	putAll(t, st, "b", []kv{{"x", "0"}, {"y", "0"}})

	const writes, readers = 25, 2
	var (
		done    atomic.Bool  // the writer has finished
		reads   atomic.Int64 // Views completed
		running atomic.Int64 // readers still reading
		wg      sync.WaitGroup
	)
	running.Store(readers)
	for range readers {
		wg.Go(func() {
			defer running.Add(-1)
			for !done.Load() {
				err := st.View(ctx, func(tx store.Tx) error {
					x, err := tx.Get(b("b"), b("x"))
					if err != nil {
						return err
					}
					runtime.Gosched()
					y, err := tx.Get(b("b"), b("y"))
					if err != nil {
						return err
					}
					if string(x) != string(y) {
						return fmt.Errorf("View saw x=%s y=%s", x, y)
					}
					scan, err := scanTx(tx, "b", store.ScanOptions{Reverse: true})
					if err != nil {
						return err
					}
					for _, p := range scan {
						if p.V != string(x) {
							return fmt.Errorf("View's scan %v disagrees with its Gets x=%s y=%s", scan, x, y)
						}
					}
					if len(scan) < 2 || scan[0].K != "y" || scan[len(scan)-1].K != "m" && string(x) != "0" {
						return fmt.Errorf("View's scan %v misses keys (x=%s)", scan, x)
					}
					return nil
				})
				if !assert.NoError(t, err) {
					return
				}
				reads.Add(1)
			}
		})
	}
	wg.Go(func() {
		defer done.Store(true)
		for i := range writes {
			// Wait for the readers to have read since the last write.
			for reads.Load() <= int64(i) && running.Load() > 0 {
				runtime.Gosched()
			}
			err := st.Update(ctx, func(tx store.Tx) error {
				v, err := tx.Get(b("b"), b("x"))
				if err != nil {
					return err
				}
				n, err := strconv.Atoi(string(v))
				if err != nil {
					return err
				}
				next := b(strconv.Itoa(n + 1))
				if err := tx.Put(b("b"), b("x"), next); err != nil {
					return err
				}
				// Something in between, so that the two writes are apart.
				if err := tx.Put(b("b"), b("m"), next); err != nil {
					return err
				}
				return tx.Put(b("b"), b("y"), next)
			})
			if !assert.NoError(t, err) {
				return
			}
		}
	})
	wg.Wait()
	requireValue(t, st, "b", "x", strconv.Itoa(writes))
	requireValue(t, st, "b", "y", strconv.Itoa(writes))
	require.GreaterOrEqual(t, reads.Load(), int64(writes))
}

// increment reads a decimal counter (missing is 0) and writes it back plus one.
func increment(tx store.Tx, bucket, key string) error {
	n := 0
	v, err := tx.Get(b(bucket), b(key))
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return err
	default:
		if n, err = strconv.Atoi(string(v)); err != nil {
			return err
		}
	}
	return tx.Put(b(bucket), b(key), b(strconv.Itoa(n+1)))
}

// testConcurrentCounter checks that concurrent read-modify-write Updates
// lose no update.
func (s *suite) testConcurrentCounter(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	const goroutines, perGoroutine = 16, 50
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			<-start
			for range perGoroutine {
				err := st.Update(ctx, func(tx store.Tx) error { return increment(tx, "b", "counter") })
				if !assert.NoError(t, err) {
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	requireValue(t, st, "b", "counter", strconv.Itoa(goroutines*perGoroutine))
}

// testConcurrentDistinctKeys checks concurrent writers on distinct keys.
func (s *suite) testConcurrentDistinctKeys(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	const goroutines, perGoroutine = 8, 20
	want := model{}
	for g := range goroutines {
		for i := range perGoroutine {
			want[fmt.Sprintf("g%02d-%03d", g, i)] = fmt.Sprintf("v%d.%d", g, i)
		}
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for i := range perGoroutine {
				err := st.Update(ctx, func(tx store.Tx) error {
					// Each goroutine also keeps its own bucket.
					k, v := fmt.Sprintf("g%02d-%03d", g, i), fmt.Sprintf("v%d.%d", g, i)
					if err := tx.Put(b("shared"), b(k), b(v)); err != nil {
						return err
					}
					return tx.Put(b(fmt.Sprintf("own-%02d", g)), b(k), b(v))
				})
				if !assert.NoError(t, err) {
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	require.Equal(t, want.pairs(), dump(t, st, "shared"))
	for g := range goroutines {
		require.Len(t, dump(t, st, fmt.Sprintf("own-%02d", g)), perGoroutine)
	}
}

// testConcurrentFailures checks that writers whose fn fails or panics among
// concurrent successful ones affect nothing but themselves.
func (s *suite) testConcurrentFailures(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	const goroutines, perGoroutine = 12, 10
	errBoom := errors.New("storetest: boom")
	type outcome int
	const (
		succeed outcome = iota
		fail
		panics
	)
	plan := func(g, i int) outcome {
		switch {
		case (g+i)%3 == 0:
			return fail
		case (g*perGoroutine+i)%17 == 0:
			return panics
		}
		return succeed
	}
	want := model{}
	successes := 0
	for g := range goroutines {
		for i := range perGoroutine {
			if plan(g, i) == succeed {
				want[fmt.Sprintf("g%02d-%03d", g, i)] = "ok"
				successes++
			}
		}
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for i := range perGoroutine {
				p := plan(g, i)
				var recovered any
				err := func() (err error) {
					defer func() { recovered = recover() }()
					return st.Update(ctx, func(tx store.Tx) error {
						if err := increment(tx, "counter", "n"); err != nil {
							return err
						}
						if err := tx.Put(b("b"), b(fmt.Sprintf("g%02d-%03d", g, i)), b("ok")); err != nil {
							return err
						}
						switch p {
						case fail:
							return fmt.Errorf("writer %d/%d: %w", g, i, errBoom)
						case panics:
							panic(errBoom)
						}
						return nil
					})
				}()
				switch p {
				case succeed:
					assert.NoError(t, err, "writer %d/%d", g, i)
					assert.Nil(t, recovered, "writer %d/%d", g, i)
				case fail:
					assert.ErrorIs(t, err, errBoom, "writer %d/%d", g, i)
					assert.Nil(t, recovered, "writer %d/%d", g, i)
				case panics:
					assert.Equal(t, errBoom, recovered, "writer %d/%d", g, i)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	require.Equal(t, want.pairs(), dump(t, st, "b"))
	requireValue(t, st, "counter", "n", strconv.Itoa(successes))
}
