package pgstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

var modes = []struct {
	name string
	opts pgstore.Options
}{
	{"GroupCommit", pgstore.Options{}},
	{"NoGroupCommit", pgstore.Options{NoGroupCommit: true}},
}

// runPolicies are the ways the committer may run a round of functions;
// "auto" picks one of the others per round.
var runPolicies = []string{"auto", "in-order", "concurrent"}

// harness opens a pgstore with opts in a schema of its own per directory
// the suite passes: reopening the same directory reopens the same schema.
// Each schema is dropped when the test that first used it ends.
func harness(opts pgstore.Options, runs string) storetest.Harness {
	var mu sync.Mutex
	schemas := map[string]string{} // dir -> schema
	return storetest.Harness{
		Open: func(t testing.TB, dir string) store.Store {
			t.Helper()
			mu.Lock()
			schema, ok := schemas[dir]
			if !ok {
				_, schema = teststores.NewPGSchema(t)
				schemas[dir] = schema
			}
			mu.Unlock()
			s := open(t, schema, opts)
			s.SetRuns(runs)
			return s
		},
	}
}

// open opens a store in schema (migrating it) with opts, closed when t
// ends; the caller registered the schema's drop before.
func open(t testing.TB, schema string, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	opts.Schema = schema
	s, err := pgstore.Open(t.Context(), teststores.PGURL(t), &opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// fresh opens a store with opts in a new schema.
func fresh(t testing.TB, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	_, schema := teststores.NewPGSchema(t)
	return open(t, schema, opts)
}

// adminConn is a connection of its own to the test server.
func adminConn(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), teststores.PGURL(t))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func TestConformance(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			teststores.PGURL(t)
			storetest.Run(t, storetest.Features{Persistent: true}, harness(m.opts, "auto"))
		})
	}
	// The committer's other run policies, forced.
	for _, runs := range runPolicies[1:] {
		t.Run("GroupCommit/"+runs, func(t *testing.T) {
			teststores.PGURL(t)
			storetest.Run(t, storetest.Features{Persistent: true}, harness(pgstore.Options{}, runs))
		})
	}
}

// TestBatchIsSerial runs concurrent updates that read what the others
// write, by Get and by Scan (forward and reverse, with bounds), and
// delete: whatever way the committer runs them, the outcome must be that
// of some serial order. Each update reads the counter n and the log,
// checks that the log has exactly n entries, appends entry n recording
// what it saw, deletes an older entry's marker, and bumps n.
func TestBatchIsSerial(t *testing.T) {
	for _, runs := range runPolicies {
		t.Run(runs, func(t *testing.T) {
			s := fresh(t, pgstore.Options{})
			s.SetRuns(runs)
			ctx := t.Context()
			const goroutines, each = 16, 12
			var wg sync.WaitGroup
			start := make(chan struct{})
			for g := range goroutines {
				wg.Go(func() {
					<-start
					for i := range each {
						err := s.Update(ctx, func(tx store.Tx) error {
							n := 0
							v, err := tx.Get(b("c"), b("n"))
							switch {
							case errors.Is(err, store.ErrNotFound):
							case err != nil:
								return err
							default:
								n, _ = strconv.Atoi(string(v))
							}
							entries := 0
							if err := tx.Scan(b("log"), store.ScanOptions{Prefix: b("e/")}, func(_, _ []byte) (bool, error) {
								entries++
								return true, nil
							}); err != nil {
								return err
							}
							var last []byte
							if err := tx.Scan(b("log"), store.ScanOptions{Prefix: b("e/"), Reverse: true}, func(k, _ []byte) (bool, error) {
								last = k
								return false, nil
							}); err != nil {
								return err
							}
							if entries != n {
								return fmt.Errorf("counter %d but %d log entries", n, entries)
							}
							if n > 0 && string(last) != fmt.Sprintf("e/%04d", n-1) {
								return fmt.Errorf("counter %d but last entry %q", n, last)
							}
							if err := tx.Put(b("log"), fmt.Appendf(nil, "e/%04d", n), fmt.Appendf(nil, "%d/%d", g, i)); err != nil {
								return err
							}
							if err := tx.Put(b("log"), fmt.Appendf(nil, "m/%04d", n), b("marker")); err != nil {
								return err
							}
							if n > 0 {
								if err := tx.Delete(b("log"), fmt.Appendf(nil, "m/%04d", n-1)); err != nil {
									return err
								}
							}
							return tx.Put(b("c"), b("n"), b(strconv.Itoa(n+1)))
						})
						assert.NoError(t, err)
					}
				})
			}
			close(start)
			wg.Wait()
			v, err := getValue(t, s, "c", "n")
			require.NoError(t, err)
			require.Equal(t, strconv.Itoa(goroutines*each), v)
			require.Len(t, keys(t, s, "log", store.ScanOptions{Prefix: b("e/")}), goroutines*each)
			require.Equal(t, []string{fmt.Sprintf("m/%04d", goroutines*each-1)}, keys(t, s, "log", store.ScanOptions{Prefix: b("m/")}))
			st := s.Stats()
			t.Logf("%+v", st)
			if runs == "concurrent" {
				require.Positive(t, st.Reran, "no function was run again after an earlier one wrote what it read")
			}
		})
	}
}

