// Package txbuf is the write buffer the storage adapters share: a read-write
// transaction's Puts and Deletes are kept in memory over a read-only base
// until the caller's function returns nil, and only then applied to the
// backend. A function that fails therefore leaves nothing behind, and a
// group commit can drop one caller's writes without re-running the others.
package txbuf
