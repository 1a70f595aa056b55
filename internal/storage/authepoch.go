package storage

import (
	"bytes"

	"github.com/tambalapay/tambala/store"
)

// The authentication epoch: one counter that every update writing a
// record Authenticate reads (an API key, its index by hash, an
// organization, a setting such as the pause switches) advances in the
// same transaction. Authenticate keeps what it found by a key's hash with
// the epoch it read; while the epoch and the key's own record are
// unchanged, what it found still holds, on every instance sharing the
// store.
var (
	bucketAuthEpoch = []byte("auth.epoch")
	authEpochKey    = []byte("n")
)

// ReadByAuthentication reports whether bucket holds records Authenticate
// reads: a write there must advance the epoch (AdvanceAuthEpoch).
func ReadByAuthentication(bucket []byte) bool {
	return bytes.Equal(bucket, bucketKeys) || bytes.Equal(bucket, bucketKeysByHash) ||
		bytes.Equal(bucket, bucketOrgs) || bytes.Equal(bucket, bucketSettings)
}

// AuthEpoch reads the authentication epoch; 0 before the first advance.
func AuthEpoch(tx store.Tx) (int64, error) { return readCountAt(tx, bucketAuthEpoch, authEpochKey) }

// AdvanceAuthEpoch advances the authentication epoch in tx: a deferred
// update where the store takes one (store.Defer), so that updates run at
// once do not all read it.
func AdvanceAuthEpoch(tx store.Tx) error {
	if store.Defer(tx, bucketAuthEpoch, authEpochKey, addOne) {
		return nil
	}
	s := takeScratch()
	defer s.release()
	s.b = append(s.b, authEpochKey...)
	return s.addCountAt(tx, bucketAuthEpoch, len(authEpochKey), 1)
}

// AppendAuthEpochKey appends the key of the authentication epoch, for a
// store that reads it ahead (store.Prefetch).
func AppendAuthEpochKey(dst []store.KeyRef) []store.KeyRef {
	return append(dst, store.KeyRef{Bucket: bucketAuthEpoch, Key: bytes.Clone(authEpochKey)})
}
