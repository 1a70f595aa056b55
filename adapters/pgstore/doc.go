// Package pgstore is the PostgreSQL adapter of the storage port, over a
// pgx v5 connection pool: what a host running several engine instances
// on one database uses.
//
// # Layout
//
// One table, tambala_kv(bucket bytea, key bytea, value bytea, primary
// key (bucket, key)), in the schema of Options.Schema. bytea compares
// bytewise with a shorter key first, which is the port's order, so a scan
// is an index range scan: bounds from ScanOptions.Lower and Upper, ORDER
// BY key (DESC when reversed), read in pages that grow from 32 to 1024
// rows. Each page is read whole before fn sees it, so fn may read
// through the same transaction while scanning. A table
// tambala_schema(version int) holds the schema's version: Migrate creates
// and upgrades the tables (Open runs it) and refuses a schema a newer
// version of this package migrated (ErrSchemaTooNew).
//
// # Transactions
//
// Update runs in a SERIALIZABLE transaction; View in a REPEATABLE READ,
// READ ONLY one (one snapshot, never waiting and never failing to
// serialize). Writes are buffered (internal/txbuf) and sent with the
// COMMIT in one round trip: one INSERT ... ON CONFLICT DO UPDATE and one
// DELETE over arrays (unnest), rows sorted by bucket and key. BEGIN goes
// with the first read, and a key read once is served from memory after
// that, so an update costs one round trip per distinct key read plus one.
// An update whose fn fails still commits its (read-only) transaction, so
// that an error decided on a snapshot that cannot serialize is decided
// again.
//
// Concurrent Views share a transaction (unless Options.NoGroupCommit):
// the Views that begin while one group sends its first round trip form
// the next group, whose snapshot its own first round trip takes, so a
// View still reads what committed before it was called. Their reads go
// together in round trips and Gets of one key share one read; a View's
// context is checked before each of its reads, and the statements run
// under the store's context (Options.StatementTimeout bounds them).
//
// A transaction that fails to serialize or is chosen as a deadlock victim
// (SQLSTATE 40001, 40P01) runs fn again until the retry budget is spent:
// at least Options.MaxRetries times (default 30) and for at least
// Options.RetryFor since Update was called (default 10 s), or until the
// caller's context ends; then Update returns an error wrapping
// store.ErrConflict and the *pgconn.PgError. The budget is time so that
// contention costs latency, never an error, however many attempts a
// loaded machine needs. Other failures are returned wrapped, never retried: a
// connection lost before COMMIT wrote nothing, and the caller may run the
// update again; a connection lost after COMMIT was sent gives an error
// wrapping ErrCommitUnknown. Errors are told apart by SQLSTATE and
// errors.Is, never by their text.
//
// # Contention
//
// Updates that read and write one key from several processes (an
// organization's balance) would fail each other, so a store locks the
// keys that contention showed hot before running any function. The keys
// of a transaction that failed to serialize that it read, found and
// wrote become hot, for as long as transactions keep writing them and
// serialization failures keep coming. Each hot key has a lock row, in the
// reserved bucket "" keyed by a hash of its bucket and key, and a
// transaction's first statement writes the lock rows of all the hot keys
// (INSERT ... ON CONFLICT DO UPDATE, in key order): the transactions of
// every process that write a hot key take turns, each waiting for the
// one before. A transaction that waited for a lock fails to serialize
// when the holder commits, before any function ran, and takes the locks
// again at once in a new transaction, without counting as an attempt. An
// update that failed to serialize runs again with every key the failed
// attempt wrote locked too (SELECT ... FOR UPDATE, values read with it),
// so that it does not fail again for the same reason (without group
// commit, an attempt after one that wrote nothing waits a random backoff
// instead). Contention thus costs time, not errors; the locks are plain
// row locks, which PostgreSQL-compatible distributed databases also take.
//
// # Group commit
//
// By default concurrent Updates share one transaction and one commit
// (Options.NoGroupCommit turns it off). A committer goroutine takes the
// updates waiting (up to Options.MaxBatch) and runs their functions in
// arrival order, each over its own write buffer on top of the writes of
// those before it (a later fn sees earlier fns' writes); it drops the
// buffer of a fn that fails, takes in the updates that arrived meanwhile,
// and commits once. The batch is still one SERIALIZABLE transaction, so
// other processes see it as one serializable writer. If it fails to
// serialize, its updates run again first in the committer's next batch,
// in their order, with the keys it wrote locked (see Contention); each
// counts the failures toward the retry budget (Options.MaxRetries and
// RetryFor). A caller's context is
// checked before each of its reads; the statements themselves run under
// the committer's context, so that one caller giving up cannot abort the
// others' transaction (use Options.StatementTimeout to bound them).
//
// A batch reads first, in the round trip with BEGIN, the keys that the
// functions of each of the last two batches read (an organization, its
// balance, settings), which one after the other would cost a round trip
// each. Before each round, it reads the keys that the round's updates
// named on their contexts (store.WithReadsAhead: a quote written moments
// before, an organization's balances), all in one round trip, so that a
// function finds them read whichever way the round runs. A page of a
// Scan is read once a transaction.
//
// One after the other, a batch would pay a round trip for every key one
// function reads that no function before it read. So when the functions
// of the last rounds read keys of their own (ids checked for use, say),
// the committer runs a round's functions at once, each over the snapshot
// alone, their reads sent together: a round trip goes when each function
// of the round waits for a read or has returned, and concurrent reads of
// one key share one. Then, in order, a function that read a key (or
// scanned a range holding a key) that an earlier function of the batch
// wrote runs again over the batch's writes, its reads now served from
// memory; the others keep their outcome. Every function's outcome is thus
// the one it has when run after those before it. When most reads are of
// keys an earlier function read already (one hot balance), running in
// order costs no round trip, and the committer does that.
//
// Functions check that the ids of the records they create are unused,
// and a function run again most often draws new ones: one round trip
// each, one function after the other. So the committer learns the
// buckets of ids, those where the functions of a round run at once read
// keys of their own only, each missing; a function run in order takes
// the keys of those buckets that the transaction has not read as missing
// without reading them (and a function run again does so too in the
// buckets where the functions of its round read keys of their own only).
// The keys so taken are read together, in one statement, before the
// commit. If one exists, its bucket is a bucket of ids no more, and the
// batch runs again in a new transaction that reads it first (or, if that
// happens twice in a row, every key); its updates count no failure. Reads
// of a bucket of ids do not count in the choice to run a round at once,
// so a batch of updates that read nothing else runs in order, each
// function once, reading only in its first round trip and before the
// commit.
//
// Keys a function names to store.Prefetch before it reads them go in the
// round trip of its next Get, in a round run at once (or a function alone
// in its round while rounds run at once); a function run in order while
// the rounds run in order reads nothing ahead. A function run at once
// takes the keys of the buckets of ids as missing too. An update it
// leaves to the end (store.Defer) is run when the committer takes its
// writes, over the writes of the functions before it, so that a counter
// every function bumps makes none of them run again.
//
// Functions passed to Update run on other goroutines (the committer's, or
// one per function of a round), possibly at the same time as other
// callers' functions, and possibly twice: they must have no effects
// outside tx, must not call t.FailNow (require) in tests, must not wait
// for one another (a round's reads wait for all its functions), and must
// not start a View or Update of the same store (the committer holds a
// connection of the pool).
//
// # Lazy commits
//
// UpdateLazy (store.Lazy) runs its function as Update does, in a
// SERIALIZABLE transaction that may commit with SET LOCAL
// synchronous_commit = off: COMMIT then returns once the commit is
// visible, without waiting for the server to flush its WAL. With group
// commit, lazy updates share the committer's batches with the others, and
// a batch commits so only when all its writes are of lazy updates: one
// that holds an Update's writes waits for the flush. (Batches of lazy
// updates apart measured slower: the committer pays round trips per batch,
// more than the flush spared.) The WAL is flushed in order, so a
// synchronous commit that read a lazy commit's writes makes them durable
// too. Open probes once whether the server accepts the setting (New at the
// first UpdateLazy); on one that refuses it, UpdateLazy commits as Update
// does. Stats.Async counts the asynchronous commits.
//
// # Limits
//
// A bucket and key must fit a btree index entry (about 2.7 KB after
// compression); a longer, incompressible pair fails its Update at commit
// with store.ErrInvalidKey (store.MaxKeySize is 4 KB, so only keys near
// the port's limit can meet this).
//
// # Tests
//
// The tests use the server internal/teststores selects: TAMBALA_PG_URL
// when set (and they fail if it does not answer), otherwise
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable (and they
// are skipped if nothing answers there). Every store a test opens lives
// in a schema of its own, dropped when the test ends.
package pgstore
