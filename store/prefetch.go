package store

import "context"

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

// AheadReader is implemented by a store that reads the keys named on an
// Update's context (WithReadsAhead) before the update's function runs,
// with those of the updates it runs together, in one round trip. A
// caller asks (ReadsAheadOf) before it builds keys to name, so that a
// store that does not read them costs nothing.
type AheadReader interface {
	// ReadsAhead reports whether the store reads the keys named on an
	// Update's context.
	ReadsAhead() bool
}

// ReadsAheadOf reports whether s reads the keys named on an Update's
// context (an AheadReader that says so).
func ReadsAheadOf(s Store) bool {
	a, ok := s.(AheadReader)
	return ok && a.ReadsAhead()
}

type readsAheadKey struct{}

// WithReadsAhead returns ctx naming keys that an Update run under it
// reads: keys the caller knows before the transaction starts (a quote's,
// an organization's, an idempotency outcome's). A store that reads ahead
// (AheadReader) may read them before the function runs, together with
// those named by the updates it runs with it, in one round trip: a
// function run after another then finds them read. As Prefetch, it is a
// hint that changes no result; name only keys the function reads anyway.
// The keys named on ctx already stay named. The store reads the keys'
// bytes while the Update runs: the caller leaves them unchanged until it
// returns.
func WithReadsAhead(ctx context.Context, keys ...KeyRef) context.Context {
	if len(keys) == 0 {
		return ctx
	}
	prev := ReadsAhead(ctx)
	return context.WithValue(ctx, readsAheadKey{}, append(prev[:len(prev):len(prev)], keys...))
}

// ReadsAhead returns the keys named on ctx (WithReadsAhead).
func ReadsAhead(ctx context.Context) []KeyRef {
	keys, _ := ctx.Value(readsAheadKey{}).([]KeyRef)
	return keys
}
