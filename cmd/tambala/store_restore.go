package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tambalapay/tambala/cmd/tambala/internal/server"
	"github.com/tambalapay/tambala/ledger"
)

func restore(ctx context.Context, c *cli, args []string) error {
	fs := c.flags("FILE", "Restores FILE, a copy tambala backup wrote (or GET /admin/backup sent),\n"+
		"into the store -data and -store name, which must be empty:\n"+
		"  bbolt (a bbolt file): DATA/tambala.bolt, in a data folder that is\n"+
		"    missing or empty (an admin-token file may be there already).\n"+
		"  pebble (a tar of a checkpoint): the pebble directory (-store pebble:\n"+
		"    DATA/pebble, or pebble:DIR), missing or empty.\n"+
		"The copy is written under a temporary name, synced and renamed; then\n"+
		"it is opened and its ledger checked. Start the server on it with the\n"+
		"same -data and -store. The copy keeps its admin token's hash, so the\n"+
		"server answers the same token; copy DATA/admin-token along to have it\n"+
		"at hand.\n"+
		"A PostgreSQL store is refused: restore it with pg_restore (the command\n"+
		"prints the lines; docs/operations-backup.md).")
	o := c.storeFlags(fs)
	rest, err := c.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	file := rest[0]
	loc, err := o.locate()
	if err != nil {
		return err
	}
	if loc.Kind == server.StorePostgres {
		return errors.New(pgRestoreHelp(loc.Path, file))
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	kind := sniffBackup(head[:n])
	switch {
	case kind == "pg_dump":
		return fmt.Errorf("%s is a pg_dump archive: %s", file, pgRestoreHelp("postgres://HOST/NEWDB?search_path=SCHEMA", file))
	case kind == "":
		return fmt.Errorf("%s is not a tambala backup (neither a bbolt file nor a tar of a pebble checkpoint)", file)
	case kind != loc.Kind && kind == server.StorePebble:
		return usagef("%s is a backup of a pebble store (a tar of a checkpoint): restore it with -store pebble (or pebble:DIR)", file)
	case kind != loc.Kind:
		return usagef("%s is a backup of a bbolt store: restore it with -store empty (bbolt, the default)", file)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	switch kind {
	case server.StoreBolt:
		if err := emptyFolder(o.data, "admin-token"); err != nil {
			return err
		}
		if err := os.MkdirAll(o.data, 0o700); err != nil {
			return err
		}
		if _, err := server.WriteNewFile(loc.Path, func(w io.Writer) (int64, error) { return io.Copy(w, f) }); err != nil {
			return err
		}
	case server.StorePebble:
		if err := emptyFolder(loc.Path); err != nil {
			return err
		}
		if err := untarDir(f, loc.Path); err != nil {
			return fmt.Errorf("unpacking %s: %w", file, err)
		}
	}
	// Open what was restored, as the server will, and check its ledger.
	st, desc, err := server.OpenStore(ctx, o.data, o.store)
	if err != nil {
		os.RemoveAll(loc.Path) // the target was empty: leave it so
		return fmt.Errorf("the restored copy does not open (removed again): %w", err)
	}
	checkErr := ledger.CheckStore(ctx, st)
	if err := st.Close(); err != nil {
		return err
	}
	serve := "tambala serve -data " + shellLine([]string{o.data})
	if o.store != "" {
		serve += " -store " + shellLine([]string{o.store})
	}
	fmt.Fprintf(c.stdout, "Restored %s into %s.\n", file, desc)
	if checkErr != nil {
		fmt.Fprintf(c.stdout, "The restored ledger breaks its invariants:\n%v\n", checkErr)
		return exitStatus(1)
	}
	_, err = fmt.Fprintf(c.stdout, "Its ledger checks. Start the server on it: %s\n"+
		"(it answers the admin token of the store it was copied from: put that DATA/admin-token in %s to have it at hand)\n", serve, o.data)
	return err
}

// sniffBackup tells the kind of a backup by its first bytes: server.StoreBolt
// (a bbolt file), server.StorePebble (a tar), "pg_dump" (a pg_dump custom
// archive), or "".
func sniffBackup(head []byte) string {
	switch {
	case len(head) >= 20 && binary.LittleEndian.Uint32(head[16:20]) == boltMagic,
		len(head) >= 20 && binary.BigEndian.Uint32(head[16:20]) == boltMagic:
		return server.StoreBolt
	case len(head) >= 262 && bytes.Equal(head[257:262], []byte("ustar")):
		return server.StorePebble
	case bytes.HasPrefix(head, []byte("PGDMP")):
		return "pg_dump"
	}
	return ""
}

// boltMagic starts a bbolt file's meta page, after its 16-byte page header.
const boltMagic = 0xED0CDAED

// emptyFolder returns an error unless dir is missing or holds nothing
// but the names allowed.
func emptyFolder(dir string, allowed ...string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		ok := false
		for _, a := range allowed {
			ok = ok || e.Name() == a
		}
		if !ok {
			return fmt.Errorf("%s is not empty (it holds %s): restore into a new folder, never over a store", dir, e.Name())
		}
	}
	return nil
}

// untarDir unpacks the tar r into dir (missing or empty): into a
// temporary directory beside it, every file synced, then renamed to dir.
func untarDir(r io.Reader, dir string) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".restore-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after the rename, nothing is there
	tr := tar.NewReader(r)
	files := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(h.Name) {
			return fmt.Errorf("the tar names %q, outside its directory", h.Name)
		}
		path := filepath.Join(tmp, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o700); err != nil {
				return err
			}
			continue
		case tar.TypeReg:
		default:
			return fmt.Errorf("the tar holds %q, not a file", h.Name)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		files++
	}
	if files == 0 {
		return errors.New("the tar holds no files")
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err // not empty after all
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	return syncDir(parent)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
