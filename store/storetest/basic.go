package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

func (s *suite) testBasic(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()

	// Nothing exists yet: a missing bucket is ErrNotFound, in View and Update.
	requireMissing(t, st, "b", "k")
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		_, err := tx.Get(b("b"), b("k"))
		assert.ErrorIs(t, err, store.ErrNotFound, "Get from a missing bucket in Update")
		return nil
	}))

	put(t, st, "b", "k", "v1")
	requireValue(t, st, "b", "k", "v1")
	requireMissing(t, st, "b", "other") // missing key in an existing bucket
	requireMissing(t, st, "b2", "k")    // buckets are separate
	requireMissing(t, st, "b", "k\x00") // no prefix matching
	requireMissing(t, st, "b", "K")

	// Overwrite, and the same key in another bucket.
	put(t, st, "b", "k", "v2")
	put(t, st, "b2", "k", "other bucket")
	requireValue(t, st, "b", "k", "v2")
	requireValue(t, st, "b2", "k", "other bucket")

	// Binary keys and values.
	put(t, st, "b", "\x00\xff\x00", "\xff\x00")
	requireValue(t, st, "b", "\x00\xff\x00", "\xff\x00")

	// A key of exactly MaxKeySize and a value of a few hundred KiB.
	long := strings.Repeat("k", store.MaxKeySize)
	big := strings.Repeat("0123456789abcdef", 1<<14)
	put(t, st, "b", long, big)
	requireValue(t, st, "b", long, big)

	// Delete, and deleting what does not exist is fine.
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		if err := tx.Delete(b("b"), b("k")); err != nil {
			return err
		}
		if err := tx.Delete(b("b"), b("never")); err != nil {
			return fmt.Errorf("delete of a missing key: %w", err)
		}
		if err := tx.Delete(b("nobucket"), b("never")); err != nil {
			return fmt.Errorf("delete in a missing bucket: %w", err)
		}
		return nil
	}))
	requireMissing(t, st, "b", "k")
	requireValue(t, st, "b2", "k", "other bucket")
	requireMissing(t, st, "nobucket", "never")
	require.Empty(t, dump(t, st, "nobucket"))
	require.Equal(t, []kv{{"\x00\xff\x00", "\xff\x00"}, {long, big}}, dump(t, st, "b"))

	// Delete and re-put.
	put(t, st, "b", "k", "v3")
	requireValue(t, st, "b", "k", "v3")
}

func (s *suite) testInvalidPut(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	tooLong := strings.Repeat("x", store.MaxKeySize+1)
	cases := []struct {
		name, bucket, key string
	}{
		{"empty bucket", "", "k"},
		{"empty key", "b", ""},
		{"key too long", "b", tooLong},
		{"bucket too long", tooLong, "k"},
	}
	for _, c := range cases {
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.Put(b(c.bucket), b(c.key), b("v"))
		})
		require.ErrorIs(t, err, store.ErrInvalidKey, c.name)
	}
	// nil slices are empty too.
	err := st.Update(ctx, func(tx store.Tx) error { return tx.Put(nil, b("k"), b("v")) })
	require.ErrorIs(t, err, store.ErrInvalidKey, "nil bucket")
	err = st.Update(ctx, func(tx store.Tx) error { return tx.Put(b("b"), nil, b("v")) })
	require.ErrorIs(t, err, store.ErrInvalidKey, "nil key")

	// A value over MaxValueSize.
	err = st.Update(ctx, func(tx store.Tx) error {
		return tx.Put(b("b"), b("huge"), make([]byte, store.MaxValueSize+1))
	})
	require.ErrorIs(t, err, store.ErrValueTooLarge)

	// A rejected Put writes nothing even when fn carries on and commits.
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		assert.ErrorIs(t, tx.Put(b("b"), b(tooLong), b("v")), store.ErrInvalidKey)
		assert.ErrorIs(t, tx.Put(b("b"), b(""), b("v")), store.ErrInvalidKey)
		return tx.Put(b("b"), b("ok"), b("v"))
	}))
	require.Equal(t, []kv{{"ok", "v"}}, dump(t, st, "b"))
	require.Empty(t, dump(t, st, ""))
}

func (s *suite) testEmptyValue(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		if err := tx.Put(b("b"), b("nil"), nil); err != nil {
			return err
		}
		if err := tx.Put(b("b"), b("empty"), []byte{}); err != nil {
			return err
		}
		v, err := tx.Get(b("b"), b("nil"))
		assert.NoError(t, err, "Get of an empty value inside Update")
		assert.Empty(t, v)
		return nil
	}))
	for _, k := range []string{"nil", "empty"} {
		v, err := get(t, st, "b", k)
		require.NoError(t, err, "an empty value is a value, not a missing key")
		require.Empty(t, v)
	}
	require.Equal(t, []kv{{"empty", ""}, {"nil", ""}}, dump(t, st, "b"))
}

