package pebblestore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/store"
)

func openFS(t *testing.T, fs vfs.FS, opts pebblestore.Options) *pebblestore.Store {
	t.Helper()
	pebblestore.WithFS(&opts, fs)
	s, err := pebblestore.Open("db", &opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestCrash simulates power failures: writers run updates on a filesystem
// in memory that knows which of its data were synced; at some moment the
// test takes a crash clone of it (all synced data, and none, half or all of
// the rest), then reopens the clone. Every update acknowledged before the
// crash must be there, each update is there whole or not at all, the
// counter every update bumps counts exactly the updates there, and each
// writer's updates are there as a prefix of the ones it made.
func TestCrash(t *testing.T) {
	rounds := []struct {
		unsynced int // percent of unsynced data the crash keeps
		memtable int64
	}{
		{0, 0}, {50, 0}, {100, 0},
		{0, 256 << 10}, {50, 256 << 10}, // memtables flush to sstables while writing
	}
	for round, r := range rounds {
		t.Run(fmt.Sprintf("unsynced%d/memtable%d", r.unsynced, r.memtable), func(t *testing.T) {
			mem := vfs.NewCrashableMem()
			s := openFS(t, mem, pebblestore.Options{MemTableSize: r.memtable})
			ctx := t.Context()
			const writers = 6
			var mu sync.Mutex
			acked := map[string]bool{}
			var total atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for g := range writers {
				wg.Go(func() {
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						id := fmt.Sprintf("g%d-%05d", g, i)
						if err := s.Update(ctx, func(tx store.Tx) error { return putRecord(tx, id) }); err != nil {
							assert.NoError(t, err)
							return
						}
						mu.Lock()
						acked[id] = true
						mu.Unlock()
						total.Add(1)
					}
				})
			}
			rng := rand.New(rand.NewPCG(uint64(round), 1))
			crashAt := int64(300 + rng.IntN(300))
			waitFor(t, func() bool { return total.Load() >= crashAt })
			// Updates acknowledged now were durable before the crash.
			mu.Lock()
			before := make([]string, 0, len(acked))
			for id := range acked {
				before = append(before, id)
			}
			mu.Unlock()
			crashed := mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: r.unsynced, RNG: rng})
			close(stop)
			wg.Wait()
			require.NoError(t, s.Close())

			c := openFS(t, crashed, pebblestore.Options{})
			present := checkRecords(t, c)
			for _, id := range before {
				require.True(t, present[id], "acknowledged update %s lost in the crash", id)
			}
			// Each writer's updates ran one after another: the ones there
			// are its first n.
			last := map[string]int{}
			for id := range present {
				var g string
				var i int
				_, err := fmt.Sscanf(strings.Replace(id, "-", " ", 1), "%s %d", &g, &i)
				require.NoError(t, err)
				last[g] = max(last[g], i+1)
			}
			n := 0
			for _, v := range last {
				n += v
			}
			require.Equal(t, n, len(present), "a writer's updates are there with a gap")
			t.Logf("%d updates acknowledged before the crash, %d there after it, %d made in all",
				len(before), len(present), total.Load())

			// The reopened store takes writes again.
			require.NoError(t, c.Update(ctx, func(tx store.Tx) error { return putRecord(tx, "after") }))
			require.True(t, checkRecords(t, c)["after"])
		})
	}
}

// walSync injects faults into the WAL's syncs: once armed, the next sync
// signals failing, waits for release and fails, and so does every later
// one (the disk is gone).
type walSync struct {
	armed, broken atomic.Bool
	failing       chan struct{}
	release       chan struct{}
	err           error
	pass          bool // the armed sync succeeds after the wait
}

func (w *walSync) MaybeError(op errorfs.Op) error {
	switch op.Kind {
	case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
	default:
		return nil
	}
	if !strings.HasSuffix(op.Path, ".log") {
		return nil
	}
	if w.armed.CompareAndSwap(true, false) {
		close(w.failing)
		<-w.release
		if w.pass {
			return nil
		}
		w.broken.Store(true)
	}
	if w.broken.Load() {
		return w.err
	}
	return nil
}

func (w *walSync) String() string { return "walSync" }

// TestViewsSeeOnlyDurable holds a batch's WAL fsync: pebble has applied the
// batch and shows it to its own readers, but no View may see it, while the
// next batch's functions do read it. Once the fsync ends, both commit.
func TestViewsSeeOnlyDurable(t *testing.T) {
	mem := vfs.NewCrashableMem()
	inj := &walSync{failing: make(chan struct{}), release: make(chan struct{}), pass: true}
	s := openFS(t, errorfs.Wrap(mem, inj), pebblestore.Options{})
	ctx := t.Context()
	put := func(k string) func(store.Tx) error {
		return func(tx store.Tx) error { return tx.Put([]byte("b"), []byte(k), []byte("v")) }
	}
	require.NoError(t, s.Update(ctx, put("k0")))

	inj.armed.Store(true)
	first := make(chan error, 1)
	go func() { first <- s.Update(ctx, put("k1")) }()
	<-inj.failing // k1 is applied; its fsync waits
	requireKeys(t, s, map[string]bool{"k0": true, "k1": false})
	second := make(chan error, 1)
	sawK1 := make(chan bool, 1)
	go func() {
		second <- s.Update(ctx, func(tx store.Tx) error {
			_, err := tx.Get([]byte("b"), []byte("k1"))
			sawK1 <- err == nil
			return put("k2")(tx)
		})
	}()
	require.True(t, <-sawK1)
	requireKeys(t, s, map[string]bool{"k0": true, "k1": false, "k2": false})
	// A crash now loses k1: it was never synced, and never acknowledged.
	crashed := mem.CrashClone(vfs.CrashCloneCfg{})

	close(inj.release)
	require.NoError(t, <-first)
	require.NoError(t, <-second)
	requireKeys(t, s, map[string]bool{"k0": true, "k1": true, "k2": true})
	require.NoError(t, s.Close())

	c := openFS(t, crashed, pebblestore.Options{})
	requireKeys(t, c, map[string]bool{"k0": true, "k1": false, "k2": false})
}

