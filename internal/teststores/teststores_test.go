package teststores

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/store"
)

func put(t testing.TB, s store.Store, key, value string) {
	t.Helper()
	require.NoError(t, s.Update(t.Context(), func(tx store.Tx) error {
		return tx.Put([]byte("b"), []byte(key), []byte(value))
	}))
}

func get(t testing.TB, s store.Store, key string) (string, error) {
	t.Helper()
	var v []byte
	var gerr error
	require.NoError(t, s.View(t.Context(), func(tx store.Tx) error {
		v, gerr = tx.Get([]byte("b"), []byte(key))
		return nil
	}))
	return string(v), gerr
}

func TestEach(t *testing.T) {
	var mu sync.Mutex
	var ran []string
	Each(t, func(t *testing.T, k Kind) {
		mu.Lock()
		ran = append(ran, k.Name)
		mu.Unlock()

		// Fresh stores are empty and apart.
		a, b := k.Open(t), k.Open(t)
		put(t, a, "k", "a")
		_, err := get(t, b, "k")
		require.ErrorIs(t, err, store.ErrNotFound, "two fresh stores share data")

		// Two handles on one data set see each other's commits.
		x, y := k.OpenTwo(t)
		put(t, x, "k", "x")
		v, err := get(t, y, "k")
		require.NoError(t, err)
		require.Equal(t, "x", v)
		require.Equal(t, k.MultiInstance, x != y)

		// Reopening a location.
		loc := k.NewLocation(t)
		s := k.OpenAt(t, loc)
		put(t, s, "k", "kept")
		require.NoError(t, s.Close())
		s = k.OpenAt(t, loc)
		v, err = get(t, s, "k")
		if k.Persistent {
			require.NoError(t, err)
			require.Equal(t, "kept", v)
		} else {
			require.ErrorIs(t, err, store.ErrNotFound)
		}
	})
	require.Contains(t, ran, "memstore")
	require.Contains(t, ran, "boltstore")
	if PGAvailable(t) {
		require.Contains(t, ran, "pgstore")
	}
}

func TestAll(t *testing.T) {
	kinds := All(t)
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name
	}
	want := []string{"memstore", "boltstore"}
	if PGAvailable(t) {
		want = append(want, "pgstore")
	}
	require.Equal(t, want, names)
}

// TestSchemaDropped checks that a pgstore location is dropped, with its
// data, when the test that made it ends.
func TestSchemaDropped(t *testing.T) {
	url := PGURL(t)
	var schema string
	t.Run("inner", func(t *testing.T) {
		schema = Pgstore(nil).NewLocation(t)
		s := Pgstore(nil).OpenAt(t, schema)
		put(t, s, "k", "v")
	})
	conn, err := pgx.Connect(t.Context(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var exists bool
	require.NoError(t, conn.QueryRow(t.Context(), "SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists))
	require.False(t, exists, "schema %s outlived its test", schema)
}

func TestAvailabilityRule(t *testing.T) {
	down := errors.New("connection refused")
	env := func(v string, set bool) func(string) (string, bool) {
		return func(name string) (string, bool) {
			assert.Equal(t, EnvPGURL, name)
			return v, set
		}
	}
	probeWith := func(err error) func(string) error {
		return func(string) error { return err }
	}
	const custom = "postgres://ci@db:5432/tambala"
	for _, c := range []struct {
		name    string
		env     func(string) (string, bool)
		err     error
		wantURL string
		want    action
	}{
		{"unset, answering", env("", false), nil, DefaultPGURL, run},
		{"unset, down: skip", env("", false), down, DefaultPGURL, skip},
		{"empty is unset", env("", true), down, DefaultPGURL, skip},
		{"set, answering", env(custom, true), nil, custom, run},
		{"set, down: fail", env(custom, true), down, custom, fail},
	} {
		url, v := availability(c.env, probeWith(c.err))
		require.Equal(t, c.wantURL, url, c.name)
		require.Equal(t, c.want, v.action, c.name)
		if c.want != run {
			require.Contains(t, v.message, EnvPGURL, c.name)
		}
	}
	// A real probe of a port nothing listens on fails.
	require.Error(t, probe(fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", 1)))
}
