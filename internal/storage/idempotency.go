package storage

import (
	"encoding/binary"
	"time"

	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/store"
)

// The decided outcomes of idempotent creates, by scope, and the same
// scopes by the time each was decided (for pruning).
var (
	bucketIdem       = []byte("idempotency")
	bucketIdemByTime = []byte("idempotency.by_time") // decided at (8 bytes) + scope
)

// Idem reads the outcome decided under scope (codec.IdemRecord's
// encoding); store.ErrNotFound when there is none.
func Idem(tx store.Tx, scope string) ([]byte, error) {
	return getByString(tx, bucketIdem, scope)
}

// AppendIdemKey appends the key of the outcome decided under scope, for a
// store that reads it ahead (store.Prefetch).
func AppendIdemKey(dst []store.KeyRef, scope string) []store.KeyRef {
	return append(dst, store.KeyRef{Bucket: bucketIdem, Key: []byte(scope)})
}

// PutIdem writes the outcome decided under scope, unindexed: SaveIdem
// is the create's write; this is for an outcome as an earlier build left
// it.
func PutIdem(tx store.Tx, scope string, b []byte) error {
	s := takeScratch()
	defer s.release()
	s.b = append(s.b, scope...)
	return tx.Put(bucketIdem, s.b, b)
}

// DeleteIdem removes the outcome under scope (not its time index).
func DeleteIdem(tx store.Tx, scope string) error { return tx.Delete(bucketIdem, []byte(scope)) }

// SaveIdem writes the outcome decided under scope at at, and indexes it
// by that time for PruneIdem.
func SaveIdem(tx store.Tx, scope string, at time.Time, b []byte) error {
	if err := PutIdem(tx, scope, b); err != nil {
		return err
	}
	return tx.Put(bucketIdemByTime, idemTimeKey(at, scope), nil)
}

// SaveIdemRecord is SaveIdem of rec encoded with fingerprint sum
// (codec.IdemRecord.Encode), the write of every decided create: its keys
// and record are built in a scratch buffer.
func SaveIdemRecord(tx store.Tx, scope string, at time.Time, rec *codec.IdemRecord, sum [32]byte) error {
	s := takeScratch()
	defer s.release()
	s.b = appendIdemTimeKey(s.b, at, scope)
	n := len(s.b)
	s.b = rec.AppendEncode(s.b, sum)
	// The time key ends with the scope, the outcome's own key.
	if err := tx.Put(bucketIdem, s.b[8:n], s.b[n:]); err != nil {
		return err
	}
	return tx.Put(bucketIdemByTime, s.b[:n], nil)
}

func appendIdemTimeKey(b []byte, t time.Time, scope string) []byte {
	return append(binary.BigEndian.AppendUint64(b, uint64(t.UnixNano())), scope...)
}

func idemTimeKey(t time.Time, scope string) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano()))
	return append(k, scope...)
}

// AnyIdem reports whether the store holds a decided outcome.
func AnyIdem(tx store.Tx) (bool, error) { return anyIn(tx, bucketIdem) }

// PruneIdem deletes up to batch outcomes decided before cutoff, oldest
// first, and reports how many it deleted.
func PruneIdem(tx store.Tx, cutoff time.Time, batch int) (int, error) {
	end := binary.BigEndian.AppendUint64(nil, uint64(cutoff.UnixNano()))
	var keys [][]byte
	err := tx.Scan(bucketIdemByTime, store.ScanOptions{End: end}, func(k, _ []byte) (bool, error) {
		keys = append(keys, k)
		return len(keys) < batch, nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		if err := tx.Delete(bucketIdem, k[8:]); err != nil {
			return 0, err
		}
		if err := tx.Delete(bucketIdemByTime, k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}

// IdemLegacySince is the setting that records when creates in this store
// began to be scoped by operation: the time a build with operation names
// first created in it, or the zero time when it then held no decided
// outcome at all (a new store), which therefore holds none under a legacy
// scope.
var IdemLegacySince = []byte("idempotency.legacy_since")

// IdemNamespaceSince is the setting that records when creates in this
// store began to share one namespace per organization: the time a build
// with it first created in it, or the zero time when it then held no
// decided outcome at all.
var IdemNamespaceSince = []byte("idempotency.namespace_since")
