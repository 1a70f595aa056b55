package pebblestore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLatestValuesGenerations(t *testing.T) {
	l := newLatestValues(10)
	get := func(k string) (string, bool, bool) {
		v, ok := l.get([]byte(k))
		return string(v.value), v.present, ok
	}
	l.remember([]byte("a"), []byte("1"), true)
	l.remember([]byte("gone"), nil, false)
	v, present, ok := get("a")
	require.True(t, ok)
	require.True(t, present)
	require.Equal(t, "1", v)
	_, present, ok = get("gone")
	require.True(t, ok, "absence is remembered too")
	require.False(t, present)

	// Full, but nothing turns until the committer says so, between batches.
	l.remember([]byte("bbbbbbbbbb"), []byte("2"), true)
	require.Len(t, l.old, 0)
	l.turn()
	require.Len(t, l.young, 0)
	require.Len(t, l.old, 3)

	// A hit in the old generation moves the entry to the young one; a
	// newer value in the young one shadows the old one's.
	_, _, ok = get("a")
	require.True(t, ok)
	require.Contains(t, l.young, "a")
	l.remember([]byte("gone"), []byte("back"), true)
	v, present, _ = get("gone")
	require.True(t, present)
	require.Equal(t, "back", v)

	// The next turn drops what was neither read nor written since.
	l.remember([]byte("cccccccccc"), []byte("3"), true)
	l.turn()
	_, _, ok = get("bbbbbbbbbb")
	require.False(t, ok)
	v, _, ok = get("gone")
	require.True(t, ok)
	require.Equal(t, "back", v, "the shadowed old value went with its generation")

	l.forget()
	for _, k := range []string{"a", "gone", "cccccccccc"} {
		_, _, ok = get(k)
		require.False(t, ok, k)
	}
}
