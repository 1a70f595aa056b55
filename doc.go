// Package tambala is an embeddable payments engine: MWK payouts to banks and
// mobile-money wallets, balances per organization and asset in a
// double-entry ledger, API keys, idempotency, pagination, rate limits and the
// operator's side (organizations, keys, allowlists, pause switches).
//
// A host creates an Engine over a store.Store (adapters/boltstore embedded,
// adapters/memstore for tests) and calls it; adapters/httpapi is the HTTP
// binding of the reference API, and examples/server a runnable sandbox.
//
// Every use case is one storage transaction: the state change, its ledger
// postings, its idempotency record and its outbox rows commit together or
// not at all. Errors carry stable codes (package errcode).
package tambala
