package txbuf_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/internal/txbuf"
	"github.com/tambalapay/tambala/store"
)

type kv struct{ K, V string }

// sliceBase is a read-only base over sorted slices, one per bucket. Its
// bounds checks are written here rather than taken from store.ScanOptions.
type sliceBase struct {
	buckets map[string][]kv
	scanErr error // returned by Scan after visiting everything
}

func newBase(buckets map[string]map[string]string) *sliceBase {
	s := &sliceBase{buckets: map[string][]kv{}}
	for name, m := range buckets {
		var pairs []kv
		for k, v := range m {
			pairs = append(pairs, kv{k, v})
		}
		sort.Slice(pairs, func(i, j int) bool { return pairs[i].K < pairs[j].K })
		s.buckets[name] = pairs
	}
	return s
}

func (s *sliceBase) Get(bucket, key []byte) ([]byte, error) {
	for _, p := range s.buckets[string(bucket)] {
		if p.K == string(key) {
			return []byte(p.V), nil
		}
	}
	return nil, store.ErrNotFound
}

func inRange(opt store.ScanOptions, k string) bool {
	return (opt.Start == nil || k >= string(opt.Start)) &&
		(opt.End == nil || k < string(opt.End)) &&
		(opt.Prefix == nil || strings.HasPrefix(k, string(opt.Prefix)))
}

func (s *sliceBase) Scan(bucket []byte, opt store.ScanOptions, fn func(key, value []byte) (bool, error)) error {
	pairs := slices.Clone(s.buckets[string(bucket)])
	if opt.Reverse {
		slices.Reverse(pairs)
	}
	for _, p := range pairs {
		if !inRange(opt, p.K) {
			continue
		}
		more, err := fn([]byte(p.K), []byte(p.V))
		if err != nil || !more {
			return err
		}
	}
	return s.scanErr
}

// op is a buffered write: a put, or a delete when del is set.
type op struct {
	bucket, key, value string
	del                bool
}

func put(bucket, key, value string) op { return op{bucket: bucket, key: key, value: value} }
func del(bucket, key string) op        { return op{bucket: bucket, key: key, del: true} }

func apply(t testing.TB, tx *txbuf.Tx, ops []op) {
	t.Helper()
	for _, o := range ops {
		if o.del {
			require.NoError(t, tx.Delete([]byte(o.bucket), []byte(o.key)))
		} else {
			require.NoError(t, tx.Put([]byte(o.bucket), []byte(o.key), []byte(o.value)))
		}
	}
}

