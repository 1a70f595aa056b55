package pebblestore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

// harness opens a pebblestore with opts (copied per open) at dir/db.
func harness(opts pebblestore.Options) storetest.Harness {
	return storetest.Harness{
		Open: func(t testing.TB, dir string) store.Store {
			t.Helper()
			o := opts
			s, err := pebblestore.Open(filepath.Join(dir, "db"), &o)
			require.NoError(t, err)
			return s
		},
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Features{Persistent: true}, harness(pebblestore.Options{}))
}

func TestConformanceNoSync(t *testing.T) {
	storetest.Run(t, storetest.Features{Persistent: true}, harness(pebblestore.Options{NoSync: true}))
}

// With a memtable of 256 KiB, the suite's larger values go through
// pebble's large-batch path and memtables flush to sstables mid-test.
func TestConformanceSmallMemTable(t *testing.T) {
	storetest.Run(t, storetest.Features{Persistent: true}, harness(pebblestore.Options{MemTableSize: 256 << 10, MaxBatch: 4}))
}

func open(t *testing.T, dir string, opts pebblestore.Options) *pebblestore.Store {
	t.Helper()
	s, err := pebblestore.Open(dir, &opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func key(i int) []byte { return fmt.Appendf(nil, "k%03d", i) }

func bump(tx store.Tx) error {
	n := 0
	v, err := tx.Get([]byte("b"), []byte("counter"))
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return err
	default:
		if n, err = strconv.Atoi(string(v)); err != nil {
			return err
		}
	}
	return tx.Put([]byte("b"), []byte("counter"), strconv.AppendInt(nil, int64(n+1), 10))
}

// TestBucketKeyspace checks that buckets whose names are prefixes of each
// other, hold 0x00 and 0xff bytes or need a two-byte length stay apart, and
// that each scans in byte order, forward and in reverse, with bounds.
func TestBucketKeyspace(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), pebblestore.Options{NoSync: true})
	ctx := t.Context()
	long := func(n int, c byte) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = c
		}
		return string(b)
	}
	buckets := []string{
		"a", "a\x00", "a\xff", "ab", "b", "\x00", "\x00\x00", "\xff", "\xff\xff",
		long(127, 'x'), long(128, 'x'), long(255, '\xff'), long(store.MaxKeySize, '\x00'),
	}
	keys := []string{"\x00", "\x00\x00", "\x00\xff", "a", "a\x00", "a\xff", "b", "\xff", "\xff\x00", "\xff\xff", long(store.MaxKeySize, '\xff')}
	// One Update per bucket: txbuf's index of more than 32 writes keys them
	// by bucket NUL key, which two buckets with 0x00 in their names can
	// share ("\x00" + "\x00\xff" and "\x00\x00" + "\xff").
	for bi, bucket := range buckets {
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
			for _, k := range keys {
				if err := tx.Put([]byte(bucket), []byte(k), fmt.Appendf(nil, "%d", bi)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	// Keys print as their length and first bytes, to keep failures short.
	scan := func(tx store.Tx, bucket string, opt store.ScanOptions) []string {
		var got []string
		assert.NoError(t, tx.Scan([]byte(bucket), opt, func(k, v []byte) (bool, error) {
			got = append(got, short(string(k))+"="+string(v))
			return true, nil
		}))
		return got
	}
	check := func(tx store.Tx) {
		for bi, bucket := range buckets {
			var want []string
			for _, k := range keys { // keys is sorted
				want = append(want, fmt.Sprintf("%s=%d", short(k), bi))
			}
			assert.Equal(t, want, scan(tx, bucket, store.ScanOptions{}), "bucket %s", short(bucket))
			rev := make([]string, len(want))
			for i := range want {
				rev[len(want)-1-i] = want[i]
			}
			assert.Equal(t, rev, scan(tx, bucket, store.ScanOptions{Reverse: true}), "bucket %s reversed", short(bucket))
			assert.Equal(t, want[7:], scan(tx, bucket, store.ScanOptions{Prefix: []byte("\xff")}), "bucket %s prefix 0xff", short(bucket))
			assert.Equal(t, want[2:4], scan(tx, bucket, store.ScanOptions{Start: []byte("\x00\x01"), End: []byte("a\x00")}), "bucket %s range", short(bucket))
			v, err := tx.Get([]byte(bucket), []byte("\x00"))
			if assert.NoError(t, err) {
				assert.Equal(t, strconv.Itoa(bi), string(v))
			}
		}
		for _, missing := range []string{"a\x00\x00", "c", "\x00\x00\x00", "\xff\xff\xff", long(store.MaxKeySize+1, 'x')} {
			assert.Empty(t, scan(tx, missing, store.ScanOptions{}), "bucket %s", short(missing))
			_, err := tx.Get([]byte(missing), []byte("a"))
			assert.ErrorIs(t, err, store.ErrNotFound, "bucket %s", short(missing))
		}
	}
	require.NoError(t, s.View(ctx, func(tx store.Tx) error { check(tx); return nil }))
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { check(tx); return nil }))
}

