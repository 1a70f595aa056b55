// Package storetest is the conformance suite of the storage port. Every
// adapter's tests call Run with a Harness that opens the adapter, the
// in-memory one included, so that all adapters agree on what the port
// promises: rollback leaves no trace, readers never see uncommitted writes,
// ordered and reverse scans with bounds, serializable concurrent writers,
// ctx and Close behaviour, durability across reopen when the adapter is
// persistent, and the lazy commit (store.Lazy) or its fallback to Update.
//
// It also provides FaultStore, a wrapper that fails a chosen operation or
// commit, for the tests of code above the port.
//
// Like testing/fstest, this is a test-support package: it is imported only by
// tests, and it imports no adapter.
//
// A note for every test that uses a store: the fn passed to Update may run on
// another goroutine (boltstore's committer, bbolt's batch), so it must report
// failures with assert (t.Errorf) or by returning an error, never with
// require or t.FailNow, whose runtime.Goexit would end that goroutine and
// leave the store waiting forever.
package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

// Features says what an adapter can do beyond the port's baseline.
type Features struct {
	Persistent bool // data survives Close and reopen of the same location
}

// Harness opens stores for the suite.
type Harness struct {
	// Open opens the store at dir (a fresh t.TempDir() per subtest unless
	// reopening the same dir). Non-persistent adapters ignore dir.
	Open func(t testing.TB, dir string) store.Store
}

// Run runs the conformance suite against the stores h opens. Each subtest
// opens its own store, and the suite closes every store it opens (a Close
// returning store.ErrClosed is accepted, so a harness may close too).
func Run(t *testing.T, f Features, h Harness) {
	t.Helper()
	if h.Open == nil {
		t.Fatal("storetest: Harness.Open is nil")
	}
	s := &suite{f: f, h: h}
	t.Run("Basic", s.testBasic)
	t.Run("InvalidPut", s.testInvalidPut)
	t.Run("EmptyValue", s.testEmptyValue)
	t.Run("ValuesAreCopies", s.testValuesAreCopies)
	t.Run("ReadYourWrites", s.testReadYourWrites)
	t.Run("Rollback", s.testRollback)
	t.Run("Panic", s.testPanic)
	t.Run("ViewReadOnly", s.testViewReadOnly)
	t.Run("NoDirtyReads", s.testNoDirtyReads)
	t.Run("ConsistentSnapshot", s.testConsistentSnapshot)
	t.Run("Scan", s.testScan)
	t.Run("ScanInUpdate", s.testScanInUpdate)
	t.Run("ScanMissingBucket", s.testScanMissingBucket)
	t.Run("ScanStopAndError", s.testScanStopAndError)
	t.Run("ConcurrentCounter", s.testConcurrentCounter)
	t.Run("ConcurrentDistinctKeys", s.testConcurrentDistinctKeys)
	t.Run("ConcurrentFailures", s.testConcurrentFailures)
	t.Run("Context", s.testContext)
	t.Run("Close", s.testClose)
	t.Run("Persistence", s.testPersistence)
	t.Run("Lazy", s.testLazy)
	t.Run("Prefetch", s.testPrefetch)
	t.Run("Defer", s.testDefer)
	t.Run("FaultStore", s.testFaultStore)
	t.Run("Property", s.testProperty)
}

type suite struct {
	f Features
	h Harness
}

// open opens a store in a fresh directory.
func (s *suite) open(t testing.TB) store.Store {
	t.Helper()
	return s.openAt(t, t.TempDir())
}

// openAt opens the store at dir and closes it when t ends.
func (s *suite) openAt(t testing.TB, dir string) store.Store {
	t.Helper()
	st := s.h.Open(t, dir)
	require.NotNil(t, st, "Harness.Open returned nil")
	t.Cleanup(func() {
		if err := st.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("storetest: closing the store: %v", err)
		}
	})
	return st
}

// kv is a key and value, as strings so that failures print readably.
type kv struct{ K, V string }

func (p kv) String() string { return fmt.Sprintf("%q=%q", p.K, p.V) }

var errRollback = errors.New("storetest: rollback")

func b(s string) []byte { return []byte(s) }

// put commits one key.
func put(t testing.TB, st store.Store, bucket, key, value string) {
	t.Helper()
	require.NoError(t, st.Update(t.Context(), func(tx store.Tx) error {
		return tx.Put(b(bucket), b(key), b(value))
	}))
}

// putAll commits every pair in one Update.
func putAll(t testing.TB, st store.Store, bucket string, pairs []kv) {
	t.Helper()
	require.NoError(t, st.Update(t.Context(), func(tx store.Tx) error {
		for _, p := range pairs {
			if err := tx.Put(b(bucket), b(p.K), b(p.V)); err != nil {
				return err
			}
		}
		return nil
	}))
}

// get reads one committed key.
func get(t testing.TB, st store.Store, bucket, key string) (string, error) {
	t.Helper()
	var v []byte
	var gerr error
	require.NoError(t, st.View(t.Context(), func(tx store.Tx) error {
		v, gerr = tx.Get(b(bucket), b(key))
		return nil
	}))
	return string(v), gerr
}

// requireValue checks a committed key's value.
func requireValue(t testing.TB, st store.Store, bucket, key, want string) {
	t.Helper()
	v, err := get(t, st, bucket, key)
	require.NoError(t, err, "get %q/%q", bucket, key)
	require.Equal(t, want, v, "value of %q/%q", bucket, key)
}

// requireMissing checks that a committed key does not exist.
func requireMissing(t testing.TB, st store.Store, bucket, key string) {
	t.Helper()
	_, err := get(t, st, bucket, key)
	require.ErrorIs(t, err, store.ErrNotFound, "get %q/%q", bucket, key)
}

// scanTx collects a scan inside tx.
func scanTx(tx store.Tx, bucket string, opt store.ScanOptions) ([]kv, error) {
	out := []kv{}
	err := tx.Scan(b(bucket), opt, func(k, v []byte) (bool, error) {
		out = append(out, kv{string(k), string(v)})
		return true, nil
	})
	return out, err
}

// dump returns the committed contents of bucket in key order.
func dump(t testing.TB, st store.Store, bucket string) []kv {
	t.Helper()
	var out []kv
	require.NoError(t, st.View(t.Context(), func(tx store.Tx) error {
		var err error
		out, err = scanTx(tx, bucket, store.ScanOptions{})
		return err
	}))
	return out
}

// model is the reference a store's contents are compared with.
type model map[string]string

func (m model) clone() model {
	c := make(model, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// scan is the reference scan, written without the store package's helpers.
func (m model) scan(opt store.ScanOptions) []kv {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := []kv{}
	for _, k := range keys {
		if opt.Start != nil && k < string(opt.Start) {
			continue
		}
		if opt.End != nil && k >= string(opt.End) {
			continue
		}
		if opt.Prefix != nil && !strings.HasPrefix(k, string(opt.Prefix)) {
			continue
		}
		out = append(out, kv{k, m[k]})
	}
	if opt.Reverse {
		slices.Reverse(out)
	}
	return out
}

func (m model) pairs() []kv { return m.scan(store.ScanOptions{}) }

// describe prints scan options for failure messages and subtest names.
func describe(opt store.ScanOptions) string {
	var parts []string
	q := func(name string, v []byte) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s=%q", name, v))
		}
	}
	q("start", opt.Start)
	q("end", opt.End)
	q("prefix", opt.Prefix)
	if opt.Reverse {
		parts = append(parts, "reverse")
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, ",")
}

func equalPairs(x, y []kv) bool {
	return slices.Equal(x, y)
}
