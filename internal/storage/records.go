package storage

import (
	"encoding/json"
	"errors"

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
	k := make([]byte, 0, len(owner)+1+len(id))
	k = append(k, owner...)
	k = append(k, 0)
	return append(k, id...)
}

// IndexPrefix is the prefix of owner's index keys.
func IndexPrefix(owner string) []byte { return append([]byte(owner), 0) }
