// Package pebblestore is the write-heavy embedded adapter of the storage
// port: one pebble (LSM) database directory, where a commit is one
// sequential append to the write-ahead log and one fsync, shared by every
// update that joins it.
//
// Buckets share pebble's one keyspace: a key is stored as
// uvarint(len(bucket)) | bucket | key, so a bucket's keys are contiguous
// and ordered by their own bytes (see keys.go).
//
// # Commits
//
// Three goroutines form a pipeline. The committer runs the functions of
// waiting updates one after another, each over its own write buffer
// (internal/txbuf) layered on one pebble indexed batch, so a later
// function reads the writes of those before it, and one function's error
// or panic drops only its own buffer. It reads through the latest values
// it remembers of the keys it has read and written (the database's latest
// state plus the open batch; only the committer writes, so it can), and
// for other keys through the batch with point lookups that use every
// level's bloom filter. When the batch in flight has settled, it hands the
// open batch to the applier and opens the next at once. The applier
// applies the batch with ApplyNoSyncWait (the batch is in the WAL's buffer
// and the memtable) and takes a snapshot of the state with it; the syncer
// waits for the batch's fsync, publishes the snapshot to Views, and
// answers the batch's callers. So the next updates run while a batch is
// applied and synced, at most one batch is ever applied and not yet
// durable, and a slow fsync makes the next commit larger instead of
// queueing more of them. What commits is a copy of the batch in key order
// with the last write of each key. While the applier applies a batch, the
// next one's Gets are exact (every key it wrote is among the remembered
// values) and a Scan waits until it is applied.
//
// # Durability and visibility
//
// No caller is answered before its batch is durable. Views read the
// snapshot of the last durable batch, never the database's latest state,
// which pebble makes visible before the fsync ends: a View sees a commit
// only once it is durable, and never waits for a writer. The Views of one
// snapshot share what they Get (up to 1,024 keys): a snapshot never
// changes, and requests read the same few keys (an API key, its
// organization, settings) again and again between two commits.
//
// UpdateLazy (store.Lazy) runs its function in the same pipeline, in
// turn with the others, and answers its caller as soon as the function
// has run and its writes are in the open batch: it waits for no apply and
// no fsync. The updates after it read its writes as they read any in the
// open batch, and Views once its batch is durable; its batch reaches the
// WAL before every later one, so a durable commit that read its writes
// makes them durable too. A crash before then loses it, as does the
// failure of its batch, which its caller is not told of.
//
// If a commit fails (pebble's WAL fails to sync, or an apply fails), its
// callers get an error wrapping ErrFailed and the cause, and so does every
// caller of a batch built on it (their functions read its writes). The
// store then refuses every Update with that error: pebble's WAL stays
// broken after a failed sync, and its memtable holds writes that must never
// become durable, so Close does not flush it. Views go on reading the last
// durable state. Close and reopen the store to go on; as with any database,
// a commit whose fsync failed may or may not be found after reopening.
//
// # Operations
//
// Open takes the directory's lock (ErrLocked when another process or Store
// holds it). Memory is about Options.CacheSize plus two memtables, plus
// the committer's remembered values (two generations of about 4 MiB of
// keys and values) and up to 1,024 values per published snapshot. Close
// flushes the memtable to an sstable, so that the next Open replays no
// WAL. Checkpoint writes a consistent copy of a live store (hot
// backup) that Open opens. Values returned by Get and passed to Scan are
// copies.
//
// Calling Update from inside an Update's function deadlocks, as in
// boltstore; calling View there is allowed and reads the last durable
// state, without the writes of the batch being built.
package pebblestore
