package boltstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

// harness opens a boltstore with opts (copied per open) at dir/db.bolt.
func harness(opts boltstore.Options) storetest.Harness {
	return storetest.Harness{
		Open: func(t testing.TB, dir string) store.Store {
			t.Helper()
			o := opts
			s, err := boltstore.Open(filepath.Join(dir, "db.bolt"), &o)
			require.NoError(t, err)
			return s
		},
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Features{Persistent: true}, harness(boltstore.Options{}))
}

func TestConformanceBoltBatch(t *testing.T) {
	storetest.Run(t, storetest.Features{Persistent: true}, harness(boltstore.Options{
		Mode:          boltstore.CommitBoltBatch,
		MaxBatchDelay: time.Millisecond,
	}))
}

var modes = []struct {
	name string
	opts boltstore.Options
}{
	{"Pipelined", boltstore.Options{}},
	{"BoltBatch", boltstore.Options{Mode: boltstore.CommitBoltBatch, MaxBatchDelay: 5 * time.Millisecond}},
}

func open(t *testing.T, path string, opts boltstore.Options) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(path, &opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func key(i int) []byte { return fmt.Appendf(nil, "k%03d", i) }

// TestGroupCommit runs many concurrent Updates, which share commits, and
// checks that every one of them is durable after reopening the file.
func TestGroupCommit(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db.bolt")
			s := open(t, path, m.opts)
			ctx := t.Context()
			const n = 64
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					<-start
					err := s.Update(ctx, func(tx store.Tx) error {
						// Every update also reads and bumps a shared
						// counter, so shared commits must still see each
						// other's writes in order.
						if err := bump(tx); err != nil {
							return err
						}
						return tx.Put([]byte("b"), key(i), fmt.Appendf(nil, "v%d", i))
					})
					assert.NoError(t, err)
				})
			}
			close(start)
			wg.Wait()
			require.NoError(t, s.Close())

			s = open(t, path, m.opts)
			require.NoError(t, s.View(ctx, func(tx store.Tx) error {
				for i := range n {
					v, err := tx.Get([]byte("b"), key(i))
					if err != nil {
						return fmt.Errorf("key %d: %w", i, err)
					}
					assert.Equal(t, fmt.Sprintf("v%d", i), string(v))
				}
				v, err := tx.Get([]byte("b"), []byte("counter"))
				if err != nil {
					return err
				}
				assert.Equal(t, fmt.Sprint(n), string(v), "lost updates to the shared counter")
				return nil
			}))
		})
	}
}

func bump(tx store.Tx) error {
	n := 0
	v, err := tx.Get([]byte("b"), []byte("counter"))
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return err
	default:
		if _, err := fmt.Sscan(string(v), &n); err != nil {
			return err
		}
	}
	return tx.Put([]byte("b"), []byte("counter"), fmt.Append(nil, n+1))
}

// TestBatchIsolation checks that an Update whose fn fails (or panics) in
// the same batch as others neither rolls them back nor leaks its writes.
func TestBatchIsolation(t *testing.T) {
	errBoom := errors.New("boom")
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db.bolt")
			s := open(t, path, m.opts)
			ctx := t.Context()

			// In the pipelined mode, hold the committer inside a first
			// Update so that every other caller queues into one batch.
			hold := make(chan struct{})
			holding := make(chan struct{})
			var once sync.Once
			var wg sync.WaitGroup
			if m.opts.Mode == boltstore.CommitPipelined {
				wg.Go(func() {
					assert.NoError(t, s.Update(ctx, func(tx store.Tx) error {
						once.Do(func() { close(holding) })
						<-hold
						return tx.Put([]byte("b"), []byte("holder"), []byte("x"))
					}))
				})
				<-holding
			}

			const n = 30
			results := make([]error, n)
			panics := make([]any, n)
			for i := range n {
				wg.Go(func() {
					defer func() { panics[i] = recover() }()
					results[i] = s.Update(ctx, func(tx store.Tx) error {
						if err := tx.Put([]byte("b"), key(i), []byte("v")); err != nil {
							return err
						}
						switch i % 10 {
						case 3:
							return fmt.Errorf("caller %d: %w", i, errBoom)
						case 7:
							panic(errBoom)
						}
						return nil
					})
				})
			}
			if m.opts.Mode == boltstore.CommitPipelined {
				// Let the callers queue behind the held commit.
				time.Sleep(20 * time.Millisecond)
				close(hold)
			}
			wg.Wait()

			var want []string
			for i := range n {
				switch i % 10 {
				case 3:
					assert.ErrorIs(t, results[i], errBoom, "caller %d", i)
					assert.Nil(t, panics[i], "caller %d", i)
				case 7:
					assert.Equal(t, errBoom, panics[i], "caller %d", i)
				default:
					assert.NoError(t, results[i], "caller %d", i)
					assert.Nil(t, panics[i], "caller %d", i)
					want = append(want, string(key(i)))
				}
			}
			if m.opts.Mode == boltstore.CommitPipelined {
				want = append([]string{"holder"}, want...)
			}
			require.NoError(t, s.Close())

			s = open(t, path, m.opts)
			var got []string
			require.NoError(t, s.View(ctx, func(tx store.Tx) error {
				return tx.Scan([]byte("b"), store.ScanOptions{}, func(k, _ []byte) (bool, error) {
					got = append(got, string(k))
					return true, nil
				})
			}))
			require.Equal(t, want, got)
		})
	}
}

