package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

// scanKeys are the committed keys of the scan tests: neighbours that differ
// in their last byte, 0x00 and 0xff bytes, and keys of all 0xff.
var scanKeys = []string{
	"\x00", "\x00\x01", "0",
	"a", "a\x00", "a\xff", "a\xff\xff", "aa", "ab", "abc", "abd", "ac",
	"b", "b\x00", "ba", "c",
	"\xfe\xff", "\xff", "\xff\x00", "\xff\xff", "\xff\xff\x01", "\xff\xff\xff",
}

// scanOptions is the table of bounds every scan test runs, each forward
// and in reverse.
func scanOptions() []store.ScanOptions {
	opts := []store.ScanOptions{
		{},
		{Start: b("ab")},   // inclusive, existing key
		{Start: b("abb")},  // between keys
		{Start: []byte{}},  // empty but set: everything
		{Start: b("\xff")}, // 0xff start
		{Start: b("\xff\xff\xff\xff")},
		{End: b("b")},     // exclusive, existing key
		{End: b("a\x01")}, // between keys
		{End: b("\x00")},  // before everything
		{End: b("\xff\xff")},
		{Start: b("a\xff"), End: b("b\x00")},
		{Start: b("ab"), End: b("ab")}, // empty range
		{Start: b("c"), End: b("a")},   // inverted range
		{Prefix: b("a")},
		{Prefix: b("ab")}, // a key equal to the prefix
		{Prefix: b("zz")}, // matches nothing
		{Prefix: []byte{}},
		{Prefix: b("\x00")},
		{Prefix: b("a\xff")}, // prefix ending in 0xff
		{Prefix: b("\xff")},  // all-0xff prefixes have no PrefixEnd
		{Prefix: b("\xff\xff")},
		{Prefix: b("\xff\xff\xff")},
		{Prefix: b("a"), Start: b("ab")},       // start inside the prefix
		{Prefix: b("a"), Start: b("\x00\x01")}, // start before the prefix
		{Prefix: b("a"), Start: b("b")},        // start after the prefix
		{Prefix: b("a"), End: b("abc")},        // end inside the prefix
		{Prefix: b("a"), End: b("c")},          // end after the prefix
		{Prefix: b("b"), End: b("a")},          // end before the prefix
		{Prefix: b("a"), Start: b("a\x00"), End: b("abd")},
		{Prefix: b("a"), Start: b("ab"), End: b("ab")},
		{Prefix: b("\xff"), Start: b("\xff\x00")},
		{Prefix: b("\xff"), End: b("\xff\xff\x01")},
		{Prefix: b("\xff\xff"), Start: b("\xff\xff\x00"), End: b("\xff\xff\xff\xff")},
	}
	out := make([]store.ScanOptions, 0, 2*len(opts))
	for _, o := range opts {
		out = append(out, o)
		o.Reverse = true
		out = append(out, o)
	}
	return out
}

func scanModel() model {
	m := model{}
	for _, k := range scanKeys {
		m[k] = "v" + k
	}
	return m
}

// checkScans runs the whole table of scans on tx against m, including early
// stops after one and two keys.
func checkScans(t testing.TB, tx store.Tx, bucket string, m model) {
	for _, opt := range scanOptions() {
		want := m.scan(opt)
		got, err := scanTx(tx, bucket, opt)
		if !assert.NoError(t, err, describe(opt)) || !assert.Equal(t, want, got, describe(opt)) {
			continue
		}
		for _, limit := range []int{1, 2} {
			stopped := []kv{}
			err := tx.Scan(b(bucket), opt, func(k, v []byte) (bool, error) {
				stopped = append(stopped, kv{string(k), string(v)})
				return len(stopped) < limit, nil
			})
			assert.NoError(t, err, describe(opt))
			assert.Equal(t, want[:min(limit, len(want))], stopped, "%s, stopping after %d", describe(opt), limit)
		}
	}
}

func (s *suite) testScan(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	m := scanModel()
	putAll(t, st, "b", m.pairs())
	put(t, st, "a", "neighbour", "x") // buckets sorting around "b" stay apart
	put(t, st, "c", "neighbour", "x")

	t.Run("View", func(t *testing.T) {
		require.NoError(t, st.View(ctx, func(tx store.Tx) error {
			checkScans(t, tx, "b", m)
			return nil
		}))
	})
	t.Run("UpdateWithoutWrites", func(t *testing.T) {
		require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
			checkScans(t, tx, "b", m)
			return nil
		}))
	})
}