func (s *suite) testValuesAreCopies(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()

	// Enough data that a backend keeps the bucket in pages of its own
	// (bbolt inlines small buckets, and copies them when it reads them).
	want := model{}
	for i := range 16 {
		want[fmt.Sprintf("z-filler-%02d", i)] = strings.Repeat(string(rune('a'+i)), 512)
	}
	putAll(t, st, "b", want.pairs())

	key, val := b("key"), b("value")
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		if err := tx.Put(b("b"), key, val); err != nil {
			return err
		}
		// Mutating the caller's slices after Put changes nothing, even
		// inside the same transaction.
		key[0], val[0] = 'K', 'V'
		got, err := tx.Get(b("b"), b("key"))
		if err != nil {
			return err
		}
		assert.Equal(t, "value", string(got), "value seen inside the tx after mutating Put's slice")
		_, err = tx.Get(b("b"), b("Key"))
		assert.ErrorIs(t, err, store.ErrNotFound, "Put kept the caller's key slice")
		got[0] = 'X' // mutating what Get returned changes nothing either
		got2, err := tx.Get(b("b"), b("key"))
		if err != nil {
			return err
		}
		assert.Equal(t, "value", string(got2), "Get inside Update returned the store's own slice")
		return nil
	}))
	want["key"] = "value"
	requireValue(t, st, "b", "key", "value")
	requireMissing(t, st, "b", "Key")

	// Mutating what Get returns, in View and Update, changes nothing.
	mutateGet := func(tx store.Tx) error {
		for _, k := range []string{"key", "z-filler-03"} {
			got, err := tx.Get(b("b"), b(k))
			if err != nil {
				return err
			}
			got[0] = 'X'
		}
		return nil
	}
	require.NoError(t, st.View(ctx, mutateGet))
	require.NoError(t, st.Update(ctx, mutateGet))
	require.Equal(t, want.pairs(), dump(t, st, "b"))

	// Scan hands out copies too, in View and Update.
	mutateScan := func(tx store.Tx) error {
		return tx.Scan(b("b"), store.ScanOptions{}, func(k, v []byte) (bool, error) {
			k[0], v[0] = 'Z', 'Z'
			return true, nil
		})
	}
	require.NoError(t, st.View(ctx, mutateScan))
	require.NoError(t, st.Update(ctx, mutateScan))
	require.Equal(t, want.pairs(), dump(t, st, "b"))

	// What a finished transaction returned stays valid after later writes
	// reuse the space it came from (bbolt's own slices would not).
	var held []byte
	var heldScan []kv
	var heldKeys, heldValues [][]byte
	require.NoError(t, st.View(ctx, func(tx store.Tx) error {
		var err error
		if held, err = tx.Get(b("b"), b("key")); err != nil {
			return err
		}
		return tx.Scan(b("b"), store.ScanOptions{}, func(k, v []byte) (bool, error) {
			heldKeys, heldValues = append(heldKeys, k), append(heldValues, v)
			heldScan = append(heldScan, kv{string(k), string(v)})
			return true, nil
		})
	}))
	for round := range 6 {
		require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
			for _, p := range want.pairs() {
				if err := tx.Put(b("b"), b(p.K), b(fmt.Sprintf("round %d %s", round, p.V))); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	require.Equal(t, "value", string(held))
	require.Equal(t, want.pairs(), heldScan)
	for i, p := range heldScan {
		require.Equal(t, p.K, string(heldKeys[i]))
		require.Equal(t, p.V, string(heldValues[i]))
	}
}

func (s *suite) testReadYourWrites(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	putAll(t, st, "b", []kv{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"e", "5"}})

	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		for _, err := range []error{
			tx.Put(b("b"), b("b"), b("20")),   // overwrite
			tx.Delete(b("b"), b("c")),         // delete committed
			tx.Put(b("b"), b("d"), b("4")),    // new key between committed ones
			tx.Put(b("b"), b("f"), b("6")),    // new key after all
			tx.Put(b("b"), b("0"), b("0")),    // new key before all
			tx.Put(b("b"), b("x"), b("gone")), // put then delete
			tx.Delete(b("b"), b("x")),
			tx.Delete(b("b"), b("e")), // delete then put again
			tx.Put(b("b"), b("e"), b("50")),
			tx.Put(b("nb"), b("k"), b("new bucket")),
		} {
			if err != nil {
				return err
			}
		}
		want := map[string]string{"0": "0", "a": "1", "b": "20", "d": "4", "e": "50", "f": "6"}
		for k, v := range want {
			got, err := tx.Get(b("b"), b(k))
			if assert.NoError(t, err, "Get(%q) inside Update", k) {
				assert.Equal(t, v, string(got), "Get(%q) inside Update", k)
			}
		}
		for _, k := range []string{"c", "x"} {
			_, err := tx.Get(b("b"), b(k))
			assert.ErrorIs(t, err, store.ErrNotFound, "Get(%q) of a key deleted in this tx", k)
		}
		wantScan := []kv{{"0", "0"}, {"a", "1"}, {"b", "20"}, {"d", "4"}, {"e", "50"}, {"f", "6"}}
		got, err := scanTx(tx, "b", store.ScanOptions{})
		assert.NoError(t, err)
		assert.Equal(t, wantScan, got, "Scan inside Update")
		got, err = scanTx(tx, "b", store.ScanOptions{Reverse: true})
		assert.NoError(t, err)
		assert.Equal(t, reversed(wantScan), got, "reverse Scan inside Update")
		got, err = scanTx(tx, "nb", store.ScanOptions{})
		assert.NoError(t, err)
		assert.Equal(t, []kv{{"k", "new bucket"}}, got, "Scan of a bucket created in this tx")
		v, err := tx.Get(b("nb"), b("k"))
		assert.NoError(t, err)
		assert.Equal(t, "new bucket", string(v))
		return nil
	}))
	require.Equal(t, []kv{{"0", "0"}, {"a", "1"}, {"b", "20"}, {"d", "4"}, {"e", "50"}, {"f", "6"}}, dump(t, st, "b"))
	require.Equal(t, []kv{{"k", "new bucket"}}, dump(t, st, "nb"))
}