// TestSyncFailure fails the WAL's fsync under a commit while the next batch
// runs over its writes: both fail, the store refuses updates after them,
// Views never see them, and after a crash and reopen neither is there.
func TestSyncFailure(t *testing.T) {
	mem := vfs.NewCrashableMem()
	errDisk := errors.New("disk on fire")
	inj := &walSync{failing: make(chan struct{}), release: make(chan struct{}), err: errDisk}
	s := openFS(t, errorfs.Wrap(mem, inj), pebblestore.Options{})
	ctx := t.Context()
	put := func(k string) func(store.Tx) error {
		return func(tx store.Tx) error { return tx.Put([]byte("b"), []byte(k), []byte("v")) }
	}
	require.NoError(t, s.Update(ctx, put("k0")))

	inj.armed.Store(true)
	first := make(chan error, 1)
	go func() { first <- s.Update(ctx, put("k1")) }()
	<-inj.failing
	second := make(chan error, 1)
	sawK1 := make(chan bool, 1)
	go func() {
		second <- s.Update(ctx, func(tx store.Tx) error {
			_, err := tx.Get([]byte("b"), []byte("k1"))
			sawK1 <- err == nil
			return put("k2")(tx)
		})
	}()
	require.True(t, <-sawK1, "the next batch reads the writes of the one syncing")
	close(inj.release)
	err := <-first
	require.ErrorIs(t, err, errDisk)
	require.ErrorIs(t, err, pebblestore.ErrFailed)
	err = <-second
	require.ErrorIs(t, err, pebblestore.ErrFailed, "built on a failed commit")

	ran := false
	err = s.Update(ctx, func(tx store.Tx) error { ran = true; return put("k3")(tx) })
	require.ErrorIs(t, err, pebblestore.ErrFailed)
	require.False(t, ran, "a failed store ran an update")
	requireKeys(t, s, map[string]bool{"k0": true, "k1": false, "k2": false, "k3": false})
	err = s.Close()
	t.Logf("Close of the failed store: %v", err)

	c := openFS(t, mem.CrashClone(vfs.CrashCloneCfg{}), pebblestore.Options{})
	requireKeys(t, c, map[string]bool{"k0": true, "k1": false, "k2": false, "k3": false})
	require.NoError(t, c.Update(ctx, put("k4")))
	requireKeys(t, c, map[string]bool{"k4": true})
}

// TestLazyCommit holds a batch's WAL fsync: an UpdateLazy returns all the
// same, before its own batch is even applied, and the next Update reads
// its write; a crash then loses both (neither was synced, and only the
// lazy one was acknowledged). Once the fsync ends, the Update that read
// the lazy write makes it durable with its own batch: it is found after a
// crash, and Views see it.
func TestLazyCommit(t *testing.T) {
	mem := vfs.NewCrashableMem()
	inj := &walSync{failing: make(chan struct{}), release: make(chan struct{}), pass: true}
	s := openFS(t, errorfs.Wrap(mem, inj), pebblestore.Options{})
	ctx := t.Context()
	put := func(k string) func(store.Tx) error {
		return func(tx store.Tx) error { return tx.Put([]byte("b"), []byte(k), []byte("v")) }
	}
	require.NoError(t, s.Update(ctx, put("k0")))

	inj.armed.Store(true)
	first := make(chan error, 1)
	go func() { first <- s.Update(ctx, put("k1")) }()
	<-inj.failing // k1 is applied; its fsync waits

	lazy := make(chan error, 1)
	go func() { lazy <- s.UpdateLazy(ctx, put("q")) }()
	select {
	case err := <-lazy:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("UpdateLazy waited for the fsync of the batch before its own")
	}
	requireKeys(t, s, map[string]bool{"k0": true, "k1": false, "q": false})

	second := make(chan error, 1)
	sawQ := make(chan bool, 1)
	go func() {
		second <- s.Update(ctx, func(tx store.Tx) error {
			_, err := tx.Get([]byte("b"), []byte("q"))
			sawQ <- err == nil
			return put("k2")(tx)
		})
	}()
	require.True(t, <-sawQ, "an Update after UpdateLazy returned reads its write")
	// A crash now loses the lazy write, acknowledged but never synced, and
	// the Update that read it, never acknowledged.
	crashed := mem.CrashClone(vfs.CrashCloneCfg{})

	close(inj.release)
	require.NoError(t, <-first)
	require.NoError(t, <-second)
	requireKeys(t, s, map[string]bool{"k0": true, "k1": true, "k2": true, "q": true})
	synced := mem.CrashClone(vfs.CrashCloneCfg{})
	require.NoError(t, s.Close())

	c := openFS(t, crashed, pebblestore.Options{})
	requireKeys(t, c, map[string]bool{"k0": true, "q": false, "k2": false})
	c = openFS(t, synced, pebblestore.Options{})
	requireKeys(t, c, map[string]bool{"k0": true, "k1": true, "q": true, "k2": true})
}
