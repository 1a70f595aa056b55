package tambala

import (
	"encoding/json"
	"errors"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/store"
)

// The engine's buckets. Each record is JSON; secondary indexes are buckets
// the engine maintains in the same transaction as the record.
var (
	bucketOrgs       = []byte("orgs")
	bucketOrgFloors  = []byte("orgs.floor")
	bucketKeys       = []byte("keys")
	bucketKeysByHash = []byte("keys.by_hash")
	bucketKeysByOrg  = []byte("keys.by_org")
	bucketIdem       = []byte("idempotency")
	bucketIdemByTime = []byte("idempotency.by_time")
	bucketSettings   = []byte("settings")
)

// getJSON loads key into v; a missing record is notFound.
func getJSON(tx store.Tx, bucket []byte, key string, v any, notFound error) error {
	b, err := tx.Get(bucket, []byte(key))
	if errors.Is(err, store.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func putJSON(tx store.Tx, bucket []byte, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Put(bucket, []byte(key), b)
}

// indexKey is owner NUL id: per-owner lists in id (creation) order.
func indexKey(owner, id string) []byte {
	k := make([]byte, 0, len(owner)+1+len(id))
	k = append(k, owner...)
	k = append(k, 0)
	return append(k, id...)
}

func indexPrefix(owner string) []byte { return append([]byte(owner), 0) }

var errNotFound = errcode.New(errcode.NotFound)