// TestBatchScanConflicts runs concurrent updates whose only shared read
// is a scan: each counts the entries of a range (forward or reverse, with
// bounds), then adds an entry of its own in that range recording the
// count. Serially every count is distinct, 0 to n-1.
func TestBatchScanConflicts(t *testing.T) {
	for _, runs := range runPolicies {
		t.Run(runs, func(t *testing.T) {
			s := fresh(t, pgstore.Options{})
			s.SetRuns(runs)
			ctx := t.Context()
			// Keys outside the range, which do not count.
			require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
				for _, k := range []string{"d", "e", "f/", "g"} {
					if err := tx.Put(b("log"), b(k), b("-")); err != nil {
						return err
					}
				}
				return nil
			}))
			const n = 96
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					err := s.Update(ctx, func(tx store.Tx) error {
						seen := 0
						opt := store.ScanOptions{Start: b("e/"), End: b("f"), Reverse: i%2 == 1}
						if err := tx.Scan(b("log"), opt, func(_, _ []byte) (bool, error) {
							seen++
							return true, nil
						}); err != nil {
							return err
						}
						return tx.Put(b("log"), fmt.Appendf(nil, "e/%03d", i), b(strconv.Itoa(seen)))
					})
					assert.NoError(t, err)
				})
			}
			close(start)
			wg.Wait()
			counts := map[string]bool{}
			require.NoError(t, s.View(ctx, func(tx store.Tx) error {
				return tx.Scan(b("log"), store.ScanOptions{Prefix: b("e/")}, func(k, v []byte) (bool, error) {
					assert.False(t, counts[string(v)], "two updates saw %s entries", v)
					counts[string(v)] = true
					return true, nil
				})
			}))
			require.Len(t, counts, n)
			t.Logf("%+v", s.Stats())
		})
	}
}

// TestBatchUniqueReads runs concurrent updates that each read keys no
// other reads, besides a shared counter: the keys a function wrote in the
// batch are seen by the later ones, and the ones it only read are not
// confused with them.
func TestBatchUniqueReads(t *testing.T) {
	for _, runs := range runPolicies {
		t.Run(runs, func(t *testing.T) {
			s := fresh(t, pgstore.Options{})
			s.SetRuns(runs)
			ctx := t.Context()
			const n = 200
			// Every other id exists already.
			require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
				for i := 0; i < n; i += 2 {
					if err := tx.Put(b("ids"), fmt.Appendf(nil, "%04d", i), b("old")); err != nil {
						return err
					}
				}
				return nil
			}))
			var wg sync.WaitGroup
			var created atomic.Int64
			for i := range n {
				wg.Go(func() {
					err := s.Update(ctx, func(tx store.Tx) error {
						id := fmt.Appendf(nil, "%04d", i)
						_, err := tx.Get(b("ids"), id)
						switch {
						case err == nil:
							return nil // exists: nothing to do
						case !errors.Is(err, store.ErrNotFound):
							return err
						}
						if err := tx.Put(b("ids"), id, b("new")); err != nil {
							return err
						}
						return bump(tx, "c", "created")
					})
					if assert.NoError(t, err) {
						created.Add(1)
					}
				})
			}
			wg.Wait()
			v, err := getValue(t, s, "c", "created")
			require.NoError(t, err)
			require.Equal(t, strconv.Itoa(n/2), v)
			require.Len(t, keys(t, s, "ids", store.ScanOptions{}), n)
			t.Logf("%+v", s.Stats())
		})
	}
}

func b(s string) []byte { return []byte(s) }