// short names a key or bucket by its first bytes and length.
func short(s string) string {
	if len(s) <= 8 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q...(%d bytes)", s[:8], len(s))
}

// TestGroupCommit runs many concurrent Updates, which share commits, and
// checks that every one of them is durable after reopening.
func TestGroupCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	s := open(t, dir, pebblestore.Options{})
	ctx := t.Context()
	const n = 64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			assert.NoError(t, s.Update(ctx, func(tx store.Tx) error {
				// Every update also bumps a shared counter, so updates
				// sharing a commit must see each other's writes in order.
				if err := bump(tx); err != nil {
					return err
				}
				return tx.Put([]byte("b"), key(i), fmt.Appendf(nil, "v%d", i))
			}))
		})
	}
	close(start)
	wg.Wait()
	require.NoError(t, s.Close())

	s = open(t, dir, pebblestore.Options{})
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
		assert.Equal(t, strconv.Itoa(n), string(v), "lost updates to the shared counter")
		return nil
	}))
}

// TestBatchIsolation checks that an Update whose fn fails (or panics) in
// the same batch as others neither rolls them back nor leaks its writes.
func TestBatchIsolation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	s := open(t, dir, pebblestore.Options{})
	ctx := t.Context()
	errBoom := errors.New("boom")

	// Hold the committer inside a first Update, so that every other caller
	// queues into one batch.
	hold := make(chan struct{})
	holding := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	wg.Go(func() {
		assert.NoError(t, s.Update(ctx, func(tx store.Tx) error {
			once.Do(func() { close(holding) })
			<-hold
			return tx.Put([]byte("b"), []byte("holder"), []byte("x"))
		}))
	})
	<-holding

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
	time.Sleep(20 * time.Millisecond) // let the callers queue behind the held one
	close(hold)
	wg.Wait()

	want := []string{"holder"}
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
	require.NoError(t, s.Close())

	s = open(t, dir, pebblestore.Options{})
	var got []string
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		return tx.Scan([]byte("b"), store.ScanOptions{}, func(k, _ []byte) (bool, error) {
			got = append(got, string(k))
			return true, nil
		})
	}))
	require.ElementsMatch(t, want, got)
}

// TestCancelWhileQueued checks that an Update whose context is cancelled
// while it waits for the committer returns ctx.Err() without running.
func TestCancelWhileQueued(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), pebblestore.Options{})
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

// TestOpenErrors checks Open's option checks, a directory locked by another
// Store of this process, and one written with another layout.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []pebblestore.Options{{CacheSize: -1}, {MemTableSize: -1}, {MaxBatch: -1}, {MemTableSize: 4 << 30}} {
		_, err := pebblestore.Open(filepath.Join(dir, "bad"), &bad)
		require.Error(t, err, "%+v", bad)
	}

	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("not a directory"), 0o600))
	_, err := pebblestore.Open(filepath.Join(file, "db"), nil)
	require.Error(t, err)

	path := filepath.Join(dir, "db")
	s := open(t, path, pebblestore.Options{})
	require.Equal(t, path, s.Dir())
	_, err = pebblestore.Open(path, nil)
	require.ErrorIs(t, err, pebblestore.ErrLocked, "a second Store on a locked directory")
	require.NoError(t, s.Close())
	s = open(t, path, pebblestore.Options{}) // the lock was released
	require.NoError(t, s.Close())

	// A pebble database this package did not write.
	other := filepath.Join(dir, "other")
	db, err := pebble.Open(other, &pebble.Options{Logger: silent{}})
	require.NoError(t, err)
	require.NoError(t, db.Set([]byte("\x00format"), []byte("something else"), pebble.Sync))
	require.NoError(t, db.Close())
	_, err = pebblestore.Open(other, nil)
	require.ErrorContains(t, err, "layout")
}

