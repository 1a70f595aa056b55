package storage

import (
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/lend"
	"github.com/tambalapay/tambala/store"
)

// The API keys: by id, by the hash of the key (Authenticate) and by
// organization.
var (
	bucketKeys       = []byte("keys")
	bucketKeysByHash = []byte("keys.by_hash") // SHA-256 of the key -> key id
	bucketKeysByOrg  = []byte("keys.by_org")  // org NUL key id
)

// LoadKey reads key id; a missing one is notFound.
func LoadKey(tx store.Tx, id string, notFound error) (codec.KeyRecord, error) {
	var r codec.KeyRecord
	err := GetJSON(tx, bucketKeys, id, &r, notFound)
	return r, err
}

// CachedKey reads key id through c, decoding with decode (the value is
// shared: read it, never change it); a missing one is notFound.
func CachedKey[T any](tx store.Tx, id string, c *cache.Records[T], notFound error, decode func([]byte) (T, error)) (T, error) {
	return cache.Get(tx, bucketKeys, id, c, notFound, decode)
}

// SaveNewKey writes a new key and its indexes: by hash, the SHA-256 of the
// key itself, and by organization.
func SaveNewKey(tx store.Tx, r codec.KeyRecord, hash [32]byte) error {
	if err := SaveKey(tx, r); err != nil {
		return err
	}
	if err := tx.Put(bucketKeysByHash, hash[:], []byte(r.ID)); err != nil {
		return err
	}
	return tx.Put(bucketKeysByOrg, IndexKey(r.Org, r.ID), nil)
}

// SaveKey writes a key already indexed (a revocation).
func SaveKey(tx store.Tx, r codec.KeyRecord) error { return PutJSON(tx, bucketKeys, r.ID, r) }

// KeyIDByHash is the id of the key whose SHA-256 is hash;
// store.ErrNotFound when there is none.
func KeyIDByHash(tx store.Tx, hash [32]byte) (string, error) {
	id, err := lend.Get(tx, bucketKeysByHash, hash[:]) // copied into the string
	return string(id), err
}

// AppendKeyKey appends the key of the API key id's record, for a store
// that reads it ahead (store.Prefetch).
func AppendKeyKey(dst []store.KeyRef, id string) []store.KeyRef {
	return append(dst, store.KeyRef{Bucket: bucketKeys, Key: []byte(id)})
}

// KeyIDsByOrg lists the ids of org's keys, oldest first.
func KeyIDsByOrg(tx store.Tx, org string) ([]string, error) {
	var ids []string
	err := tx.Scan(bucketKeysByOrg, store.ScanOptions{Prefix: IndexPrefix(org)}, func(k, _ []byte) (bool, error) {
		ids = append(ids, string(k[len(org)+1:]))
		return true, nil
	})
	return ids, err
}