// bump increments the decimal counter under bucket/key (missing is 0).
func bump(tx store.Tx, bucket, key string) error {
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

func getValue(t testing.TB, s store.Store, bucket, key string) (string, error) {
	t.Helper()
	var v []byte
	var gerr error
	require.NoError(t, s.View(t.Context(), func(tx store.Tx) error {
		v, gerr = tx.Get(b(bucket), b(key))
		return nil
	}))
	return string(v), gerr
}

func keys(t testing.TB, s store.Store, bucket string, opt store.ScanOptions) []string {
	t.Helper()
	out := []string{}
	require.NoError(t, s.View(t.Context(), func(tx store.Tx) error {
		return tx.Scan(b(bucket), opt, func(k, _ []byte) (bool, error) {
			out = append(out, string(k))
			return true, nil
		})
	}))
	return out
}

// TestByteOrder checks that the database orders keys as the port does,
// bytewise with a shorter key first, 0x00 and 0xff included, over more
// keys than one scan page.
func TestByteOrder(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	ctx := t.Context()
	set := map[string]bool{}
	for _, k := range []string{"", "\x00", "\x01", "\x7f", "\x80", "\xfe", "\xff"} {
		for _, l := range []string{"", "\x00", "\xff", "a", "\xff\xff", "\x00\x00"} {
			if k+l != "" {
				set["k"+k+l] = true
			}
		}
	}
	for i := range 100 { // more than a page
		set[fmt.Sprintf("p%03d", i)] = true
	}
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for k := range set {
			if err := tx.Put(b("b"), b(k), b("v")); err != nil {
				return err
			}
		}
		return nil
	}))
	// Go compares strings bytewise, shorter first: the port's order.
	sorted := slices.Sorted(maps.Keys(set))
	require.Equal(t, sorted, keys(t, s, "b", store.ScanOptions{}))
	rev := keys(t, s, "b", store.ScanOptions{Reverse: true})
	slices.Reverse(rev)
	require.Equal(t, sorted, rev)
	// Bounds and prefixes with 0x00 and 0xff bytes, both ways.
	for _, opt := range []store.ScanOptions{
		{Start: b("k\x00"), End: b("k\xff")},
		{Start: b("k\x00\x00"), End: b("k\xff\x00")},
		{Prefix: b("k\xff")},
		{Prefix: b("k\xff\xff")},
		{Prefix: b("k\x00")},
		{Prefix: b("k\x00\x00")},
		{Prefix: b("k"), Start: b("k\x7f"), End: b("k\x80\x00")},
	} {
		var want []string
		for _, k := range sorted {
			if opt.InRange([]byte(k)) {
				want = append(want, k)
			}
		}
		require.NotEmpty(t, want)
		require.Equal(t, want, keys(t, s, "b", opt), "%+v", opt)
		opt.Reverse = true
		slices.Reverse(want)
		require.Equal(t, want, keys(t, s, "b", opt), "%+v", opt)
	}
}

// TestScanPages checks scans longer than a page, with Gets inside the
// scan's callback (a connection runs one statement at a time), stopping
// in the middle of later pages.
func TestScanPages(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	ctx := t.Context()
	const n = 3000
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error {
		for i := range n {
			if err := tx.Put(b("b"), fmt.Appendf(nil, "%05d", i), fmt.Appendf(nil, "v%d", i)); err != nil {
				return err
			}
		}
		return nil
	}))
	for _, reverse := range []bool{false, true} {
		for _, stop := range []int{1, 31, 32, 33, 100, 1500, n} {
			var seen int
			err := s.View(ctx, func(tx store.Tx) error {
				return tx.Scan(b("b"), store.ScanOptions{Reverse: reverse}, func(k, v []byte) (bool, error) {
					want := seen
					if reverse {
						want = n - 1 - seen
					}
					if string(k) != fmt.Sprintf("%05d", want) {
						return false, fmt.Errorf("key %d is %q", seen, k)
					}
					got, err := tx.Get(b("b"), k) // a read inside the scan
					if err != nil || !bytes.Equal(got, v) {
						return false, fmt.Errorf("get %q = %q, %v; scan gave %q", k, got, err, v)
					}
					seen++
					return seen < stop, nil
				})
			})
			require.NoError(t, err, "reverse=%v stop=%d", reverse, stop)
			require.Equal(t, stop, seen, "reverse=%v", reverse)
		}
	}
}

// TestTwoStoresCounter runs two stores over one schema, with two pools
// as two instances would have, incrementing one counter concurrently: no
// update is lost, whatever their commit modes.
func TestTwoStoresCounter(t *testing.T) {
	for _, m := range []struct {
		name string
		a, b pgstore.Options
	}{
		{"GroupCommit", pgstore.Options{}, pgstore.Options{}},
		{"NoGroupCommit", pgstore.Options{NoGroupCommit: true}, pgstore.Options{NoGroupCommit: true}},
		{"Mixed", pgstore.Options{}, pgstore.Options{NoGroupCommit: true}},
	} {
		t.Run(m.name, func(t *testing.T) {
			_, schema := teststores.NewPGSchema(t)
			stores := []*pgstore.Store{open(t, schema, m.a), open(t, schema, m.b)}
			ctx := t.Context()
			const perStore, each = 6, 20
			var ok atomic.Int64
			var wg sync.WaitGroup
			start := make(chan struct{})
			for _, s := range stores {
				for g := range perStore {
					wg.Go(func() {
						<-start
						for i := range each {
							err := s.Update(ctx, func(tx store.Tx) error {
								if err := bump(tx, "b", "counter"); err != nil {
									return err
								}
								// Each update also writes a key of its own.
								return tx.Put(b("own"), fmt.Appendf(nil, "%p-%02d-%02d", s, g, i), b("x"))
							})
							if assert.NoError(t, err) {
								ok.Add(1)
							}
						}
					})
				}
			}
			close(start)
			wg.Wait()
			v, err := getValue(t, stores[0], "b", "counter")
			require.NoError(t, err)
			require.Equal(t, strconv.FormatInt(ok.Load(), 10), v, "lost updates")
			require.EqualValues(t, 2*perStore*each, ok.Load())
			require.Len(t, keys(t, stores[1], "own", store.ScanOptions{}), 2*perStore*each)
			var retries int64
			for _, s := range stores {
				st := s.Stats()
				retries += st.Retries
				t.Logf("%+v", st)
			}
			t.Logf("retries after serialization failures: %d", retries)
		})
	}
}

