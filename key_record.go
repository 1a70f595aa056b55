package tambala

import (
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// toKeyRecord is the stored form of r.
func toKeyRecord(r keyRecord) codec.KeyRecord {
	k := r.APIKey
	return codec.KeyRecord{ID: k.ID, Org: k.Org, Prefix: k.Prefix, Environment: string(k.Environment),
		CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt, Hash: r.Hash}
}

// fromKeyRecord reads a stored key back.
func fromKeyRecord(r codec.KeyRecord) keyRecord {
	return keyRecord{APIKey: APIKey{ID: r.ID, Org: r.Org, Prefix: r.Prefix, Environment: Environment(r.Environment),
		CreatedAt: r.CreatedAt, RevokedAt: r.RevokedAt}, Hash: r.Hash}
}

// decodeKey decodes a stored key.
func decodeKey(raw []byte) (keyRecord, error) {
	r, err := cache.DecodeJSON[codec.KeyRecord](raw)
	return fromKeyRecord(r), err
}

// loadKey reads key id into rec; a missing one is notFound.
func loadKey(tx store.Tx, id string, rec *keyRecord, notFound error) error {
	var r codec.KeyRecord
	if err := storage.GetJSON(tx, bucketKeys, id, &r, notFound); err != nil {
		return err
	}
	*rec = fromKeyRecord(r)
	return nil
}
