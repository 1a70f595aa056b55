package store

import (
	"context"
	"errors"
)

// Sentinel errors owned by the port. Adapters translate their backend's errors
// into these; callers match them with errors.Is, never by string.
var (
	// ErrNotFound is returned by Tx.Get when the key (or its bucket) does not exist.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict is returned by Update when a write conflict could not be
	// resolved by re-running the transaction.
	ErrConflict = errors.New("store: write conflict")
	// ErrClosed is returned by every call on a store after Close.
	ErrClosed = errors.New("store: closed")
	// ErrReadOnly is returned by Put and Delete inside View.
	ErrReadOnly = errors.New("store: read-only transaction")
	// ErrInvalidKey is returned by Put for an empty bucket name, an empty key or
	// a key longer than MaxKeySize.
	ErrInvalidKey = errors.New("store: invalid key")
	// ErrValueTooLarge is returned by Put for a value longer than MaxValueSize.
	ErrValueTooLarge = errors.New("store: value too large")
)

// Size limits every adapter accepts; a Put beyond them fails with
// ErrInvalidKey or ErrValueTooLarge before anything is written.
const (
	MaxKeySize   = 4096
	MaxValueSize = 64 << 20
)

// Store is a transactional, ordered key-value store.
type Store interface {
	// View runs fn in a read-only transaction that sees a consistent snapshot
	// of committed data.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction. It commits when fn returns
	// nil and rolls back otherwise, returning fn's error unchanged. It may run
	// fn again after a write conflict, so fn must have no effects outside tx.
	// Writers are serializable: the result is as if the transactions ran one
	// after the other.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the store. Calls after Close return ErrClosed.
	Close() error
}

// Tx is a transaction. It is valid only inside the function it was passed to
// and must not be used from several goroutines at once. A read-write Tx sees
// its own writes.
type Tx interface {
	// Get returns a copy of the value under key, or ErrNotFound. Get and
	// Delete read bucket and key only while they run: the caller may reuse
	// them afterwards (the engine builds keys in reused buffers).
	Get(bucket, key []byte) ([]byte, error)
	// Put stores value under key, creating the bucket when needed. The store
	// keeps its own copy of key and value.
	Put(bucket, key, value []byte) error
	// Delete removes key; deleting a missing key is not an error.
	Delete(bucket, key []byte) error
	// Scan visits the keys of bucket between the options' bounds in ascending
	// (or, with Reverse, descending) byte order until fn returns more=false or
	// an error, which Scan returns. A missing bucket has no keys. The slices
	// passed to fn are copies owned by fn. fn must not write to the bucket
	// being scanned.
	Scan(bucket []byte, opt ScanOptions, fn func(key, value []byte) (more bool, err error)) error
}

// ScanOptions bound a scan. Keys k visited satisfy Start <= k < End and start
// with Prefix; a nil bound is open.
type ScanOptions struct {
	Start   []byte // inclusive lower bound
	End     []byte // exclusive upper bound
	Prefix  []byte // only keys with this prefix
	Reverse bool   // visit from the highest key down
}

// InRange reports whether key satisfies the options' bounds. Adapters use it
// so that every adapter agrees on the bounds.
func (o ScanOptions) InRange(key []byte) bool {
	if o.Start != nil && string(key) < string(o.Start) {
		return false
	}
	if o.End != nil && string(key) >= string(o.End) {
		return false
	}
	if o.Prefix != nil && (len(key) < len(o.Prefix) || string(key[:len(o.Prefix)]) != string(o.Prefix)) {
		return false
	}
	return true
}

// Lower returns the smallest key the scan may visit (nil for no bound).
func (o ScanOptions) Lower() []byte {
	if o.Prefix != nil && (o.Start == nil || string(o.Prefix) > string(o.Start)) {
		return o.Prefix
	}
	return o.Start
}

// Upper returns the exclusive upper limit of the scan (nil for no bound).
func (o ScanOptions) Upper() []byte {
	if o.Prefix == nil {
		return o.End
	}
	pe := PrefixEnd(o.Prefix)
	if pe == nil || (o.End != nil && string(o.End) < string(pe)) {
		return o.End
	}
	return pe
}

// PrefixEnd returns the smallest key greater than every key with prefix p, or
// nil when there is none (p is all 0xff).
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// CheckPut validates a Put's arguments against the port's limits.
func CheckPut(bucket, key, value []byte) error {
	if len(bucket) == 0 || len(bucket) > MaxKeySize || len(key) == 0 || len(key) > MaxKeySize {
		return ErrInvalidKey
	}
	if len(value) > MaxValueSize {
		return ErrValueTooLarge
	}
	return nil
}

// CheckKey validates a Get or Delete key.
func CheckKey(bucket, key []byte) error {
	if len(bucket) == 0 || len(key) == 0 {
		return ErrInvalidKey
	}
	return nil
}