// TestSerializationRetry makes a transaction fail to serialize on
// purpose: fn reads a key, another store changes it and commits, then fn
// writes it. The commit fails, fn runs again and sees the new value.
func TestSerializationRetry(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			_, schema := teststores.NewPGSchema(t)
			s := open(t, schema, m.opts)
			other := open(t, schema, pgstore.Options{NoGroupCommit: true})
			ctx := t.Context()
			require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("n"), b("10")) }))

			var runs atomic.Int32
			read := make(chan struct{})
			proceed := make(chan struct{})
			var seen []string
			err := func() error {
				done := make(chan error, 1)
				go func() {
					done <- s.Update(ctx, func(tx store.Tx) error {
						run := runs.Add(1)
						v, err := tx.Get(b("b"), b("n"))
						if err != nil {
							return err
						}
						seen = append(seen, string(v))
						if run == 1 {
							close(read)
							<-proceed
						}
						n, _ := strconv.Atoi(string(v))
						return tx.Put(b("b"), b("n"), b(strconv.Itoa(n*2)))
					})
				}()
				<-read
				// Change the key fn read, and commit, while fn waits.
				require.NoError(t, other.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("n"), b("11")) }))
				close(proceed)
				return <-done
			}()
			require.NoError(t, err)
			require.EqualValues(t, 2, runs.Load(), "fn ran once: the serialization failure was not retried")
			require.Equal(t, []string{"10", "11"}, seen)
			v, err := getValue(t, s, "b", "n")
			require.NoError(t, err)
			require.Equal(t, "22", v, "the retry must see the other store's write")
			st := s.Stats()
			require.GreaterOrEqual(t, st.Retries, int64(1))
			if m.opts.NoGroupCommit {
				require.Zero(t, st.Requeued)
			} else {
				require.EqualValues(t, 1, st.Requeued, "the shared transaction failed: fn ran again in the next batch")
			}
		})
	}
}

// TestConflictGivesUp checks that an update that never serializes ends
// with store.ErrConflict after MaxRetries attempts. Every run, another
// transaction reads the key fn writes and writes the key fn read, and
// commits first (write skew): locking what the failed run wrote does
// not prevent that.
func TestConflictGivesUp(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			_, schema := teststores.NewPGSchema(t)
			opts := m.opts
			opts.MaxRetries = 2
			opts.RetryFor = time.Nanosecond // the count alone bounds the retries
			s := open(t, schema, opts)
			other := open(t, schema, pgstore.Options{NoGroupCommit: true})
			ctx := t.Context()
			var runs atomic.Int32
			err := s.Update(ctx, func(tx store.Tx) error {
				runs.Add(1)
				if _, err := tx.Get(b("b"), b("k")); err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
				if err := other.Update(ctx, func(tx store.Tx) error {
					if _, err := tx.Get(b("b"), b("j")); err != nil && !errors.Is(err, store.ErrNotFound) {
						return err
					}
					return tx.Put(b("b"), b("k"), b(fmt.Sprint(runs.Load())))
				}); err != nil {
					return err
				}
				return tx.Put(b("b"), b("j"), b("mine"))
			})
			require.ErrorIs(t, err, store.ErrConflict)
			var pe interface{ SQLState() string }
			require.ErrorAs(t, err, &pe, "the database's error is wrapped")
			require.Equal(t, "40001", pe.SQLState())
			require.EqualValues(t, 3, runs.Load(), "MaxRetries 2: three attempts")
			v, err := getValue(t, s, "b", "k")
			require.NoError(t, err)
			require.Equal(t, "3", v)
			require.EqualValues(t, 1, s.Stats().Conflicts)
		})
	}
}

