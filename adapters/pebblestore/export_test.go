package pebblestore

import (
	"context"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// WithFS makes Open use fs instead of the operating system's filesystem.
func WithFS(o *Options, fs vfs.FS) { o.fs = fs }

// SetCommitHook makes the syncer call fn after each batch is durable and
// before its callers are answered; an error fails the batch as a failed
// fsync would. Set it before the first Update.
func (s *Store) SetCommitHook(fn func(seq int64, updates int) error) { s.commitHook = fn }

// Compact compacts the whole keyspace (benchmarks measure the directory
// before and after).
func (s *Store) Compact(ctx context.Context) error {
	if err := s.db.Flush(); err != nil {
		return err
	}
	return s.db.Compact(ctx, []byte{0}, []byte{0xff, 0xff, 0xff, 0xff}, true)
}

// Metrics returns pebble's metrics.
func (s *Store) Metrics() *pebble.Metrics { return s.db.Metrics() }

// SetLatestBytes bounds each generation of the committer's remembered
// values to n bytes (tests make it small so that generations turn often).
// Call it before the first Update.
func (s *Store) SetLatestBytes(n int) { s.latest.maxBytes = n }