// TestCancelWhileQueued checks that an Update whose context is cancelled
// while it waits for the committer returns ctx.Err() without running.
func TestCancelWhileQueued(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db.bolt"), boltstore.Options{})
	hold := make(chan struct{})
	holding := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		assert.NoError(t, s.Update(t.Context(), func(tx store.Tx) error {
			close(holding)
			<-hold
			return nil
		}))
	})
	<-holding
	ctx, cancel := context.WithCancel(t.Context())
	ran := false
	done := make(chan error, 1)
	go func() {
		done <- s.Update(ctx, func(tx store.Tx) error {
			ran = true
			return tx.Put([]byte("b"), []byte("k"), []byte("v"))
		})
	}()
	time.Sleep(10 * time.Millisecond) // let it queue
	cancel()
	close(hold)
	wg.Wait()
	require.ErrorIs(t, <-done, context.Canceled)
	require.False(t, ran)
}

// TestOpenErrors checks Open on a path it cannot use and a file locked by
// another open store.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := boltstore.Open(filepath.Join(dir, "missing", "db.bolt"), nil)
	require.Error(t, err)

	notBolt := filepath.Join(dir, "garbage.bolt")
	require.NoError(t, os.WriteFile(notBolt, []byte("this is not a bbolt file, not at all, no"), 0o600))
	_, err = boltstore.Open(notBolt, nil)
	require.Error(t, err)

	path := filepath.Join(dir, "db.bolt")
	s := open(t, path, boltstore.Options{})
	require.Equal(t, path, s.Path())
	_, err = boltstore.Open(path, &boltstore.Options{OpenTimeout: 50 * time.Millisecond})
	require.Error(t, err, "a second Open of a locked file must time out")
}