func reversed(p []kv) []kv {
	out := make([]kv, len(p))
	for i, x := range p {
		out[len(p)-1-i] = x
	}
	return out
}

func (s *suite) testRollback(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	putAll(t, st, "b", []kv{{"keep", "1"}, {"del", "2"}})
	before := dump(t, st, "b")
	errBoom := errors.New("storetest: boom")

	write := func(tx store.Tx) error {
		for _, err := range []error{
			tx.Put(b("b"), b("new"), b("x")),
			tx.Put(b("b"), b("keep"), b("changed")),
			tx.Delete(b("b"), b("del")),
			tx.Put(b("newbucket"), b("k"), b("v")),
		} {
			if err != nil {
				return err
			}
		}
		return nil
	}

	// fn's error comes back unchanged.
	err := st.Update(ctx, func(tx store.Tx) error {
		if err := write(tx); err != nil {
			return err
		}
		return errBoom
	})
	require.Same(t, errBoom, err, "Update must return fn's error unchanged")
	require.Equal(t, before, dump(t, st, "b"))
	require.Empty(t, dump(t, st, "newbucket"), "a rolled-back Update created a bucket")
	requireMissing(t, st, "newbucket", "k")

	// A wrapped error, and an error returned after a failed Get.
	err = st.Update(ctx, func(tx store.Tx) error {
		if err := write(tx); err != nil {
			return err
		}
		if _, err := tx.Get(b("b"), b("absent")); err != nil {
			return fmt.Errorf("reading absent: %w", err)
		}
		return nil
	})
	require.ErrorIs(t, err, store.ErrNotFound)
	require.Equal(t, before, dump(t, st, "b"))
	require.Empty(t, dump(t, st, "newbucket"))

	// The store still works, and the same writes commit when fn succeeds.
	require.NoError(t, st.Update(ctx, write))
	require.Equal(t, []kv{{"keep", "changed"}, {"new", "x"}}, dump(t, st, "b"))
	require.Equal(t, []kv{{"k", "v"}}, dump(t, st, "newbucket"))
}

// panicValue is what the panic subtests panic with.
type panicValue struct{ msg string }

func (s *suite) testPanic(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	put(t, st, "b", "keep", "1")
	boom := &panicValue{"storetest: panic in fn"}

	catch := func(f func()) (recovered any) {
		defer func() { recovered = recover() }()
		f()
		return nil
	}

	got := catch(func() {
		_ = st.Update(ctx, func(tx store.Tx) error {
			_ = tx.Put(b("b"), b("new"), b("x"))
			_ = tx.Put(b("b"), b("keep"), b("changed"))
			_ = tx.Put(b("pb"), b("k"), b("v"))
			panic(boom)
		})
	})
	require.Same(t, boom, got, "a panic in Update's fn must propagate out of Update")
	require.Equal(t, []kv{{"keep", "1"}}, dump(t, st, "b"))
	require.Empty(t, dump(t, st, "pb"))

	got = catch(func() {
		_ = st.View(ctx, func(tx store.Tx) error { panic(boom) })
	})
	require.Same(t, boom, got, "a panic in View's fn must propagate out of View")

	// The store still works.
	put(t, st, "b", "after", "2")
	require.Equal(t, []kv{{"after", "2"}, {"keep", "1"}}, dump(t, st, "b"))
}