// silent is a pebble.Logger that says nothing.
type silent struct{}

func (silent) Infof(string, ...any)  {}
func (silent) Errorf(string, ...any) {}
func (silent) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// TestLockedByAnotherProcess runs this test binary again to hold the lock
// of a directory, and checks that Open here fails with ErrLocked.
func TestLockedByAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a second process")
	}
	dir := filepath.Join(t.TempDir(), "db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHoldLockHelper$")
	cmd.Env = append(os.Environ(), "PEBBLESTORE_HOLD_LOCK="+dir)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)

	_, err = pebblestore.Open(dir, nil)
	require.ErrorIs(t, err, pebblestore.ErrLocked)
	t.Logf("Open of a directory another process holds: %v", err)

	require.NoError(t, stdin.Close()) // the helper closes its store and exits
	require.NoError(t, cmd.Wait())
	s := open(t, dir, pebblestore.Options{})
	var v []byte
	require.NoError(t, s.View(t.Context(), func(tx store.Tx) error {
		var err error
		v, err = tx.Get([]byte("b"), []byte("helper"))
		return err
	}))
	require.Equal(t, "was here", string(v))
}

// TestHoldLockHelper is the second process of TestLockedByAnotherProcess.
func TestHoldLockHelper(t *testing.T) {
	dir := os.Getenv("PEBBLESTORE_HOLD_LOCK")
	if dir == "" {
		t.Skip("only run by TestLockedByAnotherProcess")
	}
	s, err := pebblestore.Open(dir, nil)
	require.NoError(t, err)
	require.NoError(t, s.Update(context.Background(), func(tx store.Tx) error {
		return tx.Put([]byte("b"), []byte("helper"), []byte("was here"))
	}))
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
	require.NoError(t, s.Close())
}

// TestCommitHookFailure: a commit that fails fails its callers and those of
// the batch built on its writes while it synced, and the store then refuses
// updates; Views never saw either batch.
func TestCommitHookFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	s := open(t, dir, pebblestore.Options{})
	ctx := t.Context()
	put := func(k string) func(store.Tx) error {
		return func(tx store.Tx) error { return tx.Put([]byte("b"), []byte(k), []byte("v")) }
	}
	require.NoError(t, s.Update(ctx, put("k0")))
	require.NoError(t, s.Err())
	select {
	case <-s.Failed():
		t.Fatal("Failed is closed before any failure")
	default:
	}

	errDisk := errors.New("disk on fire")
	failing := make(chan struct{})
	release := make(chan struct{})
	s.SetCommitHook(func(seq int64, _ int) error {
		if seq != 2 {
			return nil
		}
		close(failing)
		<-release // keep the commit in flight while the next batch runs
		return errDisk
	})

	first := make(chan error, 1)
	go func() { first <- s.Update(ctx, put("k1")) }()
	<-failing
	second := make(chan error, 1)
	sawK1 := make(chan bool, 1)
	go func() {
		second <- s.Update(ctx, func(tx store.Tx) error {
			_, err := tx.Get([]byte("b"), []byte("k1"))
			sawK1 <- err == nil
			return put("k2")(tx)
		})
	}()
	require.True(t, <-sawK1, "the next batch reads the writes of the one in flight")
	requireKeys(t, s, map[string]bool{"k0": true, "k1": false, "k2": false})
	close(release)
	err := <-first
	require.ErrorIs(t, err, errDisk)
	require.ErrorIs(t, err, pebblestore.ErrFailed)
	err = <-second
	require.ErrorIs(t, err, pebblestore.ErrFailed, "built on a failed commit")

	select {
	case <-s.Failed():
	default:
		t.Fatal("Failed is not closed after a failed commit")
	}
	require.ErrorIs(t, s.Err(), pebblestore.ErrFailed)
	require.ErrorIs(t, s.Err(), errDisk)
	ran := false
	err = s.Update(ctx, func(tx store.Tx) error { ran = true; return put("k3")(tx) })
	require.ErrorIs(t, err, pebblestore.ErrFailed)
	require.ErrorIs(t, err, errDisk)
	require.False(t, ran)
	requireKeys(t, s, map[string]bool{"k0": true, "k1": false, "k2": false, "k3": false})
	require.ErrorIs(t, s.Checkpoint(filepath.Join(t.TempDir(), "ckpt")), pebblestore.ErrFailed)
	_ = s.Close() // the WAL of a failed store may refuse to close cleanly

	// The hook failed a batch whose fsync had in fact succeeded, so k1 may
	// be back; k2 was never applied.
	s = open(t, dir, pebblestore.Options{})
	requireKeys(t, s, map[string]bool{"k0": true, "k2": false, "k3": false})
	require.NoError(t, s.Update(ctx, put("k4")))
}

