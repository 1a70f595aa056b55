package tambala_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/store"
)

// eachStore runs fn once per store adapter, each on a fresh store that is
// closed when the subtest ends: the engine suites are parameterised by
// store rather than copied per adapter.
func eachStore(t *testing.T, fn func(t *testing.T, s store.Store)) {
	t.Helper()
	for _, a := range []struct {
		name string
		open func(t *testing.T) store.Store
	}{
		{"memstore", func(*testing.T) store.Store { return memstore.New() }},
		{"boltstore", func(t *testing.T) store.Store {
			s, err := boltstore.Open(filepath.Join(t.TempDir(), "db"), &boltstore.Options{NoSync: true})
			require.NoError(t, err)
			return s
		}},
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