func Example() {
	dir, err := os.MkdirTemp("", "boltstore-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	s, err := boltstore.Open(filepath.Join(dir, "tambala.bolt"), nil) // fsync on, pipelined group commit
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	err = s.Update(ctx, func(tx store.Tx) error {
		if err := tx.Put([]byte("payouts"), []byte("po_1"), []byte("pending")); err != nil {
			return err
		}
		return tx.Put([]byte("payouts"), []byte("po_2"), []byte("paid"))
	})
	if err != nil {
		panic(err)
	}

	err = s.View(ctx, func(tx store.Tx) error {
		v, err := tx.Get([]byte("payouts"), []byte("po_1"))
		if err != nil {
			return err
		}
		fmt.Printf("po_1: %s\n", v)
		return tx.Scan([]byte("payouts"), store.ScanOptions{Reverse: true}, func(k, v []byte) (bool, error) {
			fmt.Printf("%s=%s\n", k, v)
			return true, nil
		})
	})
	if err != nil {
		panic(err)
	}

	if err := s.Close(); err != nil {
		panic(err)
	}
	fmt.Println(errors.Is(s.View(ctx, func(store.Tx) error { return nil }), store.ErrClosed))
	// Output:
	// po_1: pending
	// po_2=paid
	// po_1=pending
	// true
}

// TestPipelinedCommitFailure: the executor runs a batch over the writes of
// the batch still committing. When that commit fails, the batch built on it
// fails too (its functions read state that never became durable), and the
// next batch is built on committed data only.
func TestPipelinedCommitFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.bolt")
	s := open(t, path, boltstore.Options{})
	errDisk := errors.New("disk on fire")
	failing := make(chan struct{})
	release := make(chan struct{})
	s.SetFailCommit(func(seq int64) error {
		if seq != 1 {
			return nil
		}
		close(failing)
		<-release // keep the first commit in flight while the next batch runs
		return errDisk
	})
	ctx := t.Context()
	put := func(k string) func(store.Tx) error {
		return func(tx store.Tx) error { return tx.Put([]byte("b"), []byte(k), []byte("v")) }
	}

	first := make(chan error, 1)
	go func() { first <- s.Update(ctx, put("k1")) }()
	<-failing
	// The first batch is committing; the second runs over its writes.
	second := make(chan error, 1)
	sawK1 := make(chan bool, 1)
	go func() {
		second <- s.Update(ctx, func(tx store.Tx) error {
			_, err := tx.Get([]byte("b"), []byte("k1"))
			sawK1 <- err == nil
			return put("k2")(tx)
		})
	}()
	require.True(t, <-sawK1, "the second batch reads the first batch's writes before they are durable")
	close(release)
	require.ErrorIs(t, <-first, errDisk)
	require.Error(t, <-second, "built on a failed commit")

	// The next update sees only committed data, and commits.
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.Get([]byte("b"), []byte("k1"))
		if !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("k1 after its failed commit: %v", err)
		}
		return put("k3")(tx)
	}))
	require.NoError(t, s.Close())
	s = open(t, path, boltstore.Options{})
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		for k, want := range map[string]bool{"k1": false, "k2": false, "k3": true} {
			_, err := tx.Get([]byte("b"), []byte(k))
			assert.Equal(t, want, err == nil, k)
		}
		return nil
	}))
}

func TestFillPercentOption(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []float64{0.05, 1.5, -1} {
		_, err := boltstore.Open(filepath.Join(dir, "bad.db"), &boltstore.Options{FillPercent: bad})
		require.ErrorContains(t, err, "FillPercent", "%v", bad)
	}
	// Appending in key order at the default fill makes a smaller file than
	// bbolt's half-full pages, and every record reads back.
	size := func(fill float64) int64 {
		path := filepath.Join(dir, fmt.Sprintf("fill-%v.db", fill))
		s, err := boltstore.Open(path, &boltstore.Options{FillPercent: fill, NoSync: true})
		require.NoError(t, err)
		ctx := context.Background()
		for i := range 20 {
			require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
				for j := range 500 {
					if err := tx.Put([]byte("b"), fmt.Appendf(nil, "%08d", i*500+j), bytes.Repeat([]byte{'v'}, 100)); err != nil {
						return err
					}
				}
				return nil
			}))
		}
		require.NoError(t, s.View(ctx, func(tx store.Tx) error {
			n := 0
			err := tx.Scan([]byte("b"), store.ScanOptions{}, func(k, v []byte) (bool, error) {
				require.Equal(t, fmt.Sprintf("%08d", n), string(k))
				n++
				return true, nil
			})
			require.Equal(t, 10_000, n)
			return err
		}))
		require.NoError(t, s.Close())
		st, err := os.Stat(path)
		require.NoError(t, err)
		return st.Size()
	}
	small, half := size(0), size(0.5)
	t.Logf("file size at the default fill %d, at 0.5 %d", small, half)
	require.Less(t, small, half)
}

// While the writer is busy, updates that arrive one after another run into
// the one open batch, each over the writes of those before it, and commit
// together the moment the writer is free.
func TestOpenBatchGrowsWhileWriterBusy(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db.bolt"), boltstore.Options{})
	busy := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var commits []int64
	s.SetFailCommit(func(seq int64) error {
		mu.Lock()
		commits = append(commits, seq)
		mu.Unlock()
		if seq == 1 {
			close(busy)
			<-release
		}
		return nil
	})
	ctx := t.Context()
	require.NoError(t, func() error {
		errc := make(chan error, 1)
		go func() {
			errc <- s.Update(ctx, func(tx store.Tx) error { return tx.Put([]byte("b"), []byte("first"), []byte("1")) })
		}()
		<-busy
		// Batch 1 is committing. Each update below arrives after the one
		// before has run, so the open batch grows by one at a time.
		const n = 20
		done := make(chan error, n)
		for i := range n {
			ran := make(chan struct{})
			go func() {
				done <- s.Update(ctx, func(tx store.Tx) error {
					defer close(ran)
					v, err := tx.Get([]byte("b"), []byte("count"))
					count := 0
					if err == nil {
						count, _ = strconv.Atoi(string(v))
					} else if !errors.Is(err, store.ErrNotFound) {
						return err
					}
					if count != i {
						return fmt.Errorf("update %d read count %d", i, count)
					}
					return tx.Put([]byte("b"), []byte("count"), []byte(strconv.Itoa(count+1)))
				})
			}()
			<-ran
		}
		close(release)
		if err := <-errc; err != nil {
			return err
		}
		for range n {
			if err := <-done; err != nil {
				return err
			}
		}
		return nil
	}())
	mu.Lock()
	assert.Equal(t, []int64{1, 2}, commits, "the twenty updates committed in one batch")
	mu.Unlock()
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		v, err := tx.Get([]byte("b"), []byte("count"))
		assert.Equal(t, "20", string(v))
		return err
	}))
}