// requireKeys checks which keys of bucket b a View finds.
func requireKeys(t *testing.T, s store.Store, want map[string]bool) {
	t.Helper()
	require.NoError(t, s.View(t.Context(), func(tx store.Tx) error {
		for k, present := range want {
			_, err := tx.Get([]byte("b"), []byte(k))
			if present {
				assert.NoError(t, err, k)
			} else {
				assert.ErrorIs(t, err, store.ErrNotFound, k)
			}
		}
		return nil
	}))
}

// While a batch awaits its fsync, updates that arrive one after another
// run into the one open batch, each over the writes of those before it,
// and commit together the moment the batch in flight is durable.
func TestOpenBatchGrowsWhileSyncBusy(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), pebblestore.Options{})
	busy := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var commits [][2]int64
	s.SetCommitHook(func(seq int64, updates int) error {
		mu.Lock()
		commits = append(commits, [2]int64{seq, int64(updates)})
		mu.Unlock()
		if seq == 1 {
			close(busy)
			<-release
		}
		return nil
	})
	ctx := t.Context()
	errc := make(chan error, 1)
	go func() {
		errc <- s.Update(ctx, func(tx store.Tx) error { return tx.Put([]byte("b"), []byte("first"), []byte("1")) })
	}()
	<-busy
	// Batch 1 is syncing. Each update below arrives after the one before
	// has run, so the open batch grows by one at a time.
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
	require.NoError(t, <-errc)
	for range n {
		require.NoError(t, <-done)
	}
	mu.Lock()
	assert.Equal(t, [][2]int64{{1, 1}, {2, n}}, commits, "the twenty updates committed in one batch")
	mu.Unlock()
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		v, err := tx.Get([]byte("b"), []byte("count"))
		assert.Equal(t, "20", string(v))
		return err
	}))
}

// TestReopen writes in several commits, deletes some keys, closes (which
// flushes the memtable) and reopens twice.
func TestReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	ctx := t.Context()
	s := open(t, dir, pebblestore.Options{MemTableSize: 1 << 20})
	for i := range 50 {
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
			for j := range 20 {
				if err := tx.Put([]byte("b"), key(i*20+j), make([]byte, 100+j)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for i := 0; i < 1000; i += 2 {
			if err := tx.Delete([]byte("b"), key(i)); err != nil {
				return err
			}
		}
		return nil
	}))
	count := func(s *pebblestore.Store) int {
		n := 0
		require.NoError(t, s.View(ctx, func(tx store.Tx) error {
			return tx.Scan([]byte("b"), store.ScanOptions{}, func(k, _ []byte) (bool, error) {
				if k[len(k)-1]%2 == 0 {
					return false, fmt.Errorf("deleted key %s is back", k)
				}
				n++
				return true, nil
			})
		}))
		return n
	}
	require.Equal(t, 500, count(s))
	require.NoError(t, s.Close())
	// About 110 KB never filled the 1 MiB memtable: an sstable means Close
	// flushed it.
	ssts, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	require.NoError(t, err)
	require.NotEmpty(t, ssts, "Close did not flush the memtable")
	for range 2 {
		s = open(t, dir, pebblestore.Options{MemTableSize: 1 << 20})
		require.Equal(t, 500, count(s))
		require.NoError(t, s.Close())
	}
}

// TestCheckpoint takes a checkpoint while writers run, and reopens it: it
// holds every update acknowledged before the call, each whole.
func TestCheckpoint(t *testing.T) {
	base := t.TempDir()
	s := open(t, filepath.Join(base, "db"), pebblestore.Options{MemTableSize: 256 << 10})
	ctx := t.Context()
	var mu sync.Mutex
	acked := map[string]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("g%d-%05d", g, i)
				err := s.Update(ctx, func(tx store.Tx) error { return putRecord(tx, id) })
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				acked[id] = true
				mu.Unlock()
			}
		})
	}
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 200 })
	mu.Lock()
	before := make([]string, 0, len(acked))
	for id := range acked {
		before = append(before, id)
	}
	mu.Unlock()
	ckpt := filepath.Join(base, "backup")
	require.NoError(t, s.Checkpoint(ckpt))
	close(stop)
	wg.Wait()
	require.Error(t, s.Checkpoint(ckpt), "the directory exists")
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Checkpoint(filepath.Join(base, "after-close")), store.ErrClosed)

	c := open(t, ckpt, pebblestore.Options{})
	present := checkRecords(t, c)
	for _, id := range before {
		require.True(t, present[id], "update %s acknowledged before the checkpoint is missing", id)
	}
	t.Logf("checkpoint holds %d updates; %d were acknowledged before it was called", len(present), len(before))
}

