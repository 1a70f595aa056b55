package teststores

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/store"
)

// Kind is one store adapter a suite runs on. Every store a Kind opens is
// closed when the test that opened it ends, and its data removed.
type Kind struct {
	// Name is the subtest name Each uses: "memstore", "boltstore" or
	// "pgstore".
	Name string
	// Persistent says a store reopened at the same Location sees what the
	// last one committed.
	Persistent bool
	// MultiInstance says OpenTwo returns two independent handles (two
	// connection pools, as two processes would have); otherwise both are
	// the same store.
	MultiInstance bool

	newLocation func(t testing.TB) string
	openAt      func(t testing.TB, loc string) store.Store
}

// Open opens a fresh, empty store.
func (k Kind) Open(t testing.TB) store.Store {
	t.Helper()
	return k.OpenAt(t, k.NewLocation(t))
}

// NewLocation returns a fresh place for stores of this kind (a file, a
// schema), removed when t ends.
func (k Kind) NewLocation(t testing.TB) string {
	t.Helper()
	return k.newLocation(t)
}

// OpenAt opens a store at loc, which NewLocation returned. For a
// persistent kind a store reopened at loc (after the last one there was
// closed) sees its data; for memstore it is a new empty store.
func (k Kind) OpenAt(t testing.TB, loc string) store.Store {
	t.Helper()
	s := k.openAt(t, loc)
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("teststores: closing %s: %v", k.Name, err)
		}
	})
	return s
}

// OpenTwo opens two handles on one fresh data set, for tests of two
// engines sharing a database. With MultiInstance they are separate stores
// (pgstore: two pools over one schema); otherwise the same store twice,
// since the kind cannot be opened twice at once.
func (k Kind) OpenTwo(t testing.TB) (store.Store, store.Store) {
	t.Helper()
	loc := k.NewLocation(t)
	a := k.OpenAt(t, loc)
	if !k.MultiInstance {
		return a, a
	}
	return a, k.OpenAt(t, loc)
}

// Memstore is the in-memory kind.
func Memstore() Kind {
	return Kind{
		Name:        "memstore",
		newLocation: func(testing.TB) string { return "" },
		openAt:      func(testing.TB, string) store.Store { return memstore.New() },
	}
}

// Boltstore is the bbolt kind: a file in t.TempDir() with opts (nil:
// NoSync, for speed; fsync changes nothing a test can observe).
func Boltstore(opts *boltstore.Options) Kind {
	o := boltstore.Options{NoSync: true}
	if opts != nil {
		o = *opts
	}
	return Kind{
		Name:        "boltstore",
		Persistent:  true,
		newLocation: func(t testing.TB) string { return filepath.Join(t.TempDir(), "db.bolt") },
		openAt: func(t testing.TB, loc string) store.Store {
			t.Helper()
			oo := o
			s, err := boltstore.Open(loc, &oo)
			if err != nil {
				t.Fatalf("teststores: %v", err)
			}
			return s
		},
	}
}

// Pgstore is the PostgreSQL kind: each location is a schema of its own on
// the server PGURL selects (skipping or failing the test that opens one by
// its rule), dropped when the test ends. opts may be nil; its Schema is
// replaced by the location's.
func Pgstore(opts *pgstore.Options) Kind {
	var o pgstore.Options
	if opts != nil {
		o = *opts
	}
	return Kind{
		Name:          "pgstore",
		Persistent:    true,
		MultiInstance: true,
		newLocation: func(t testing.TB) string {
			t.Helper()
			_, schema := NewPGSchema(t)
			return schema
		},
		openAt: func(t testing.TB, loc string) store.Store {
			t.Helper()
			oo := o
			oo.Schema = loc
			s, err := pgstore.Open(t.Context(), PGURL(t), &oo)
			if err != nil {
				t.Fatalf("teststores: %v", err)
			}
			return s
		},
	}
}

// All returns the kinds a suite runs on: memstore, boltstore and, when
// the rule of PGURL lets it run, pgstore (with EnvPGURL set and no server
// answering, it fails t).
func All(t testing.TB) []Kind {
	t.Helper()
	kinds := []Kind{Memstore(), Boltstore(nil)}
	if PGAvailable(t) {
		kinds = append(kinds, Pgstore(nil))
	} else {
		t.Logf("teststores: no PostgreSQL at %s; the pgstore arm does not run (set %s to require it)", DefaultPGURL, EnvPGURL)
	}
	return kinds
}

// Each runs fn as a subtest per kind, named after it: memstore, boltstore
// and pgstore. The pgstore subtest is skipped, or fails, by the rule of
// PGURL.
func Each(t *testing.T, fn func(t *testing.T, k Kind)) {
	t.Helper()
	for _, k := range []Kind{Memstore(), Boltstore(nil), Pgstore(nil)} {
		t.Run(k.Name, func(t *testing.T) {
			if k.Name == "pgstore" {
				PGURL(t)
			}
			fn(t, k)
		})
	}
}
