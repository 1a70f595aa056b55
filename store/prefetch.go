package store

// KeyRef names one key of one bucket.
type KeyRef struct {
	Bucket, Key []byte
}

// Prefetcher is implemented by a transaction that can read several keys
// in one go, and gains by it: a store over the network (PostgreSQL),
// where every read the function waits for is a round trip, and reads
// asked for together share one. A function that knows, before its first
// Get, keys it will read (an organization's record and balances) names
// them through Prefetch; its Gets of them find them read.
//
// Prefetch is a hint. It changes no result of the transaction: a key
// prefetched and never read is as if it had not been named (its read
// adds no conflict the function's own reads would not), and a read that
// fails fails the Get of that key, or the transaction, as a Get would.
// Name only keys the function reads anyway.
type Prefetcher interface {
	// Prefetch starts reading keys, without waiting for them: the next
	// Get that waits for the server sends them in its round trip. The
	// transaction keeps no reference to keys after it returns. It reports
	// whether the transaction reads ahead at all; a wrapper over one that
	// does not reports false, and called with no keys Prefetch only
	// answers, so that a caller builds its keys only when they are used.
	Prefetch(keys []KeyRef) bool
}

// Prefetch passes keys to tx's Prefetch when tx is a Prefetcher, and
// reports whether tx reads ahead (false when it is not a Prefetcher).
// With no keys it only answers.
func Prefetch(tx Tx, keys []KeyRef) bool {
	if p, ok := tx.(Prefetcher); ok {
		return p.Prefetch(keys)
	}
	return false
}