// putRecord writes the three keys of update id and bumps the counter, all
// of which checkRecords expects together.
func putRecord(tx store.Tx, id string) error {
	for _, part := range []string{"a", "b", "c"} {
		if err := tx.Put([]byte("rec"), []byte(id+"/"+part), []byte(id)); err != nil {
			return err
		}
	}
	return bump(tx)
}

// checkRecords checks that every update in s is whole (its three keys) and
// that the counter counts them, and returns the updates present.
func checkRecords(t *testing.T, s store.Store) map[string]bool {
	t.Helper()
	parts := map[string]int{}
	counter := 0
	require.NoError(t, s.View(t.Context(), func(tx store.Tx) error {
		if err := tx.Scan([]byte("rec"), store.ScanOptions{}, func(k, v []byte) (bool, error) {
			parts[string(v)]++
			return true, nil
		}); err != nil {
			return err
		}
		v, err := tx.Get([]byte("b"), []byte("counter"))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		counter, err = strconv.Atoi(string(v))
		return err
	}))
	present := map[string]bool{}
	for id, n := range parts {
		require.Equal(t, 3, n, "update %s is half there", id)
		present[id] = true
	}
	require.Equal(t, len(present), counter, "the counter disagrees with the updates present")
	return present
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestHotKeyScan overwrites one key in many commits, so that the memtable
// holds hundreds of versions of it, and scans across it forward (where the
// store skips versions with NextPrefix) and in reverse, from a View that
// started midway (an older snapshot) and from a new one.
func TestHotKeyScan(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), pebblestore.Options{NoSync: true})
	ctx := t.Context()
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for _, k := range []string{"a", "b", "c"} {
			if err := tx.Put([]byte("b"), []byte(k), []byte("0")); err != nil {
				return err
			}
		}
		return nil
	}))
	scan := func(tx store.Tx, reverse bool) string {
		var out []byte
		assert.NoError(t, tx.Scan([]byte("b"), store.ScanOptions{Reverse: reverse}, func(k, v []byte) (bool, error) {
			out = fmt.Appendf(out, "%s=%s ", k, v)
			return true, nil
		}))
		return string(out)
	}
	const n = 600
	put := func(i int) {
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put([]byte("b"), []byte("b"), []byte(strconv.Itoa(i))) }))
	}
	for i := 1; i <= n/2; i++ {
		put(i)
	}
	viewing := make(chan struct{})
	release := make(chan struct{})
	viewDone := make(chan struct{})
	go func() {
		defer close(viewDone)
		assert.NoError(t, s.View(ctx, func(tx store.Tx) error {
			close(viewing)
			<-release // the writes below go on; this snapshot stays at 300
			assert.Equal(t, "a=0 b=300 c=0 ", scan(tx, false))
			assert.Equal(t, "c=0 b=300 a=0 ", scan(tx, true))
			return nil
		}))
	}()
	<-viewing
	for i := n/2 + 1; i <= n; i++ {
		put(i)
	}
	close(release)
	<-viewDone
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		assert.Equal(t, "a=0 b=600 c=0 ", scan(tx, false))
		assert.Equal(t, "c=0 b=600 a=0 ", scan(tx, true))
		return nil
	}))
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		assert.Equal(t, "a=0 b=600 c=0 ", scan(tx, false))
		return nil
	}))
}

