// Package boltstore is the embedded adapter of the storage port: one bbolt
// file on disk, fsync on every commit by default.
//
// Concurrent updates share a disk flush (group commit). Each caller's
// function runs against a write buffer over the shared bbolt transaction; its
// writes join the batch only if it returns nil, so one caller's error never
// rolls back or re-runs another's. Two commit modes exist:
//
//   - CommitPipelined (the default): two goroutines form a pipeline. The
//     executor takes every update waiting and runs their functions over a
//     read transaction plus the writes of the batch still being committed;
//     the writer commits each batch's merged writes in one bbolt
//     transaction, fsyncs, and answers its callers. Running the next batch
//     overlaps the flush of the last, and a lone caller pays one fsync,
//     never a fixed delay. No caller is answered before its batch is
//     durable; if a commit fails, the batch that read its writes fails too.
//   - CommitBoltBatch: bbolt's own DB.Batch, which waits up to
//     MaxBatchDelay for a batch to fill.
//
// UpdateLazy (store.Lazy) runs in the pipeline like any update and answers
// its caller once its function has run into the open batch, without
// waiting for the batch's commit and fsync; the commit still fsyncs, for
// bbolt cannot skip the fsync of one commit without risking the file (its
// meta page could reach the disk before the pages it points to). So a
// lazy commit spares its caller the wait, not the disk its flush; a crash
// before the batch commits, or the failure of that commit, loses it. In
// CommitBoltBatch mode it is Update.
//
// Values returned by Get and passed to Scan are copied out of bbolt's
// memory map, so they stay valid after the transaction.
package boltstore
