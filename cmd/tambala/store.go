package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/cmd/tambala/internal/server"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/store"
)

// storeCommands work on a store directly (no server running on it).
var storeCommands = []command{
	{"migrate", "create or upgrade the store's schema, and print its version", migrate},
	{"ledger check", "check the ledger's invariants over a store no server is using", ledgerCheck},
	{"backup", "write a consistent copy of a bbolt or pebble store to a new file (offline, or -from a running server)", backup},
	{"restore", "restore a backup into an empty data folder (or pebble directory) for a server to start on", restore},
}

// storeOptions are the flags naming a store, as tambala serve takes them.
type storeOptions struct {
	data  string // -data
	store string // -store
}

// storeFlags declares -data and -store on fs, defaulting from
// TAMBALA_DATA and TAMBALA_STORE like tambala serve.
func (c *cli) storeFlags(fs *flag.FlagSet) *storeOptions {
	o := &storeOptions{}
	defData := c.getenv("TAMBALA_DATA")
	if defData == "" {
		defData = "data"
	}
	fs.StringVar(&o.data, "data", defData, "the data folder: the bbolt database (tambala.bolt), the default pebble directory (pebble) and the admin token (env TAMBALA_DATA)")
	fs.StringVar(&o.store, "store", c.getenv("TAMBALA_STORE"), "the store: empty for bbolt in the data folder, pebble or pebble:DIR (DIR default DATA/pebble), or a postgres:// URL (env TAMBALA_STORE)")
	return o
}

// locate says where the options' store lives.
func (o *storeOptions) locate() (server.StoreLocation, error) {
	loc, err := server.LocateStore(o.data, o.store)
	if err != nil {
		return loc, usagef("%v", err)
	}
	return loc, nil
}

// openExisting opens the options' store, refusing a bbolt or pebble store
// that is not there (opening would create an empty one).
func (o *storeOptions) openExisting(ctx context.Context) (store.Store, server.StoreLocation, error) {
	loc, err := o.locate()
	if err != nil {
		return nil, loc, err
	}
	if ok, err := loc.Exists(); err != nil {
		return nil, loc, err
	} else if !ok {
		return nil, loc, fmt.Errorf("no %s store at %s (check -data and -store)", loc.Kind, loc.Path)
	}
	st, _, err := server.OpenStore(ctx, o.data, o.store)
	return st, loc, err
}

func migrate(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("", "Opens the store -data and -store name, as tambala serve would, and creates\n"+
		"or upgrades its schema:\n"+
		"  PostgreSQL: the store's tables in the URL's schema (search_path),\n"+
		"    created or migrated to this build's version; a schema a newer\n"+
		"    build migrated is refused.\n"+
		"  pebble: the directory's layout version is recorded in a new\n"+
		"    database and checked in an existing one (no other layout is read).\n"+
		"  bbolt: the file is created if missing; bbolt keeps no schema\n"+
		"    version (its buckets are made as they are first written).\n"+
		"tambala serve does the same at every start: migrate lets a deployment\n"+
		"run it first, on its own. Refused while a server holds a bbolt or\n"+
		"pebble store; safe beside running servers on PostgreSQL.")
	o := c.storeFlags(fs)
	if _, err := c.parse(fs, args, 0, 0); err != nil {
		return err
	}
	loc, err := o.locate()
	if err != nil {
		return err
	}
	existed, err := loc.Exists()
	if err != nil {
		return err
	}
	before := 0
	if loc.Kind == server.StorePostgres {
		if before, err = server.PostgresVersion(ctx, loc.Path); err != nil {
			return err
		}
	} else if err := os.MkdirAll(o.data, 0o700); err != nil {
		return err
	}
	st, desc, err := server.OpenStore(ctx, o.data, o.store)
	if errors.Is(err, pgstore.ErrSchemaTooNew) {
		return fmt.Errorf("%v: upgrade tambala to the version that migrated it", err)
	}
	if err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	switch loc.Kind {
	case server.StorePostgres:
		switch {
		case before == pgstore.SchemaVersion:
			_, err = fmt.Fprintf(c.stdout, "%s: schema at version %d, the current one: nothing to do.\n", desc, before)
		case before == 0:
			_, err = fmt.Fprintf(c.stdout, "%s: schema created at version %d.\n", desc, pgstore.SchemaVersion)
		default:
			_, err = fmt.Fprintf(c.stdout, "%s: schema upgraded from version %d to %d.\n", desc, before, pgstore.SchemaVersion)
		}
	case server.StorePebble:
		what := "layout checked"
		if !existed {
			what = "created"
		}
		_, err = fmt.Fprintf(c.stdout, "%s: %s, layout %s.\n", desc, what, pebblestore.Layout)
	default:
		what := "opened: nothing to migrate"
		if !existed {
			what = "created"
		}
		_, err = fmt.Fprintf(c.stdout, "%s: %s (bbolt keeps no schema version; buckets are made when first written).\n", desc, what)
	}
	return err
}

func ledgerCheck(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("", "Checks every invariant of the ledger over the store -data and -store\n"+
		"name, in one read transaction: each entry balances per asset, each\n"+
		"stored balance equals the sum of its postings, no customer account is\n"+
		"negative, held accounts equal their open holds, reversals are paired.\n"+
		"Prints a summary and exits 0 when they hold; prints each violation and\n"+
		"exits 1 when one does not. A bbolt or pebble store must not be in use\n"+
		"by a server (stop it, or check a restored copy of a backup).")
	o := c.storeFlags(fs)
	if _, err := c.parse(fs, args, 0, 0); err != nil {
		return err
	}
	st, loc, err := o.openExisting(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	var snap ledger.Snapshot
	if err := st.View(ctx, func(tx store.Tx) error {
		var err error
		snap, err = ledger.ReadSnapshot(tx)
		return err
	}); err != nil {
		return fmt.Errorf("reading the ledger: %w", err)
	}
	open := 0
	for _, h := range snap.Holds {
		if h.Open {
			open++
		}
	}
	summary := fmt.Sprintf("%d entries, %d accounts, %d holds (%d open), %d reversals", len(snap.Entries), len(snap.Balances), len(snap.Holds), open, len(snap.Reversals))
	err = ledger.Check(snap)
	var ce *ledger.CheckError
	if errors.As(err, &ce) {
		fmt.Fprintf(c.stdout, "Ledger of %s: %s.\n%d violations:\n", loc.Desc(), summary, len(ce.Problems))
		for _, p := range ce.Problems {
			fmt.Fprintf(c.stdout, "  %s\n", p)
		}
		fmt.Fprintf(c.stderr, "tambala %s: the ledger breaks its invariants (%d violations)\n", c.name, len(ce.Problems))
		return exitStatus(1)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "Ledger of %s: %s. Every invariant holds.\n", loc.Desc(), summary)
	return err
}
