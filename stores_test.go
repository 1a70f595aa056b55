package tambala_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
)

// eachStore runs fn once per store adapter, each on a fresh store that is
// closed when the subtest ends: the engine suites are parameterised by
// store rather than copied per adapter.
//
// memstore, boltstore and pgstore come from internal/teststores (pgstore
// in a schema of its own, skipped only when no PostgreSQL answers and
// TAMBALA_PG_URL is unset); pebblestore is added here.
func eachStore(t *testing.T, fn func(t *testing.T, s store.Store)) {
	t.Helper()
	teststores.Each(t, func(t *testing.T, k teststores.Kind) { fn(t, k.Open(t)) })
	for _, a := range []struct {
		name string
		open func(t *testing.T) store.Store
	}{
		{"pebblestore", func(t *testing.T) store.Store {
			s, err := pebblestore.Open(t.TempDir(), &pebblestore.Options{NoSync: true, CacheSize: 8 << 20, MemTableSize: 4 << 20})
			require.NoError(t, err)
			return s
		}},
	} {
		t.Run(a.name, func(t *testing.T) {
			s := a.open(t)
			t.Cleanup(func() { _ = s.Close() })
			fn(t, s)
		})
	}
}

// eachStoreKind is eachStore for suites that need many fresh stores (a
// rapid property opens one per case): fn gets the adapter's name and an
// open function; each store it opens is closed when t ends, or earlier by
// the caller.
func eachStoreKind(t *testing.T, fn func(t *testing.T, name string, open func() store.Store)) {
	t.Helper()
	teststores.Each(t, func(t *testing.T, k teststores.Kind) {
		fn(t, k.Name, func() store.Store { return k.Open(t) })
	})
	t.Run("pebblestore", func(t *testing.T) {
		fn(t, "pebblestore", func() store.Store {
			s, err := pebblestore.Open(t.TempDir(), &pebblestore.Options{NoSync: true, CacheSize: 8 << 20, MemTableSize: 4 << 20})
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			return s
		})
	})
}

// rapidCases bounds how many cases of a rapid property run on a store
// that is slow to open or to check (a PostgreSQL schema per case): the
// first n cases run, the rest pass at once. memstore runs them all.
func rapidCases(name string) int {
	switch name {
	case "memstore":
		return 1 << 30
	case "pgstore":
		return 15
	default:
		return 40
	}
}