// testScanInUpdate runs the scan table inside an Update over a mix of
// committed keys, buffered puts and buffered deletes.
func (s *suite) testScanInUpdate(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	committed := scanModel()
	putAll(t, st, "b", committed.pairs())

	// The transaction's writes: overwrites, new keys around and between
	// committed ones, deletes of committed and missing keys, a delete then
	// put again, and a put then delete of a new key.
	puts := []kv{
		{"ab", "overwritten"}, {"\xff\xff", "overwritten"}, {"\x00", "overwritten"},
		{"a\x01", "new"}, {"ab\xff", "new"}, {"abca", "new"}, {"\xff\xff\x00", "new"},
		{"\xff\xff\xff\xff", "new"}, {"\x00\x00", "new"}, {"zz", "new"}, {"ephemeral", "x"},
	}
	deletes := []string{"abc", "\xff", "a", "ac", "\xff\xff\xff", "missing", "b", "ephemeral"}
	rePut := kv{"b", "re-put"}
	write := func(tx store.Tx) error {
		for _, p := range puts {
			if err := tx.Put(b("b"), b(p.K), b(p.V)); err != nil {
				return err
			}
		}
		for _, k := range deletes {
			if err := tx.Delete(b("b"), b(k)); err != nil {
				return err
			}
		}
		return tx.Put(b("b"), b(rePut.K), b(rePut.V))
	}
	m := committed.clone()
	for _, p := range puts {
		m[p.K] = p.V
	}
	for _, k := range deletes {
		delete(m, k)
	}
	m[rePut.K] = rePut.V

	t.Run("RolledBack", func(t *testing.T) {
		err := st.Update(ctx, func(tx store.Tx) error {
			if err := write(tx); err != nil {
				return err
			}
			checkScans(t, tx, "b", m)
			return errRollback
		})
		require.ErrorIs(t, err, errRollback)
		require.Equal(t, committed.pairs(), dump(t, st, "b"))
	})
	t.Run("Committed", func(t *testing.T) {
		require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
			if err := write(tx); err != nil {
				return err
			}
			checkScans(t, tx, "b", m)
			return nil
		}))
		require.Equal(t, m.pairs(), dump(t, st, "b"))
		require.NoError(t, st.View(ctx, func(tx store.Tx) error {
			checkScans(t, tx, "b", m)
			return nil
		}))
	})
	t.Run("AllBuffered", func(t *testing.T) {
		// A bucket that exists only in the transaction's buffer.
		fresh := scanModel()
		require.ErrorIs(t, st.Update(ctx, func(tx store.Tx) error {
			for _, p := range fresh.pairs() {
				if err := tx.Put(b("fresh"), b(p.K), b(p.V)); err != nil {
					return err
				}
			}
			checkScans(t, tx, "fresh", fresh)
			return errRollback
		}), errRollback)
		require.Empty(t, dump(t, st, "fresh"))
	})
	t.Run("AllDeleted", func(t *testing.T) {
		require.ErrorIs(t, st.Update(ctx, func(tx store.Tx) error {
			for k := range m {
				if err := tx.Delete(b("b"), b(k)); err != nil {
					return err
				}
			}
			checkScans(t, tx, "b", model{})
			return errRollback
		}), errRollback)
		require.Equal(t, m.pairs(), dump(t, st, "b"))
	})
}

func (s *suite) testScanMissingBucket(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	never := func(k, v []byte) (bool, error) {
		return false, fmt.Errorf("scan of an empty bucket visited %q", k)
	}
	scanAll := func(tx store.Tx, bucket string) {
		for _, opt := range scanOptions() {
			assert.NoError(t, tx.Scan(b(bucket), opt, never), "bucket %q, %s", bucket, describe(opt))
		}
	}
	require.NoError(t, st.View(ctx, func(tx store.Tx) error { scanAll(tx, "missing"); return nil }))
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error { scanAll(tx, "missing"); return nil }))

	// A bucket whose keys were all deleted.
	putAll(t, st, "emptied", []kv{{"a", "1"}, {"b", "2"}})
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		if err := tx.Delete(b("emptied"), b("a")); err != nil {
			return err
		}
		return tx.Delete(b("emptied"), b("b"))
	}))
	require.NoError(t, st.View(ctx, func(tx store.Tx) error { scanAll(tx, "emptied"); return nil }))
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error { scanAll(tx, "emptied"); return nil }))
	requireMissing(t, st, "emptied", "a")

	// Deleting everything inside the transaction.
	putAll(t, st, "full", []kv{{"a", "1"}, {"b", "2"}})
	require.ErrorIs(t, st.Update(ctx, func(tx store.Tx) error {
		_ = tx.Delete(b("full"), b("a"))
		_ = tx.Delete(b("full"), b("b"))
		scanAll(tx, "full")
		return errRollback
	}), errRollback)
}

// testScanStopAndError checks that an error from fn stops the scan and comes
// back from Scan, wherever the scan is (committed or buffered key).
func (s *suite) testScanStopAndError(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	putAll(t, st, "b", []kv{{"a", "1"}, {"c", "3"}, {"e", "5"}})
	errStop := errors.New("storetest: stop")

	// stopAt scans and fails at the n-th key; it returns the keys visited.
	stopAt := func(tx store.Tx, opt store.ScanOptions, n int) ([]string, error) {
		var seen []string
		err := tx.Scan(b("b"), opt, func(k, v []byte) (bool, error) {
			seen = append(seen, string(k))
			if len(seen) == n {
				return true, fmt.Errorf("at %q: %w", k, errStop)
			}
			return true, nil
		})
		return seen, err
	}
	check := func(tx store.Tx, all []string) {
		for _, reverse := range []bool{false, true} {
			keys := all
			if reverse {
				keys = make([]string, len(all))
				for i, k := range all {
					keys[len(all)-1-i] = k
				}
			}
			for n := 1; n <= len(keys); n++ {
				seen, err := stopAt(tx, store.ScanOptions{Reverse: reverse}, n)
				assert.ErrorIs(t, err, errStop, "reverse=%v n=%d", reverse, n)
				assert.Equal(t, keys[:n], seen, "reverse=%v n=%d", reverse, n)
			}
		}
	}
	require.NoError(t, st.View(ctx, func(tx store.Tx) error {
		check(tx, []string{"a", "c", "e"})
		return nil
	}))
	err := st.Update(ctx, func(tx store.Tx) error {
		for _, k := range []string{"0", "b", "d", "f"} {
			if err := tx.Put(b("b"), b(k), b("buffered")); err != nil {
				return err
			}
		}
		if err := tx.Delete(b("b"), b("c")); err != nil {
			return err
		}
		check(tx, []string{"0", "a", "b", "d", "e", "f"})
		// The error reaches Update's caller when fn returns it.
		_, err := stopAt(tx, store.ScanOptions{}, 2)
		return err
	})
	require.ErrorIs(t, err, errStop)
	require.Equal(t, []kv{{"a", "1"}, {"c", "3"}, {"e", "5"}}, dump(t, st, "b"))
}
