package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
)

// backupData is -backup FILE: a consistent copy of the store, written to
// a new FILE, taken without a server (BackupStore). A running server
// holds the store's lock, so then the copy must come through that
// server's admin API; backupData says how.
func backupData(ctx context.Context, c config, out io.Writer) error {
	hint := fmt.Sprintf("take the copy through that server's admin API instead:\n"+
		"  tambala backup -from http://%s %s\n"+
		"  (or curl -fsS -H \"Authorization: Bearer $(cat %s)\" -o %s http://%s/admin/backup)\n"+
		"(%s is this command's -admin-addr; use the running server's)",
		c.adminAddr, c.backup, filepath.Join(c.data, "admin-token"), c.backup, c.adminAddr, c.adminAddr)
	if err := BackupStore(ctx, c.data, c.store, c.backup, hint, out); err != nil {
		return fmt.Errorf("-backup: %w", err)
	}
	return nil
}

// ErrPostgresBackup refuses a backup or restore of a PostgreSQL store:
// PostgreSQL's own tools do it (pg_dump, pg_restore).
var ErrPostgresBackup = errors.New("a PostgreSQL store is backed up and restored with PostgreSQL's own tools")

// ErrInUse is wrapped by BackupStore's error when a server holds the store.
var ErrInUse = errors.New("in use by another tambala process")

// BackupStore writes a consistent copy of the store of the data folder
// data and the -store flag store to file, which must not exist, taken
// without a server: a bbolt store's file as is (boltstore.BackupFile,
// opened read-only), a pebble store's checkpoint as a tar
// (pebblestore.Store.Backup). The copy is written beside file under a
// temporary name, synced, then renamed, so a file that exists is whole.
// When a server holds the store the error wraps ErrInUse and ends with
// inUseHint (how to take the copy through that server); a PostgreSQL
// store is refused with ErrPostgresBackup. A line saying what was written
// goes to out.
func BackupStore(ctx context.Context, data, store, file, inUseHint string, out io.Writer) error {
	loc, err := LocateStore(data, store)
	if err != nil {
		return err
	}
	if loc.Kind == StorePostgres {
		return ErrPostgresBackup
	}
	if _, err := os.Lstat(file); err == nil {
		return fmt.Errorf("%s: the file exists; name a new file", file)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if ok, err := loc.Exists(); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("no database in data folder %s (no %s store at %s): nothing to back up", data, loc.Kind, loc.Path)
	}
	inUse := func(what string) error {
		return fmt.Errorf("%s is %w (%s): %s", loc.Path, ErrInUse, what, inUseHint)
	}
	var write func(w io.Writer) (int64, error)
	switch loc.Kind {
	case StoreBolt:
		write = func(w io.Writer) (int64, error) {
			n, err := boltstore.BackupFile(ctx, loc.Path, w, 2*time.Second)
			if boltstore.Locked(err) {
				return n, inUse("bbolt lock on " + loc.Path)
			}
			return n, err
		}
	case StorePebble:
		p, err := pebblestore.Open(loc.Path, nil)
		if errors.Is(err, pebblestore.ErrLocked) {
			return inUse("pebble lock")
		}
		if err != nil {
			return err
		}
		defer p.Close()
		write = func(w io.Writer) (int64, error) { return p.Backup(ctx, w) }
	}
	n, err := WriteNewFile(file, write)
	if err != nil {
		return err
	}
	restore := "tambala restore -data NEWDATA " + file
	if loc.Kind == StorePebble {
		restore = "tambala restore -data NEWDATA -store pebble " + file
	}
	fmt.Fprintf(out, "Backup of %s written to %s (%d bytes). Restore: %s\n", loc.Desc(), file, n, restore)
	return nil
}

// WriteNewFile writes file, which must not exist, with write: to a
// temporary file beside it, synced, then renamed to file (without
// replacing one made meanwhile), and the folder synced. It returns what
// write returned; on any error nothing is left behind.
func WriteNewFile(file string, write func(io.Writer) (int64, error)) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name()) // after the link, the temporary name only
	n, err := write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	// A hard link, unlike a rename, never replaces a file made since the
	// check: the copy could otherwise replace a live database.
	if err := os.Link(tmp.Name(), file); errors.Is(err, os.ErrExist) {
		return n, fmt.Errorf("%s: the file exists; name a new file", file)
	} else if err != nil {
		// A filesystem without hard links: rename, after checking again.
		if _, serr := os.Lstat(file); serr == nil {
			return n, fmt.Errorf("%s: the file exists; name a new file", file)
		}
		if err := os.Rename(tmp.Name(), file); err != nil {
			return n, err
		}
	}
	if d, err := os.Open(filepath.Dir(file)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return n, nil
}