// Many writers, each update reading a counter, scanning the items written
// so far and adding one: every read, a Get served from the remembered
// values or from pebble, or a Scan, sees exactly the updates before it,
// while the batch before is still being applied and while the remembered
// values' generations turn every few updates.
func TestReadsSeeEveryEarlierUpdate(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), pebblestore.Options{})
	s.SetLatestBytes(64)
	ctx := t.Context()
	b := []byte("b")
	const writers, each = 8, 150
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				err := s.Update(ctx, func(tx store.Tx) error {
					n := 0
					v, err := tx.Get(b, []byte("counter"))
					switch {
					case err == nil:
						n, _ = strconv.Atoi(string(v))
					case !errors.Is(err, store.ErrNotFound):
						return err
					}
					items := 0
					err = tx.Scan(b, store.ScanOptions{Prefix: []byte("item/")}, func(_, _ []byte) (bool, error) {
						items++
						return true, nil
					})
					if err != nil {
						return err
					}
					if items != n {
						return fmt.Errorf("writer %d: counter %d, %d items", w, n, items)
					}
					// Absent keys, each remembered, turn the generations;
					// then a key the last update wrote, maybe in the batch
					// the applier is still applying.
					for j := range 4 {
						if _, err := tx.Get(b, fmt.Appendf(nil, "absent/%d/%d/%d", w, i, j)); !errors.Is(err, store.ErrNotFound) {
							return fmt.Errorf("absent key: %v", err)
						}
					}
					if mv, err := tx.Get(b, []byte("mirror")); n > 0 && (err != nil || string(mv) != strconv.Itoa(n-1)) {
						return fmt.Errorf("writer %d: counter %d, mirror %q (%v)", w, n, mv, err)
					}
					// A key of its own, read back at once and by the next
					// update of this writer.
					own := fmt.Appendf(nil, "own/%d", w)
					if v, err := tx.Get(b, own); err == nil && string(v) != strconv.Itoa(i-1) {
						return fmt.Errorf("writer %d, update %d: own key %q", w, i, v)
					}
					if i%7 == 3 {
						return errSkip // writes nothing
					}
					if err := tx.Put(b, own, []byte(strconv.Itoa(i))); err != nil {
						return err
					}
					if err := tx.Put(b, fmt.Appendf(nil, "item/%06d", n), []byte("x")); err != nil {
						return err
					}
					if err := tx.Put(b, []byte("mirror"), []byte(strconv.Itoa(n))); err != nil {
						return err
					}
					return tx.Put(b, []byte("counter"), []byte(strconv.Itoa(n+1)))
				})
				if err != nil && !errors.Is(err, errSkip) {
					errs <- err
					return
				}
				if errors.Is(err, errSkip) {
					// The next update expects the last value written.
					err = s.Update(ctx, func(tx store.Tx) error {
						return tx.Put(b, fmt.Appendf(nil, "own/%d", w), []byte(strconv.Itoa(i)))
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		v, err := tx.Get(b, []byte("counter"))
		require.NoError(t, err)
		n, _ := strconv.Atoi(string(v))
		wrote := 0
		for i := range each {
			if i%7 != 3 {
				wrote++
			}
		}
		require.Equal(t, writers*wrote, n, "every update that wrote counted once")
		return nil
	}))
}

var errSkip = errors.New("skip")

// Views share the Gets of the snapshot they read: each still sees its own
// snapshot, whatever was committed and read since, values handed out are
// copies, and a key found absent is found once it is written.
func TestViewsShareTheirSnapshotsGets(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"), pebblestore.Options{})
	ctx := t.Context()
	b := []byte("b")
	put := func(k, v string) {
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b, []byte(k), []byte(v)) }))
	}
	get := func(tx store.Tx, k string) string {
		v, err := tx.Get(b, []byte(k))
		if errors.Is(err, store.ErrNotFound) {
			return "<absent>"
		}
		require.NoError(t, err)
		return string(v)
	}
	put("k", "1")
	require.NoError(t, s.View(ctx, func(old store.Tx) error {
		require.Equal(t, "1", get(old, "k"))
		require.Equal(t, "<absent>", get(old, "m"))
		v, err := old.Get(b, []byte("k"))
		require.NoError(t, err)
		v[0] = 'x' // the caller's copy
		require.Equal(t, "1", get(old, "k"))

		put("k", "2")
		put("m", "3")
		require.NoError(t, s.View(ctx, func(now store.Tx) error {
			require.Equal(t, "2", get(now, "k"))
			require.Equal(t, "3", get(now, "m"))
			return nil
		}))
		require.Equal(t, "1", get(old, "k"), "the older snapshot")
		require.Equal(t, "<absent>", get(old, "m"), "the older snapshot")
		return nil
	}))
	require.NoError(t, s.View(ctx, func(tx store.Tx) error {
		require.Equal(t, "2", get(tx, "k"))
		require.Equal(t, "3", get(tx, "m"))
		return nil
	}))
}
