package pebblestore

import (
	"archive/tar"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database to w while the store
// stays in use, as a tar stream of a checkpoint (Checkpoint into a
// temporary directory beside the database, removed afterwards). Restore by
// unpacking it into an empty directory and opening that directory:
//
//	mkdir /srv/tambala/pebble-restored && tar -xf backup.tar -C /srv/tambala/pebble-restored
//
// It returns the bytes written. The copy holds every update acknowledged
// before Backup was called.
func (s *Store) Backup(ctx context.Context, w io.Writer) (int64, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(s.dir), ".backup-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	cp := filepath.Join(tmp, "checkpoint")
	if err := s.Checkpoint(cp); err != nil {
		return 0, err
	}
	cw := &countingWriter{w: w}
	tw := tar.NewWriter(cw)
	err = filepath.WalkDir(cp, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(cp, path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o600, Size: info.Size(), ModTime: info.ModTime()}); err != nil {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return cw.n, err
	}
	return cw.n, tw.Close()
}

// BackupName is the file name of Backup's copy, a tar (the admin API's
// backup names its attachment so; tambala restore -store pebble takes it).
func (s *Store) BackupName() string { return "tambala-pebble.tar" }

// Layout is the version of the on-disk layout this build reads and
// writes: Open records it in a new database and refuses one of another
// layout.
const Layout = formatVersion

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
