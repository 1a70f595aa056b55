package store

// Deferred is an update of one key left to the end of the function that
// made it: it gets the key's value then (found false when it is missing)
// and returns the value to store. It must not keep old.
type Deferred func(old []byte, found bool) ([]byte, error)

// Deferrer is implemented by a transaction that can leave the update of
// a key to the end of its function: a counter that every command bumps
// (payouts accepted today, on a rail), which functions run at once would
// otherwise all read and write, so that all but the first would run
// again after it. A store that runs the functions of many commands at
// once in one transaction (pgstore's group commit) applies each
// function's deferred updates when it takes that function's writes, in
// order, over the writes before: as if the function had read and written
// the key as its last step.
//
// So a function must neither read nor write a key it defers otherwise:
// it would read the value before its update, or have its write updated.
// Other functions may read and write the key as any: each sees the
// updates deferred by the functions before it.
type Deferrer interface {
	// Defer takes update to run at the end of the function, and reports
	// true; or takes nothing and reports false, when the transaction does
	// not defer here (a function run alone, in order): the caller then
	// updates the key at once. An error of update fails the function,
	// with nothing of it written, as an error it returned would. The
	// transaction keeps no reference to bucket and key.
	Defer(bucket, key []byte, update Deferred) bool
}

// Defer passes update to tx's Defer when tx is a Deferrer and reports
// whether it took it; false means the caller updates the key at once.
func Defer(tx Tx, bucket, key []byte, update Deferred) bool {
	if d, ok := tx.(Deferrer); ok {
		return d.Defer(bucket, key, update)
	}
	return false
}
