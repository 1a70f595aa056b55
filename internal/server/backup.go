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
)

// backupData is -backup FILE: a consistent copy of the data folder's
// database, written to a new FILE, taken without a server. A running
// server holds the database's lock, so then the copy must come through
// that server's admin API; backupData says how.
func backupData(ctx context.Context, c config, out io.Writer) error {
	src := dbFile(c.data)
	if _, err := os.Lstat(c.backup); err == nil {
		return fmt.Errorf("-backup %s: the file exists; name a new file", c.backup)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("-backup: %w", err)
	}
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("-backup: no database in data folder %s: %w", c.data, err)
	}
	// Written beside FILE under a temporary name, synced, then renamed: a
	// FILE that exists is a whole copy.
	tmp, err := os.CreateTemp(filepath.Dir(c.backup), "."+filepath.Base(c.backup)+".tmp-*")
	if err != nil {
		return fmt.Errorf("-backup: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	n, err := boltstore.BackupFile(ctx, src, tmp, 2*time.Second)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if boltstore.Locked(err) {
		return fmt.Errorf("data folder %s is in use by another tambala process (bbolt lock on %s): "+
			"take the copy through that server's admin API instead:\n"+
			"  curl -fsS -H \"Authorization: Bearer $(cat %s)\" -o %s http://%s/admin/backup\n"+
			"(%s is this command's -admin-addr; use the running server's)",
			c.data, src, filepath.Join(c.data, "admin-token"), c.backup, c.adminAddr, c.adminAddr)
	}
	if err != nil {
		return fmt.Errorf("-backup: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.backup); err != nil {
		return fmt.Errorf("-backup: %w", err)
	}
	fmt.Fprintf(out, "Backup of %s written to %s (%d bytes). Restore: put it as tambala.bolt in a data folder and start the server there.\n", src, c.backup, n)
	return nil
}
