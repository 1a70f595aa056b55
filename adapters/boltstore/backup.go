package boltstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/tambalapay/tambala/store"
)

// Backup writes a consistent copy of the whole database to w while the
// store serves, and returns the bytes written. The copy is one bbolt read
// transaction (Tx.WriteTo): the state after one commit, with every update
// answered before Backup was called, and it is itself a bbolt file that
// Open takes as is (restore: put it where the store's file goes).
//
// Reads and commits go on meanwhile, but bbolt cannot grow the file's
// memory map while a read transaction is open, so a commit that needs the
// file to grow waits until the copy is done: write the copy somewhere
// fast (a local file, a loopback connection), not over a slow link. When
// ctx ends the copy stops with ctx's error; a copy that returns an error
// is incomplete.
func (s *Store) Backup(ctx context.Context, w io.Writer) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return 0, store.ErrClosed
	}
	return backup(ctx, s.db, w)
}

// BackupName is the file name of Backup's copy, a bbolt file (the admin
// API's backup names its attachment so).
func (s *Store) BackupName() string { return "tambala.bolt" }

func backup(ctx context.Context, db *bolt.DB, w io.Writer) (int64, error) {
	var n int64
	err := db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(ctxWriter{ctx: ctx, w: w})
		return err
	})
	return n, translate(err)
}

// ctxWriter stops a copy once its context ends.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// BackupFile writes a consistent copy of the bbolt file at path to w
// without a Store: it opens the file read-only, never creating or changing
// it. A process that has the file open as a Store (a running server) holds
// its lock; BackupFile waits up to timeout for it and then fails with an
// error Locked reports: take such a database's copy through that process
// instead (its Store.Backup). A missing file is an error that wraps
// os.ErrNotExist.
func BackupFile(ctx context.Context, path string, w io.Writer, timeout time.Duration) (int64, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("boltstore: %w", err)
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return 0, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	n, err := backup(ctx, db, w)
	return n, errors.Join(err, db.Close())
}

// Locked reports whether err is Open's or BackupFile's failure to take the
// file's lock in time: another process has the database open.
func Locked(err error) bool { return errors.Is(err, berrors.ErrTimeout) }
