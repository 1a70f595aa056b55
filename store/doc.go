// Package store is the storage port of the engine: a transactional, ordered
// key-value store with closure transactions, modelled on bbolt's API.
//
// Everything the engine keeps (payouts, orders, quotes, keys, idempotency
// records, outbox rows, ledger balances and journal) is encoded by the engine
// and written through this port, so that one storage transaction holds a state
// change together with its ledger postings, its idempotency record and its
// outbox event. Adapters (adapters/memstore, adapters/boltstore, ...) only
// store bytes; they never interpret them.
//
// A store may also commit without waiting for durability (Lazy), for what
// a crash may lose harmlessly; UpdateLazy falls back to Update on a store
// that cannot. A transaction may also be told keys it will read
// (Prefetcher), which a store over the network reads in one round trip,
// and may leave the update of a counter every command bumps to the end
// of the function (Deferrer), so that functions a store runs at once do
// not conflict over it; Prefetch and Defer fall back to nothing and to an
// update made at once. An Update's context may name keys it will read
// before its transaction starts (WithReadsAhead), which a store that runs
// many updates together (AheadReader) reads for all of them at once.
//
// Every adapter must pass the conformance suite in store/storetest.
package store