// skewUpdate runs an Update on s whose function fails to serialize on
// its first skews runs: each of them, a transaction of other reads the key
// fn writes and writes the key fn read, and commits first (write skew).
// cancel, when set, is called at the end of the run numbered cancelAt.
func skewUpdate(ctx context.Context, s, other *pgstore.Store, skews int32, runs *atomic.Int32, cancelAt int32, cancel func()) error {
	return s.Update(ctx, func(tx store.Tx) error {
		n := runs.Add(1)
		if _, err := tx.Get(b("b"), b("k")); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if n <= skews {
			if err := other.Update(ctx, func(tx store.Tx) error {
				if _, err := tx.Get(b("b"), b("j")); err != nil && !errors.Is(err, store.ErrNotFound) {
					return err
				}
				return tx.Put(b("b"), b("k"), b(fmt.Sprint(n)))
			}); err != nil {
				return err
			}
		}
		if n == cancelAt {
			cancel()
		}
		return tx.Put(b("b"), b("j"), b("mine"))
	})
}

// TestRetryBudgetIsTime checks that the retry budget is time, not a count
// of attempts (issue #33: "gave up after 6 attempts" under load): with
// MaxRetries 5, an update that fails to serialize 9 times still commits
// on its tenth run, well within RetryFor.
func TestRetryBudgetIsTime(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			_, schema := teststores.NewPGSchema(t)
			opts := m.opts
			opts.MaxRetries = 5
			s := open(t, schema, opts)
			other := open(t, schema, pgstore.Options{NoGroupCommit: true})
			var runs atomic.Int32
			err := skewUpdate(t.Context(), s, other, 9, &runs, 0, nil)
			require.NoError(t, err)
			require.EqualValues(t, 10, runs.Load(), "nine failed runs, then one that commits")
			v, err := getValue(t, s, "b", "j")
			require.NoError(t, err)
			require.Equal(t, "mine", v)
			require.Zero(t, s.Stats().Conflicts)
			require.GreaterOrEqual(t, s.Stats().Retries, int64(9))
		})
	}
}

// TestRetryStopsWithContext checks that retries stop when the caller's
// context ends, however much of the budget is left: the update is not run
// again and Update returns the context's error.
func TestRetryStopsWithContext(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			_, schema := teststores.NewPGSchema(t)
			opts := m.opts
			opts.MaxRetries = 1
			opts.RetryFor = time.Hour
			s := open(t, schema, opts)
			other := open(t, schema, pgstore.Options{NoGroupCommit: true})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var runs atomic.Int32
			err := skewUpdate(ctx, s, other, 1<<30, &runs, 4, cancel)
			require.ErrorIs(t, err, context.Canceled)
			require.NotErrorIs(t, err, store.ErrConflict)
			require.EqualValues(t, 4, runs.Load(), "no run after the context ended")
			_, err = getValue(t, s, "b", "j")
			require.ErrorIs(t, err, store.ErrNotFound, "nothing of the update committed")
		})
	}
}

// findBackend returns the pid of the one backend idle in a transaction
// whose last statement named schema.
func findBackend(t *testing.T, admin *pgx.Conn, schema string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows, err := admin.Query(t.Context(), `SELECT pid FROM pg_stat_activity
WHERE state = 'idle in transaction' AND strpos(query, $1) > 0 AND pid <> pg_backend_pid()`, schema)
		require.NoError(t, err)
		pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
		require.NoError(t, err)
		if len(pids) == 1 {
			return pids[0]
		}
		require.Less(t, len(pids), 2, "more than one backend in a transaction")
		require.True(t, time.Now().Before(deadline), "no backend idle in a transaction on %s", schema)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConnectionKilled terminates the backend of an update while its fn
// is blocked: nothing of it is written, the caller gets an error, and the
// same update succeeds when run again.
func TestConnectionKilled(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			_, schema := teststores.NewPGSchema(t)
			s := open(t, schema, m.opts)
			admin := adminConn(t)
			ctx := t.Context()
			require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("old")) }))

			var kill atomic.Bool
			kill.Store(true)
			read := make(chan struct{}, 1)
			proceed := make(chan struct{}, 1)
			update := func(tx store.Tx) error {
				if err := tx.Put(b("b"), b("first"), b("1")); err != nil {
					return err
				}
				v, err := tx.Get(b("b"), b("k")) // the transaction has begun
				if err != nil {
					return err
				}
				if kill.Load() {
					read <- struct{}{}
					<-proceed
				}
				if err := tx.Put(b("b"), b("k"), append(v, "+new"...)); err != nil {
					return err
				}
				_, err = tx.Get(b("b"), b("other")) // through the dead connection
				if errors.Is(err, store.ErrNotFound) {
					err = nil
				}
				return err
			}
			done := make(chan error, 1)
			go func() { done <- s.Update(ctx, update) }()
			<-read
			pid := findBackend(t, admin, schema)
			var killed bool
			require.NoError(t, admin.QueryRow(ctx, "SELECT pg_terminate_backend($1)", pid).Scan(&killed))
			require.True(t, killed)
			proceed <- struct{}{}
			err := <-done
			require.Error(t, err, "an update whose connection was killed succeeded")
			require.NotErrorIs(t, err, pgstore.ErrCommitUnknown, "the commit was never sent")
			t.Logf("the caller got: %v", err)

			v, gerr := getValue(t, s, "b", "k")
			require.NoError(t, gerr)
			require.Equal(t, "old", v, "half an update was written")
			_, gerr = getValue(t, s, "b", "first")
			require.ErrorIs(t, gerr, store.ErrNotFound, "half an update was written")

			kill.Store(false)
			require.NoError(t, s.Update(ctx, update), "running the update again")
			v, gerr = getValue(t, s, "b", "k")
			require.NoError(t, gerr)
			require.Equal(t, "old+new", v)
		})
	}
}

