// Package lend reads a stored value without copying it, from the
// transactions that can lend one, for the reads of every request that
// only decode the value (balances, counters, the window sum, the cached
// organization): the port's Get returns a copy its caller owns, one
// allocation per read.
package lend

// Lender is a store.Tx that can lend the value under a key instead of
// copying it. A lender never writes to bytes it lent (its values are
// replaced, never changed in place), so they stay valid; but they are
// the store's: a borrower must never modify them.
type Lender interface {
	Lend(bucket, key []byte) ([]byte, error)
}

// Getter is the read of a store.Tx (or of what a transaction buffer
// reads through).
type Getter interface {
	Get(bucket, key []byte) ([]byte, error)
}

// Get is tx's value under key (store.ErrNotFound when none): lent when tx
// is a Lender, else tx.Get's copy. The caller must not modify it.
func Get(tx Getter, bucket, key []byte) ([]byte, error) {
	if l, ok := tx.(Lender); ok {
		return l.Lend(bucket, key)
	}
	return tx.Get(bucket, key)
}
