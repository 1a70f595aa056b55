// Package boltstore is the embedded adapter of the storage port: one bbolt
// file on disk, fsync on every commit by default.
//
// Concurrent updates share a disk flush (group commit). Each caller's
// function runs against a write buffer over the shared bbolt transaction; its
// writes join the batch only if it returns nil, so one caller's error never
// rolls back or re-runs another's. Two commit modes exist:
//
//   - CommitPipelined (the default): one committer goroutine takes every
//     update waiting, runs them in one bbolt transaction, commits, and starts
//     on the next batch as soon as the flush ends. A lone caller pays one
//     fsync, never a fixed delay.
//   - CommitBoltBatch: bbolt's own DB.Batch, which waits up to
//     MaxBatchDelay for a batch to fill.
//
// Values returned by Get and passed to Scan are copied out of bbolt's
// memory map, so they stay valid after the transaction.
package boltstore