// TestBlindWriteKilled terminates the backend between two updates that
// only write: the first statement of the next one meets the dead
// connection, which the pool replaces.
func TestBlindWriteKilled(t *testing.T) {
	s := fresh(t, pgstore.Options{NoGroupCommit: true, MaxConns: 1})
	admin := adminConn(t)
	ctx := t.Context()
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("1")) }))
	conn, err := s.Pool().Acquire(ctx) // the pool's one connection
	require.NoError(t, err)
	pid := conn.Conn().PgConn().PID()
	conn.Release()
	var killed bool
	require.NoError(t, admin.QueryRow(ctx, "SELECT pg_terminate_backend($1)", int64(pid)).Scan(&killed))
	require.True(t, killed)
	// Whatever the next update meets, once it has answered the store works
	// and holds exactly the committed updates.
	err = s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("2")) })
	v, gerr := getValue(t, s, "b", "k")
	require.NoError(t, gerr)
	if err != nil {
		require.NotErrorIs(t, err, pgstore.ErrCommitUnknown)
		require.Equal(t, "1", v)
	} else {
		require.Equal(t, "2", v)
	}
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("3")) }))
	v, gerr = getValue(t, s, "b", "k")
	require.NoError(t, gerr)
	require.Equal(t, "3", v)
}

// TestGroupCommitShares checks that concurrent updates share commits,
// see each other's writes in order, and that one's failure drops only
// its own writes.
func TestGroupCommitShares(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	ctx := t.Context()
	errBoom := errors.New("boom")
	const n = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			err := s.Update(ctx, func(tx store.Tx) error {
				if err := bump(tx, "b", "counter"); err != nil {
					return err
				}
				if err := tx.Put(b("own"), fmt.Appendf(nil, "%02d", i), b("x")); err != nil {
					return err
				}
				if i%4 == 0 {
					return errBoom
				}
				return nil
			})
			if i%4 == 0 {
				assert.ErrorIs(t, err, errBoom)
			} else {
				assert.NoError(t, err)
			}
		})
	}
	close(start)
	wg.Wait()
	v, err := getValue(t, s, "b", "counter")
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(n-n/4), v)
	require.Len(t, keys(t, s, "own", store.ScanOptions{}), n-n/4)
	st := s.Stats()
	t.Logf("%+v", st)
	require.EqualValues(t, n-n/4, st.Batched)
	require.Less(t, st.Commits, int64(n-n/4), "no update shared a commit")
}

// TestMigrate checks that Migrate is idempotent, records the version, and
// refuses a schema a newer version migrated.
func TestMigrate(t *testing.T) {
	url, schema := teststores.NewPGSchema(t)
	ctx := t.Context()
	pool, err := pgxpool.New(ctx, url)
	require.NoError(t, err)
	defer pool.Close()

	v, err := pgstore.Version(ctx, pool, schema)
	require.NoError(t, err)
	require.Zero(t, v, "a schema never migrated")

	// Concurrent first migrations (instances starting together) and repeats.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { assert.NoError(t, pgstore.Migrate(ctx, pool, schema)) })
	}
	wg.Wait()
	require.NoError(t, pgstore.Migrate(ctx, pool, schema))
	v, err = pgstore.Version(ctx, pool, schema)
	require.NoError(t, err)
	require.Equal(t, pgstore.SchemaVersion, v)
	var rows int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{schema, "tambala_schema"}.Sanitize()).Scan(&rows))
	require.Equal(t, 1, rows)

	// Data survives a repeated Migrate.
	s, err := pgstore.New(pool, &pgstore.Options{Schema: schema})
	require.NoError(t, err)
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("v")) }))
	require.NoError(t, pgstore.Migrate(ctx, pool, schema))
	got, err := getValue(t, s, "b", "k")
	require.NoError(t, err)
	require.Equal(t, "v", got)
	require.NoError(t, s.Close())
	require.NoError(t, pool.Ping(ctx), "Close closed a pool the host owns")

	// A newer version's schema.
	_, err = pool.Exec(ctx, "UPDATE "+pgx.Identifier{schema, "tambala_schema"}.Sanitize()+" SET version = $1", pgstore.SchemaVersion+1)
	require.NoError(t, err)
	err = pgstore.Migrate(ctx, pool, schema)
	require.ErrorIs(t, err, pgstore.ErrSchemaTooNew)
	t.Log(err)
	_, err = pgstore.Open(ctx, url, &pgstore.Options{Schema: schema})
	require.ErrorIs(t, err, pgstore.ErrSchemaTooNew)
}

