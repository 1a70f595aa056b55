package store

import "context"

// Lazy is implemented by a store that can commit a read-write transaction
// without waiting for it to be durable. The engine writes through it what
// a crash may lose harmlessly: a quote, whose loss makes it as unknown as
// an expired one. It finds it with a type assertion, through UpdateLazy.
type Lazy interface {
	// UpdateLazy runs fn as Update does: a read-write transaction with
	// Update's isolation, serializable with every Update and UpdateLazy,
	// that commits when fn returns nil and rolls back otherwise, returning
	// fn's error unchanged, and that may run fn again after a conflict.
	// It differs in one way only: it may return before the commit is
	// durable, so a crash, or the failure of the commit it joined, may
	// lose it, and its caller is not told.
	//
	// Once it has returned, every Update and UpdateLazy begun later sees
	// its writes; a View sees them once they are durable, at the latest
	// once an Update begun after UpdateLazy returned has returned. A commit
	// that read its writes and is durable is never found after a crash
	// without it: what a lazy commit loses, no durable commit relies on.
	UpdateLazy(ctx context.Context, fn func(Tx) error) error
}

// UpdateLazy runs fn through s's UpdateLazy when s is Lazy, and through
// its Update otherwise: a store that cannot commit without waiting for
// durability commits durably, which a lazy commit may always do.
func UpdateLazy(ctx context.Context, s Store, fn func(Tx) error) error {
	if l, ok := s.(Lazy); ok {
		return l.UpdateLazy(ctx, fn)
	}
	return s.Update(ctx, fn)
}
