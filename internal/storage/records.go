package storage

import (
	"encoding/json"
	"errors"

	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/store"
)

// GetJSON loads key into v; a missing record is notFound.
func GetJSON(tx store.Tx, bucket []byte, key string, v any, notFound error) error {
	b, err := tx.Get(bucket, []byte(key))
	if errors.Is(err, store.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// PutJSON stores v as JSON at key.
func PutJSON(tx store.Tx, bucket []byte, key string, v any) error {
	b, err := Encode(v)
	if err != nil {
		return err
	}
	return tx.Put(bucket, []byte(key), b)
}

// IndexKey is owner NUL id: per-owner lists in id (creation) order.
func IndexKey(owner, id string) []byte {
	return appendIndexKey(make([]byte, 0, len(owner)+1+len(id)), owner, id)
}

// appendIndexKey appends IndexKey(owner, id) to b.
func appendIndexKey(b []byte, owner, id string) []byte {
	return append(append(append(b, owner...), 0), id...)
}

// lendByString is getByString through lend.Get: the caller must not
// modify the value.
func lendByString(tx store.Tx, bucket []byte, key string) ([]byte, error) {
	s := takeScratch()
	defer s.release()
	s.b = append(s.b, key...)
	return lend.Get(tx, bucket, s.b)
}

// getByString is tx.Get of a key held as a string, built in a scratch
// buffer rather than converted (which allocates for an interface call).
func getByString(tx store.Tx, bucket []byte, key string) ([]byte, error) {
	s := takeScratch()
	defer s.release()
	s.b = append(s.b, key...)
	return tx.Get(bucket, s.b)
}

// IndexPrefix is the prefix of owner's index keys.
func IndexPrefix(owner string) []byte { return append([]byte(owner), 0) }