// TestMigrateCurrentSchema migrates and uses the connection's current
// schema (Options.Schema empty), set here through search_path.
func TestMigrateCurrentSchema(t *testing.T) {
	url, schema := teststores.NewPGSchema(t)
	ctx := t.Context()
	admin := adminConn(t)
	_, err := admin.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	require.NoError(t, err)
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	defer pool.Close()
	require.NoError(t, pgstore.Migrate(ctx, pool, ""))
	s, err := pgstore.New(pool, nil)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("v")) }))
	var n int
	require.NoError(t, admin.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{schema, "tambala_kv"}.Sanitize()).Scan(&n))
	require.Equal(t, 1, n)
}

// TestLongKeys: a bucket and key too large for a btree entry even
// compressed fail the commit with store.ErrInvalidKey and write nothing;
// compressible keys up to store.MaxKeySize work (the conformance suite
// writes one).
func TestLongKeys(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	ctx := t.Context()
	// Incompressible: hex of a hash chain.
	var key []byte
	h := sha256.Sum256([]byte("seed"))
	for len(key) < store.MaxKeySize {
		key = append(key, hex.EncodeToString(h[:])...)
		h = sha256.Sum256(h[:])
	}
	key = key[:store.MaxKeySize]
	err := s.Update(ctx, func(tx store.Tx) error {
		if err := tx.Put(b("b"), b("short"), b("v")); err != nil {
			return err
		}
		return tx.Put(b("b"), key, b("v"))
	})
	require.ErrorIs(t, err, store.ErrInvalidKey)
	require.Empty(t, keys(t, s, "b", store.ScanOptions{}))
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), key[:1000], b("v")) }))
	require.Equal(t, []string{string(key[:1000])}, keys(t, s, "b", store.ScanOptions{}))
}

// TestStatementTimeout: a read blocked on a lock longer than the statement
// timeout fails the update, and the store goes on working.
func TestStatementTimeout(t *testing.T) {
	for _, m := range modes {
		for _, hostPool := range []bool{false, true} {
			name := m.name
			if hostPool {
				name += "/HostPool"
			}
			t.Run(name, func(t *testing.T) { testStatementTimeout(t, m.opts, hostPool) })
		}
	}
}

func testStatementTimeout(t *testing.T, opts pgstore.Options, hostPool bool) {
	url, schema := teststores.NewPGSchema(t)
	opts.StatementTimeout = 200 * time.Millisecond
	ctx := t.Context()
	var s *pgstore.Store
	if hostPool {
		// New sets the timeout in each transaction. The pool's one
		// connection prepares its statements before the lock
		// (preparing waits for it under the pool's own timeout).
		cfg, err := pgxpool.ParseConfig(url)
		require.NoError(t, err)
		cfg.MaxConns = 1
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		require.NoError(t, err)
		t.Cleanup(pool.Close)
		require.NoError(t, pgstore.Migrate(ctx, pool, schema))
		opts.Schema = schema
		s, err = pgstore.New(pool, &opts)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return bump(tx, "b", "n") }))
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Delete(b("b"), b("n")) }))
	} else {
		s = open(t, schema, opts)
	}
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("v")) }))
	unlock := lockTable(t, schema)
	defer unlock()
	began := time.Now()
	err := s.Update(ctx, func(tx store.Tx) error { return bump(tx, "b", "n") })
	require.Error(t, err)
	var pe interface{ SQLState() string }
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "57014", pe.SQLState(), "query_canceled by statement_timeout")
	t.Logf("failed after %v: %v", time.Since(began).Round(time.Millisecond), err)
	unlock()
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return bump(tx, "b", "n") }))
}