// expect computes the merged view of bucket: base, then ops in order.
func expect(base map[string]map[string]string, ops []op, bucket string, opt store.ScanOptions) []kv {
	m := map[string]string{}
	for k, v := range base[bucket] {
		m[k] = v
	}
	for _, o := range ops {
		if o.bucket != bucket {
			continue
		}
		if o.del {
			delete(m, o.key)
		} else {
			m[o.key] = o.value
		}
	}
	out := []kv{}
	for k, v := range m {
		if inRange(opt, k) {
			out = append(out, kv{k, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].K < out[j].K })
	if opt.Reverse {
		slices.Reverse(out)
	}
	return out
}

func scan(tx *txbuf.Tx, bucket string, opt store.ScanOptions) ([]kv, error) {
	out := []kv{}
	err := tx.Scan([]byte(bucket), opt, func(k, v []byte) (bool, error) {
		out = append(out, kv{string(k), string(v)})
		return true, nil
	})
	return out, err
}

func bs(s string) []byte { return []byte(s) }

// options is the set of bounds every case is scanned with, each also in
// reverse.
func options() []store.ScanOptions {
	opts := []store.ScanOptions{
		{},
		{Start: bs("c")},
		{Start: bs("cc")},
		{End: bs("e")},
		{End: bs("d0")},
		{Start: bs("b"), End: bs("f")},
		{Start: bs("c"), End: bs("c")},
		{Start: bs("f"), End: bs("b")},
		{Prefix: bs("c")},
		{Prefix: bs("d")},
		{Prefix: bs("\xff")},
		{Prefix: bs("c"), Start: bs("c1")},
		{Prefix: bs("c"), End: bs("c5")},
		{Start: bs("\xff")},
		{End: bs("\x00\x01")},
	}
	out := make([]store.ScanOptions, 0, 2*len(opts))
	for _, o := range opts {
		out = append(out, o)
		o.Reverse = true
		out = append(out, o)
	}
	return out
}

func name(opt store.ScanOptions) string {
	var parts []string
	for _, f := range []struct {
		n string
		v []byte
	}{{"start", opt.Start}, {"end", opt.End}, {"prefix", opt.Prefix}} {
		if f.v != nil {
			parts = append(parts, fmt.Sprintf("%s=%q", f.n, f.v))
		}
	}
	if opt.Reverse {
		parts = append(parts, "reverse")
	}
	return strings.Join(parts, ",")
}

var baseData = map[string]map[string]string{
	"b":     {"a": "1", "c": "3", "c5": "35", "e": "5", "g": "7", "\xff": "ff", "\xff\xff": "ffff"},
	"other": {"a": "other", "d": "other"},
}

func TestScanMerged(t *testing.T) {
	cases := []struct {
		name string
		ops  []op
		want []kv // the forward unbounded scan, spelled out
	}{
		{
			name: "empty buffer",
			want: []kv{{"a", "1"}, {"c", "3"}, {"c5", "35"}, {"e", "5"}, {"g", "7"}, {"\xff", "ff"}, {"\xff\xff", "ffff"}},
		},
		{
			name: "new keys before, between and after base keys",
			ops:  []op{put("b", "0", "n0"), put("b", "d", "nd"), put("b", "c1", "nc1"), put("b", "z", "nz"), put("b", "\xff\xff\xff", "n")},
			want: []kv{{"0", "n0"}, {"a", "1"}, {"c", "3"}, {"c1", "nc1"}, {"c5", "35"}, {"d", "nd"}, {"e", "5"}, {"g", "7"}, {"z", "nz"}, {"\xff", "ff"}, {"\xff\xff", "ffff"}, {"\xff\xff\xff", "n"}},
		},
		{
			name: "buffer shadows base values",
			ops:  []op{put("b", "c", "30"), put("b", "a", "10"), put("b", "\xff\xff", "new")},
			want: []kv{{"a", "10"}, {"c", "30"}, {"c5", "35"}, {"e", "5"}, {"g", "7"}, {"\xff", "ff"}, {"\xff\xff", "new"}},
		},
		{
			name: "deletes hide base keys",
			ops:  []op{del("b", "c"), del("b", "a"), del("b", "\xff\xff"), del("b", "missing")},
			want: []kv{{"c5", "35"}, {"e", "5"}, {"g", "7"}, {"\xff", "ff"}},
		},
		{
			name: "delete then put, put then delete",
			ops:  []op{del("b", "e"), put("b", "e", "50"), put("b", "f", "x"), del("b", "f"), put("b", "c", "x"), del("b", "c")},
			want: []kv{{"a", "1"}, {"c5", "35"}, {"e", "50"}, {"g", "7"}, {"\xff", "ff"}, {"\xff\xff", "ffff"}},
		},
		{
			name: "everything deleted",
			ops:  []op{del("b", "a"), del("b", "c"), del("b", "c5"), del("b", "e"), del("b", "g"), del("b", "\xff"), del("b", "\xff\xff")},
			want: []kv{},
		},
		{
			name: "writes to other buckets do not leak",
			ops:  []op{put("other", "c", "x"), del("other", "a"), put("b2", "a", "x")},
			want: []kv{{"a", "1"}, {"c", "3"}, {"c5", "35"}, {"e", "5"}, {"g", "7"}, {"\xff", "ff"}, {"\xff\xff", "ffff"}},
		},
		{
			name: "mixed",
			ops:  []op{put("b", "b", "nb"), del("b", "c"), put("b", "c2", "nc2"), put("b", "e", "55"), del("b", "g"), put("b", "h", "nh"), put("b", "\xff\x00", "n")},
			want: []kv{{"a", "1"}, {"b", "nb"}, {"c2", "nc2"}, {"c5", "35"}, {"e", "55"}, {"h", "nh"}, {"\xff", "ff"}, {"\xff\x00", "n"}, {"\xff\xff", "ffff"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := txbuf.New(newBase(baseData))
			apply(t, tx, c.ops)
			got, err := scan(tx, "b", store.ScanOptions{})
			require.NoError(t, err)
			require.Equal(t, c.want, got)
			for _, opt := range options() {
				got, err := scan(tx, "b", opt)
				require.NoError(t, err, name(opt))
				require.Equal(t, expect(baseData, c.ops, "b", opt), got, name(opt))
			}
			// The other buckets see exactly their own writes.
			for _, bucket := range []string{"other", "b2", "none"} {
				got, err := scan(tx, bucket, store.ScanOptions{})
				require.NoError(t, err)
				require.Equal(t, expect(baseData, c.ops, bucket, store.ScanOptions{}), got, bucket)
			}
		})
	}
}

func TestScanBucketOnlyInBuffer(t *testing.T) {
	tx := txbuf.New(newBase(nil))
	ops := []op{put("new", "b", "2"), put("new", "a", "1"), put("new", "c", "3"), del("new", "b")}
	apply(t, tx, ops)
	for _, opt := range options() {
		got, err := scan(tx, "new", opt)
		require.NoError(t, err)
		require.Equal(t, expect(nil, ops, "new", opt), got, name(opt))
	}
}

// TestScanEarlyStop stops after every possible number of keys, by
// more=false and by an error, so that the stop lands on buffered keys, base
// keys and shadowed keys.
func TestScanEarlyStop(t *testing.T) {
	ops := []op{put("b", "0", "n0"), put("b", "c", "30"), del("b", "e"), put("b", "f", "nf"), put("b", "z", "nz")}
	errStop := errors.New("stop")
	for _, reverse := range []bool{false, true} {
		opt := store.ScanOptions{Reverse: reverse}
		want := expect(baseData, ops, "b", opt)
		for n := 1; n <= len(want); n++ {
			t.Run(fmt.Sprintf("reverse=%v/n=%d", reverse, n), func(t *testing.T) {
				tx := txbuf.New(newBase(baseData))
				apply(t, tx, ops)

				var got []kv
				err := tx.Scan([]byte("b"), opt, func(k, v []byte) (bool, error) {
					got = append(got, kv{string(k), string(v)})
					return len(got) < n, nil
				})
				require.NoError(t, err)
				require.Equal(t, want[:n], got, "stop by more=false")

				got = nil
				err = tx.Scan([]byte("b"), opt, func(k, v []byte) (bool, error) {
					got = append(got, kv{string(k), string(v)})
					if len(got) == n {
						return true, errStop // more is ignored with an error
					}
					return true, nil
				})
				require.ErrorIs(t, err, errStop)
				require.Equal(t, want[:n], got, "stop by error")
			})
		}
	}
}

func TestScanBaseError(t *testing.T) {
	errBase := errors.New("base failed")
	base := newBase(baseData)
	base.scanErr = errBase
	tx := txbuf.New(base)
	_, err := scan(tx, "b", store.ScanOptions{})
	require.ErrorIs(t, err, errBase, "empty buffer")
	apply(t, tx, []op{put("b", "\xff\xff\xff", "after all base keys")})
	var got []string
	err = tx.Scan([]byte("b"), store.ScanOptions{}, func(k, _ []byte) (bool, error) {
		got = append(got, string(k))
		return true, nil
	})
	require.ErrorIs(t, err, errBase)
	require.NotContains(t, got, "\xff\xff\xff", "buffered keys after a failed base scan")
}

func TestScanHandsOutCopies(t *testing.T) {
	tx := txbuf.New(newBase(baseData))
	apply(t, tx, []op{put("b", "b", "buffered"), put("b", "c", "shadow")})
	require.NoError(t, tx.Scan([]byte("b"), store.ScanOptions{}, func(k, v []byte) (bool, error) {
		if len(k) > 0 && len(v) > 0 {
			k[0], v[0] = '#', '#'
		}
		return true, nil
	}))
	got, err := scan(tx, "b", store.ScanOptions{Prefix: bs("b")})
	require.NoError(t, err)
	require.Equal(t, []kv{{"b", "buffered"}}, got)
	v, err := tx.Get([]byte("b"), []byte("c"))
	require.NoError(t, err)
	require.Equal(t, "shadow", string(v))
}

func TestGet(t *testing.T) {
	tx := txbuf.New(newBase(baseData))
	apply(t, tx, []op{put("b", "c", "30"), del("b", "e"), put("b", "new", "n"), put("nb", "k", "v"), del("b", "missing")})
	cases := []struct {
		bucket, key, want string
		err               error
	}{
		{"b", "a", "1", nil},              // from the base
		{"b", "c", "30", nil},             // shadowed
		{"b", "e", "", store.ErrNotFound}, // deleted
		{"b", "new", "n", nil},            // buffered only
		{"b", "missing", "", store.ErrNotFound},
		{"b", "zzz", "", store.ErrNotFound},
		{"nb", "k", "v", nil},
		{"none", "k", "", store.ErrNotFound},
		{"", "k", "", store.ErrInvalidKey},
		{"b", "", "", store.ErrInvalidKey},
	}
	for _, c := range cases {
		v, err := tx.Get([]byte(c.bucket), []byte(c.key))
		if c.err != nil {
			assert.ErrorIs(t, err, c.err, "%q/%q", c.bucket, c.key)
			continue
		}
		if assert.NoError(t, err, "%q/%q", c.bucket, c.key) {
			assert.Equal(t, c.want, string(v), "%q/%q", c.bucket, c.key)
		}
	}
	// Get returns a copy of a buffered value.
	v, err := tx.Get([]byte("b"), []byte("new"))
	require.NoError(t, err)
	v[0] = 'X'
	v, err = tx.Get([]byte("b"), []byte("new"))
	require.NoError(t, err)
	require.Equal(t, "n", string(v))
}

func TestPutCopiesAndValidates(t *testing.T) {
	tx := txbuf.New(newBase(nil))
	key, val := []byte("key"), []byte("value")
	require.NoError(t, tx.Put([]byte("b"), key, val))
	key[0], val[0] = 'K', 'V'
	v, err := tx.Get([]byte("b"), []byte("key"))
	require.NoError(t, err)
	require.Equal(t, "value", string(v))
	_, err = tx.Get([]byte("b"), []byte("Key"))
	require.ErrorIs(t, err, store.ErrNotFound)

	long := bytes.Repeat([]byte("k"), store.MaxKeySize+1)
	require.ErrorIs(t, tx.Put(nil, []byte("k"), nil), store.ErrInvalidKey)
	require.ErrorIs(t, tx.Put([]byte("b"), nil, nil), store.ErrInvalidKey)
	require.ErrorIs(t, tx.Put([]byte("b"), long, nil), store.ErrInvalidKey)
	require.ErrorIs(t, tx.Put(long, []byte("k"), nil), store.ErrInvalidKey)
	require.ErrorIs(t, tx.Put([]byte("b"), []byte("k"), make([]byte, store.MaxValueSize+1)), store.ErrValueTooLarge)
	require.ErrorIs(t, tx.Delete(nil, []byte("k")), store.ErrInvalidKey)
	require.ErrorIs(t, tx.Delete([]byte("b"), nil), store.ErrInvalidKey)
	require.Equal(t, 1, tx.Len(), "a rejected write was buffered")

	// An empty value is a value.
	require.NoError(t, tx.Put([]byte("b"), []byte("empty"), nil))
	v, err = tx.Get([]byte("b"), []byte("empty"))
	require.NoError(t, err)
	require.Empty(t, v)
}

// recorder is a Writer that records what Apply does.
type recorder struct {
	ops    []string
	failAt int // fail the failAt-th call (1-based); 0 never
}

var errWrite = errors.New("write failed")

func (r *recorder) Put(bucket, key, value []byte) error {
	r.ops = append(r.ops, fmt.Sprintf("put %s/%s=%s", bucket, key, value))
	if len(r.ops) == r.failAt {
		return errWrite
	}
	return nil
}

func (r *recorder) Delete(bucket, key []byte) error {
	r.ops = append(r.ops, fmt.Sprintf("delete %s/%s", bucket, key))
	if len(r.ops) == r.failAt {
		return errWrite
	}
	return nil
}

func TestApply(t *testing.T) {
	ops := []op{
		put("z", "b", "1"), put("a", "y", "2"), put("z", "a", "3"), del("a", "x"),
		put("m", "k", "4"), del("z", "b"), put("a", "x", "5"), put("z", "c", "6"),
	}
	tx := txbuf.New(newBase(nil))
	apply(t, tx, ops)
	require.Equal(t, 6, tx.Len())

	// Buckets in first-write order, keys ascending, last write wins.
	var r recorder
	require.NoError(t, tx.Apply(&r))
	require.Equal(t, []string{
		"put z/a=3", "delete z/b", "put z/c=6",
		"put a/x=5", "put a/y=2",
		"put m/k=4",
	}, r.ops)

	// A failing write stops Apply and comes back.
	r = recorder{failAt: 2}
	require.ErrorIs(t, tx.Apply(&r), errWrite)
	require.Len(t, r.ops, 2)
}

func TestReset(t *testing.T) {
	base1 := newBase(map[string]map[string]string{"b": {"a": "base1"}})
	base2 := newBase(map[string]map[string]string{"b": {"a": "base2"}})
	tx := txbuf.New(base1)
	apply(t, tx, []op{put("b", "x", "1"), put("c", "y", "2")})
	require.Equal(t, 2, tx.Len())

	tx.Reset(base2)
	require.Zero(t, tx.Len())
	_, err := tx.Get([]byte("b"), []byte("x"))
	require.ErrorIs(t, err, store.ErrNotFound, "a write survived Reset")
	v, err := tx.Get([]byte("b"), []byte("a"))
	require.NoError(t, err)
	require.Equal(t, "base2", string(v), "Reset did not change the base")
	got, err := scan(tx, "b", store.ScanOptions{})
	require.NoError(t, err)
	require.Equal(t, []kv{{"a", "base2"}}, got)

	var r recorder
	require.NoError(t, tx.Apply(&r))
	require.Empty(t, r.ops, "Apply after Reset wrote something")

	// The buffer works again after Reset, in the new first-write order.
	apply(t, tx, []op{put("c", "y", "3"), put("b", "x", "4")})
	require.NoError(t, tx.Apply(&r))
	require.Equal(t, []string{"put c/y=3", "put b/x=4"}, r.ops)
}

// Buckets whose names hold 0x00 never share an index entry, however many
// writes the transaction holds (the hash index starts past a few dozen).
func TestIndexKeyNoCollisions(t *testing.T) {
	tx := txbuf.New(newBase(nil))
	for i := range 64 { // past the size where the index is used
		require.NoError(t, tx.Put([]byte("filler"), []byte{byte(i), 1}, []byte("x")))
	}
	require.NoError(t, tx.Put([]byte("\x00"), []byte("\x00\xff"), []byte("a")))
	require.NoError(t, tx.Put([]byte("\x00\x00"), []byte("\xff"), []byte("b")))
	a, err := tx.Get([]byte("\x00"), []byte("\x00\xff"))
	require.NoError(t, err)
	assert.Equal(t, "a", string(a))
	b, err := tx.Get([]byte("\x00\x00"), []byte("\xff"))
	require.NoError(t, err)
	assert.Equal(t, "b", string(b))
}

// A reused buffer sizes its first arena to what the last transaction
// copied in: a command of the same shape fills one arena (one allocation
// for all its keys and values) instead of growing through several, all of
// which a store that keeps the slices would keep alive.
func TestReusedBufferSizesItsArena(t *testing.T) {
	value := bytes.Repeat([]byte("v"), 300)
	var keys [][]byte
	for i := range 10 {
		keys = append(keys, []byte(fmt.Sprintf("key-%02d", i)))
	}
	bucket := []byte("b")
	base := newBase(nil)
	tx := txbuf.New(base)
	command := func() {
		tx.Reset(base)
		for _, k := range keys {
			if err := tx.Put(bucket, k, value); err != nil {
				t.Fatal(err)
			}
		}
	}
	command() // the first one grows through arenas of 512, 1024, 2048...
	// Afterwards: the arena, and nothing else (the writes slice is reused).
	require.Equal(t, 1.0, testing.AllocsPerRun(20, command))

	// Every slice handed out stays intact after the next transaction.
	tx.Reset(base)
	require.NoError(t, tx.Put(bucket, []byte("k"), []byte("first")))
	var r recorder
	require.NoError(t, tx.Apply(&r))
	command()
	require.Equal(t, []string{"put b/k=first"}, r.ops)
}
