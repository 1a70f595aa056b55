package tambala

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala/apikeys"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// APIKey is a stored key. The key itself is never stored, only its hash;
// Prefix (its first 16 characters) is all that is ever shown again.
type APIKey struct {
	ID          string
	Org         string
	Prefix      string
	Environment Environment
	CreatedAt   time.Time
	RevokedAt   *time.Time
}

// Active reports whether the key has not been revoked.
func (k APIKey) Active() bool { return k.RevokedAt == nil }

// keyRecord is a stored key; its stored form is codec.KeyRecord.
type keyRecord struct {
	APIKey
	Hash string // hex SHA-256 of the key
}

// createKey is Operator.CreateKey.
func (e *Engine) createKey(ctx context.Context, orgID string) (full string, key APIKey, err error) {
	full, rec, hash, err := e.newKey(orgID)
	if err != nil {
		return "", APIKey{}, err
	}
	err = e.store.Update(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		keys, err := orgKeys(tx, orgID)
		if err != nil {
			return err
		}
		active := 0
		for _, k := range keys {
			if k.Active() {
				active++
			}
		}
		if active >= e.limits.MaxActiveKeys {
			return errcode.Newf(errcode.Conflict, "the organization already has %d active keys; revoke one first", active)
		}
		if err := putKey(tx, &rec, hash); err != nil {
			return err
		}
		return e.auditAs(ctx, tx, orgID, AuditKeyCreated, rec.ID, "key "+rec.Prefix+" created")
	})
	if err != nil {
		return "", APIKey{}, err
	}
	return full, rec.APIKey, nil
}

// newKey makes a key for orgID in the engine's environment: the full key,
// its record and its hash (nothing is written).
func (e *Engine) newKey(orgID string) (string, keyRecord, [32]byte, error) {
	random := make([]byte, apikeys.RandomBytes)
	if _, err := io.ReadFull(e.random, random); err != nil {
		return "", keyRecord{}, [32]byte{}, err
	}
	full, err := apikeys.Format(random)
	if err != nil {
		return "", keyRecord{}, [32]byte{}, err
	}
	h := apikeys.Hash(full)
	return full, keyRecord{
		APIKey: APIKey{ID: e.newID(), Org: orgID, Prefix: apikeys.Display(full), Environment: e.env, CreatedAt: e.nowUTC()},
		Hash:   hex.EncodeToString(h[:]),
	}, h, nil
}

// putKey writes a key's record and its indexes.
func putKey(tx store.Tx, rec *keyRecord, hash [32]byte) error {
	if err := storage.PutJSON(tx, bucketKeys, rec.ID, toKeyRecord(*rec)); err != nil {
		return err
	}
	if err := tx.Put(bucketKeysByHash, hash[:], []byte(rec.ID)); err != nil {
		return err
	}
	return tx.Put(bucketKeysByOrg, storage.IndexKey(rec.Org, rec.ID), nil)
}

func orgKeys(tx store.Tx, orgID string) ([]APIKey, error) {
	var out []APIKey
	err := tx.Scan(bucketKeysByOrg, store.ScanOptions{Prefix: storage.IndexPrefix(orgID)}, func(k, _ []byte) (bool, error) {
		var rec keyRecord
		if err := loadKey(tx, string(k[len(orgID)+1:]), &rec, errNotFound); err != nil {
			return false, err
		}
		out = append(out, rec.APIKey)
		return true, nil
	})
	return out, err
}

// keys is Operator.Keys.
func (e *Engine) keys(ctx context.Context, orgID string) ([]APIKey, error) {
	var out []APIKey
	err := e.store.View(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		var err error
		out, err = orgKeys(tx, orgID)
		return err
	})
	return out, err
}

// revokeKey is Operator.RevokeKey.
func (e *Engine) revokeKey(ctx context.Context, orgID, idOrPrefix string) (APIKey, error) {
	var out APIKey
	err := e.store.Update(ctx, func(tx store.Tx) error {
		keys, err := orgKeys(tx, orgID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if k.ID != idOrPrefix && k.Prefix != idOrPrefix {
				continue
			}
			var rec keyRecord
			if err := loadKey(tx, k.ID, &rec, errNotFound); err != nil {
				return err
			}
			if rec.RevokedAt == nil {
				now := e.nowUTC()
				rec.RevokedAt = &now
				if err := storage.PutJSON(tx, bucketKeys, rec.ID, toKeyRecord(rec)); err != nil {
					return err
				}
				if err := e.auditAs(ctx, tx, orgID, AuditKeyRevoked, rec.ID, "key "+rec.Prefix+" revoked"); err != nil {
					return err
				}
			}
			out = rec.APIKey
			return nil
		}
		return errNotFound
	})
	return out, err
}

var errUnauthorized = errcode.New(errcode.Unauthorized)

// Authenticate resolves an API key to the Principal it acts for. A
// missing, malformed, revoked or unknown key, or one made in the other
// environment, is unauthorized; a suspended organization is forbidden.
// The organization's IP allowlist is the transport's to check
// (Organization.Allows), since only it knows the caller's address.
func (e *Engine) Authenticate(ctx context.Context, key string) (_ Principal, err error) {
	ctx, span := e.startSpan(ctx, "tambala.Authenticate", trace.SpanKindInternal)
	defer span.end(&err) // the key is never an attribute
	if apikeys.Parse(key) != nil {
		return Principal{}, errUnauthorized
	}
	h := apikeys.Hash(key)
	var p Principal
	err = e.store.View(ctx, func(tx store.Tx) error {
		id, err := tx.Get(bucketKeysByHash, h[:])
		if errors.Is(err, store.ErrNotFound) {
			return errUnauthorized
		}
		if err != nil {
			return err
		}
		rec, err := cache.Get(tx, bucketKeys, string(id), &e.cachedKeys, errUnauthorized, decodeKey)
		if err != nil {
			return err
		}
		stored, err := hex.DecodeString(rec.Hash)
		if err != nil || !apikeys.Equal(stored, h[:]) || !rec.Active() || rec.Environment != e.env {
			return errUnauthorized
		}
		org, err := e.cachedOrg(tx, rec.Org, errUnauthorized)
		if err != nil {
			return err
		}
		if p, err = e.principal(tx, org); err != nil {
			return err
		}
		p.Key = rec.APIKey
		return nil
	})
	if err != nil {
		return Principal{}, err
	}
	return p, nil
}
