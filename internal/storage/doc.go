// Package storage owns how the engine's records sit in the store: every
// bucket, key and secondary index, and the conversion between a record as
// stored and the value a use case works with. A use case calls the typed
// load, save and list functions here in its own transaction; it never
// names a bucket.
//
// The record types and their byte-exact encodings live in internal/codec;
// this package decides where they are kept. Secondary indexes are written
// in the same transaction as the record they point to.
package storage