// TestLazyCommit holds a batch's commit: an UpdateLazy returns all the
// same, before its own batch commits; Views do not see its write until
// then, the next Update reads it, and a reopened store has it. A lazy
// write whose batch then fails to commit is lost, as at a crash, and so
// is the Update that read it.
func TestLazyCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db.bolt")
	s := open(t, path, boltstore.Options{})
	// hold, when set, holds the next commit until release is closed; the
	// commit after the one held fails when failNext is set.
	var hold, failNext atomic.Bool
	var held atomic.Int64
	holding := make(chan struct{}, 1)
	var release chan struct{}
	errDisk := errors.New("disk on fire")
	s.SetFailCommit(func(seq int64) error {
		if hold.CompareAndSwap(true, false) {
			held.Store(seq)
			holding <- struct{}{}
			<-release
			return nil
		}
		if failNext.Load() && seq == held.Load()+1 {
			return errDisk
		}
		return nil
	})
	ctx := t.Context()
	put := func(k string) func(store.Tx) error {
		return func(tx store.Tx) error { return tx.Put([]byte("b"), []byte(k), []byte("v")) }
	}
	seen := func(s store.Store, k string) bool {
		var err error
		require.NoError(t, s.View(ctx, func(tx store.Tx) error { _, err = tx.Get([]byte("b"), []byte(k)); return nil }))
		return err == nil
	}
	readThenPut := func(read, k string, saw chan<- bool) func(store.Tx) error {
		return func(tx store.Tx) error {
			_, err := tx.Get([]byte("b"), []byte(read))
			saw <- err == nil
			return put(k)(tx)
		}
	}
	// run holds the commit of an Update of held, runs an UpdateLazy of
	// lazy, which must return while the commit is held, then an Update
	// that reads it, and releases the commit; it returns the outcomes of
	// the held Update and of the reading one.
	run := func(heldKey, lazy, reader string) (error, error) {
		release = make(chan struct{})
		hold.Store(true)
		first := make(chan error, 1)
		go func() { first <- s.Update(ctx, put(heldKey)) }()
		<-holding
		done := make(chan error, 1)
		go func() { done <- s.UpdateLazy(ctx, put(lazy)) }()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("UpdateLazy waited for the commit of the batch before its own")
		}
		require.False(t, seen(s, lazy), "a View saw a lazy write before its batch committed")
		second := make(chan error, 1)
		saw := make(chan bool, 1)
		go func() { second <- s.Update(ctx, readThenPut(lazy, reader, saw)) }()
		require.True(t, <-saw, "an Update after UpdateLazy returned reads its write")
		close(release)
		return <-first, <-second
	}

	err1, err2 := run("k1", "q1", "k2")
	require.NoError(t, err1)
	require.NoError(t, err2)
	require.True(t, seen(s, "q1"))

	// The batch after the one held, which holds the lazy write, fails.
	failNext.Store(true)
	err1, err2 = run("k3", "q2", "k4")
	require.NoError(t, err1)
	require.ErrorIs(t, err2, errDisk, "the Update that read the lost lazy write fails with it")
	require.False(t, seen(s, "q2"))
	require.False(t, seen(s, "k4"))

	require.NoError(t, s.Close())
	s = open(t, path, boltstore.Options{})
	for k, want := range map[string]bool{"k1": true, "q1": true, "k2": true, "k3": true, "q2": false, "k4": false} {
		assert.Equal(t, want, seen(s, k), k)
	}
}