func (s *suite) testViewReadOnly(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	put(t, st, "b", "k", "v")
	errMine := errors.New("storetest: view error")
	err := st.View(ctx, func(tx store.Tx) error {
		assert.ErrorIs(t, tx.Put(b("b"), b("k"), b("changed")), store.ErrReadOnly, "Put in View")
		assert.ErrorIs(t, tx.Put(b("b"), b("new"), b("x")), store.ErrReadOnly, "Put in View")
		assert.ErrorIs(t, tx.Put(b("other"), b("new"), b("x")), store.ErrReadOnly, "Put in View")
		assert.ErrorIs(t, tx.Delete(b("b"), b("k")), store.ErrReadOnly, "Delete in View")
		v, err := tx.Get(b("b"), b("k"))
		assert.NoError(t, err)
		assert.Equal(t, "v", string(v))
		return errMine
	})
	require.ErrorIs(t, err, errMine, "View returns fn's error")
	require.Equal(t, []kv{{"k", "v"}}, dump(t, st, "b"))
	require.Empty(t, dump(t, st, "other"))
}

func (s *suite) testContext(t *testing.T) {
	st := s.open(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	called := false
	err := st.View(ctx, func(store.Tx) error { called = true; return nil })
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, called, "View ran fn with a cancelled context")
	err = st.Update(ctx, func(tx store.Tx) error {
		called = true
		return tx.Put(b("b"), b("k"), b("v"))
	})
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, called, "Update ran fn with a cancelled context")
	requireMissing(t, st, "b", "k")

	dctx, dcancel := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer dcancel()
	err = st.Update(dctx, func(tx store.Tx) error { called = true; return nil })
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, called)

	// A live context works.
	put(t, st, "b", "k", "v")
	requireValue(t, st, "b", "k", "v")
}

func (s *suite) testClose(t *testing.T) {
	st := s.open(t)
	ctx := t.Context()
	put(t, st, "b", "k", "v")
	require.NoError(t, st.Close())
	called := false
	require.ErrorIs(t, st.View(ctx, func(store.Tx) error { called = true; return nil }), store.ErrClosed)
	require.ErrorIs(t, st.Update(ctx, func(store.Tx) error { called = true; return nil }), store.ErrClosed)
	require.False(t, called, "fn ran on a closed store")
	require.ErrorIs(t, st.Close(), store.ErrClosed, "second Close")
}

func (s *suite) testPersistence(t *testing.T) {
	if !s.f.Persistent {
		t.Skip("adapter is not persistent")
	}
	ctx := t.Context()
	dir := t.TempDir()
	st := s.openAt(t, dir)
	putAll(t, st, "b", []kv{{"a", "1"}, {"b", "2"}, {"c", "3"}})
	put(t, st, "other", "k", "v")
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
		if err := tx.Delete(b("b"), b("b")); err != nil {
			return err
		}
		return tx.Put(b("b"), b("a"), b("10"))
	}))
	err := st.Update(ctx, func(tx store.Tx) error {
		_ = tx.Put(b("b"), b("rolled"), b("back"))
		_ = tx.Delete(b("b"), b("c"))
		_ = tx.Put(b("rb"), b("k"), b("v"))
		return errRollback
	})
	require.ErrorIs(t, err, errRollback)
	require.NoError(t, st.Close())

	st = s.openAt(t, dir)
	require.Equal(t, []kv{{"a", "10"}, {"c", "3"}}, dump(t, st, "b"))
	require.Equal(t, []kv{{"k", "v"}}, dump(t, st, "other"))
	require.Empty(t, dump(t, st, "rb"), "a rolled-back Update survived reopen")

	// Write again after reopen, and reopen once more.
	put(t, st, "b", "d", "4")
	require.NoError(t, st.Update(ctx, func(tx store.Tx) error { return tx.Delete(b("other"), b("k")) }))
	require.NoError(t, st.Close())

	st = s.openAt(t, dir)
	require.Equal(t, []kv{{"a", "10"}, {"c", "3"}, {"d", "4"}}, dump(t, st, "b"))
	require.Empty(t, dump(t, st, "other"))
}