// lockTable takes an ACCESS EXCLUSIVE lock on schema's table in a
// transaction of another connection, which blocks every read, until the
// returned function rolls it back.
func lockTable(t *testing.T, schema string) (unlock func()) {
	t.Helper()
	admin := adminConn(t)
	tx, err := admin.Begin(t.Context())
	require.NoError(t, err)
	_, err = tx.Exec(t.Context(), "LOCK TABLE "+pgx.Identifier{schema, "tambala_kv"}.Sanitize()+" IN ACCESS EXCLUSIVE MODE")
	require.NoError(t, err)
	return sync.OnceFunc(func() { assert.NoError(t, tx.Rollback(context.Background())) })
}

// TestContextCancelledWhileBlocked: an update whose context ends while
// its read waits for a lock returns the context's error (without group
// commit the statement is cancelled at once), and the store goes on.
func TestContextCancelledWhileBlocked(t *testing.T) {
	_, schema := teststores.NewPGSchema(t)
	s := open(t, schema, pgstore.Options{NoGroupCommit: true})
	ctx := t.Context()
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("v")) }))
	unlock := lockTable(t, schema)
	defer unlock()
	uctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	began := time.Now()
	err := s.Update(uctx, func(tx store.Tx) error { return bump(tx, "b", "n") })
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(began), 10*time.Second)
	err = s.View(uctx, func(tx store.Tx) error { _, err := tx.Get(b("b"), b("k")); return err })
	require.ErrorIs(t, err, context.DeadlineExceeded)
	unlock()
	require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return bump(tx, "b", "n") }))
	v, err := getValue(t, s, "b", "n")
	require.NoError(t, err)
	require.Equal(t, "1", v)
}

// TestClosedPool: a store over a pool the host closed answers
// store.ErrClosed.
func TestClosedPool(t *testing.T) {
	url, schema := teststores.NewPGSchema(t)
	ctx := t.Context()
	pool, err := pgxpool.New(ctx, url)
	require.NoError(t, err)
	require.NoError(t, pgstore.Migrate(ctx, pool, schema))
	for _, m := range modes {
		opts := m.opts
		opts.Schema = schema
		s, err := pgstore.New(pool, &opts)
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("v")) }))
	}
	pool.Close()
	for _, m := range modes {
		opts := m.opts
		opts.Schema = schema
		s, err := pgstore.New(pool, &opts)
		require.NoError(t, err)
		require.ErrorIs(t, s.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), b("k"), b("v")) }), store.ErrClosed, m.name)
		require.ErrorIs(t, s.View(ctx, func(tx store.Tx) error { _, err := tx.Get(b("b"), b("k")); return err }), store.ErrClosed, m.name)
		require.NoError(t, s.Close())
	}
}

func TestOptions(t *testing.T) {
	_, err := pgstore.New(nil, nil)
	require.Error(t, err)
	for _, o := range []pgstore.Options{{MaxBatch: -1}, {MaxRetries: -1}, {StatementTimeout: -time.Second}, {RetryFor: -time.Second}} {
		_, err := pgstore.New(new(pgxpool.Pool), &o)
		require.Error(t, err, "%+v", o)
	}
	_, err = pgstore.Open(t.Context(), "postgres://%zz", nil)
	require.Error(t, err)
}

// TestGoexitInRound: a function that ends its goroutine (t.FailNow) while
// its round runs at once writes nothing, and its caller panics with
// pgstore's explanation; the others commit.
func TestGoexitInRound(t *testing.T) {
	s := fresh(t, pgstore.Options{})
	s.SetRuns("concurrent")
	ctx := t.Context()
	release := make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	defer releaseOnce() // never leave the committer held: Close waits for it
	started := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(ctx, func(tx store.Tx) error {
			close(started)
			<-release // holds the committer while the others queue
			return tx.Put(b("b"), b("first"), b("1"))
		})
	}()
	<-started
	waitQueued := func(n int) {
		deadline := time.Now().Add(10 * time.Second)
		for s.Queued() < n {
			require.True(t, time.Now().Before(deadline), "updates did not queue")
			time.Sleep(time.Millisecond)
		}
	}
	results := make(chan any, 3)
	for i, exit := range []bool{false, true, false} {
		go func() {
			defer func() { results <- recover() }()
			err := s.Update(ctx, func(tx store.Tx) error {
				if err := tx.Put(b("b"), fmt.Appendf(nil, "k%d", i), b("v")); err != nil {
					return err
				}
				if exit {
					runtime.Goexit()
				}
				return nil
			})
			assert.NoError(t, err)
		}()
	}
	waitQueued(3)
	releaseOnce()
	require.NoError(t, <-first)
	var panics []any
	for range 3 {
		if p := <-results; p != nil {
			panics = append(panics, p)
		}
	}
	require.Equal(t, []any{pgstore.ErrGoexit}, panics)
	require.Equal(t, []string{"first", "k0", "k2"}, keys(t, s, "b", store.ScanOptions{}))
}
