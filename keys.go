package tambala

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"sync"

	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala/apikeys"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// APIKey is a stored key. The key itself is never stored, only its hash;
// Prefix (its first 16 characters) is all that is ever shown again
// (package apikeys).
type APIKey = apikeys.Key

// createKey is Operator.CreateKey: the key made, then in one transaction
// the organization read, the cap on active keys checked (apikeys.CheckCap),
// the key stored and the change audited.
func (e *Engine) createKey(ctx context.Context, orgID string) (full string, key APIKey, err error) {
	nk, err := e.newKey(orgID)
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
		if err := apikeys.CheckCap(apikeys.CountActive(keys), e.limits.MaxActiveKeys); err != nil {
			return err
		}
		if err := putKey(tx, nk); err != nil {
			return err
		}
		return e.auditAs(ctx, tx, orgID, AuditKeyCreated, nk.rec.ID, "key "+nk.rec.Prefix+" created")
	})
	if err != nil {
		return "", APIKey{}, err
	}
	return nk.full, nk.rec.APIKey, nil
}

// madeKey is a key made for an organization and not yet stored: the full
// key (shown once), its record and its hash.
type madeKey struct {
	full string
	rec  keyRecord
	hash [32]byte
}

// newKey makes a key for orgID in the engine's environment (nothing is
// written).
func (e *Engine) newKey(orgID string) (madeKey, error) {
	random := make([]byte, apikeys.RandomBytes)
	if _, err := io.ReadFull(e.random, random); err != nil {
		return madeKey{}, err
	}
	full, err := apikeys.Format(random)
	if err != nil {
		return madeKey{}, err
	}
	h := apikeys.Hash(full)
	return madeKey{full: full, rec: keyRecord{
		APIKey: APIKey{ID: e.newID(), Org: orgID, Prefix: apikeys.Display(full), Environment: e.env, CreatedAt: e.nowUTC()},
		Hash:   hex.EncodeToString(h[:]),
	}, hash: h}, nil
}

// putKey writes a new key's record and its indexes.
func putKey(tx store.Tx, nk madeKey) error {
	return storage.SaveNewKey(tx, toKeyRecord(nk.rec), nk.hash)
}

// orgKeys lists orgID's keys, oldest first.
func orgKeys(tx store.Tx, orgID string) ([]APIKey, error) {
	ids, err := storage.KeyIDsByOrg(tx, orgID)
	if err != nil {
		return nil, err
	}
	var out []APIKey
	for _, id := range ids {
		var rec keyRecord
		if err := loadKey(tx, id, &rec, errNotFound); err != nil {
			return nil, err
		}
		out = append(out, rec.APIKey)
	}
	return out, nil
}

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
	r, err := storage.LoadKey(tx, id, notFound)
	if err != nil {
		return err
	}
	*rec = fromKeyRecord(r)
	return nil
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
				if err := storage.SaveKey(tx, toKeyRecord(rec)); err != nil {
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
	r := authReads.Get().(*authRead)
	r.e, r.hash = e, apikeys.Hash(key)
	err = e.store.View(ctx, r.read)
	p := r.p
	*r = authRead{read: r.read} // keeps nothing of this call
	authReads.Put(r)
	if err != nil {
		return Principal{}, err
	}
	return p, nil
}

// authRead is the read of one Authenticate: the key's hash in, the
// Principal out. They are pooled, with the read bound once, so that
// authenticating a request moves neither a Principal nor a closure to the
// heap.
type authRead struct {
	e    *Engine
	hash [32]byte
	p    Principal
	read func(store.Tx) error // r.do, bound once
}

var authReads = sync.Pool{New: func() any {
	r := &authRead{}
	r.read = r.do
	return r
}}

// decodeHash reads a key record's hash, hex as hex.DecodeString reads it
// (either case), into an array: ok is false for anything but 32 bytes of
// hex. Decoding the 64 characters through []byte would allocate.
func decodeHash(s string) (h [32]byte, ok bool) {
	if len(s) != 2*len(h) {
		return h, false
	}
	for i := range h {
		hi, ok1 := fromHex(s[2*i])
		lo, ok2 := fromHex(s[2*i+1])
		if !ok1 || !ok2 {
			return h, false
		}
		h[i] = hi<<4 | lo
	}
	return h, true
}

func fromHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// do reads what Authenticate needs in tx. Every update that writes a
// record the Principal is made of (an API key, its index, an
// organization, the pause switches) advances the authentication epoch in
// the same transaction (eventsTx). So when tx holds the epoch that the
// last Authenticate with this key read, the organization and pause
// switches it read are unchanged, on every instance sharing the store,
// and do reuses the Principal it made. The key's own record is read and checked
// every time all the same: a revocation is refused even when written by
// something that does not advance the epoch (an instance of an earlier
// version during a rolling upgrade).
func (r *authRead) do(tx store.Tx) error {
	e := r.e
	found, hit := e.keysFound.Get(r.hash)
	if store.Prefetch(tx, nil) {
		ahead := storage.AppendAuthEpochKey(make([]store.KeyRef, 0, 2))
		if hit { // what a hit reads; a miss reads the rest in turn
			ahead = storage.AppendKeyKey(ahead, found.id)
		}
		store.Prefetch(tx, ahead)
	}
	epoch, err := storage.AuthEpoch(tx)
	if err != nil {
		return err
	}
	if hit && found.epoch == epoch {
		rec, err := r.key(tx, found.id)
		if err != nil {
			return err
		}
		if rec.Org == found.org {
			r.p = found.p
			r.p.Org = found.p.Org.Clone()
			r.p.Key = rec.APIKey
			return nil
		}
	}
	id, err := storage.KeyIDByHash(tx, r.hash)
	if errors.Is(err, store.ErrNotFound) {
		return errUnauthorized
	}
	if err != nil {
		return err
	}
	rec, err := r.key(tx, id)
	if err != nil {
		return err
	}
	org, err := e.cachedOrg(tx, rec.Org, errUnauthorized)
	if err != nil {
		return err
	}
	if r.p, err = e.principal(tx, org); err != nil {
		return err
	}
	e.keysFound.Put(r.hash, keyFound{id: id, org: rec.Org, epoch: epoch, p: r.p})
	r.p.Org = r.p.Org.Clone() // the one kept is never handed out
	r.p.Key = rec.APIKey
	return nil
}

// key reads the API key id and checks it is the one presented, active,
// and of the engine's environment; errUnauthorized otherwise.
func (r *authRead) key(tx store.Tx, id string) (keyRecord, error) {
	rec, err := storage.CachedKey(tx, id, &r.e.cachedKeys, errUnauthorized, decodeKey)
	if err != nil {
		return keyRecord{}, err
	}
	stored, ok := decodeHash(rec.Hash)
	if !ok || !apikeys.Equal(stored[:], r.hash[:]) || !rec.Active() || rec.Environment != r.e.env {
		return keyRecord{}, errUnauthorized
	}
	return rec, nil
}

// Principal is who a call acts for: an organization, reached through one
// of its API keys (Authenticate) or on the host's own authority (Act).
// Its fields are a snapshot taken then, for display; every use case checks
// the organization's current state again inside its own transaction, so a
// suspension or a pause committed in the meantime is obeyed. A Principal
// not made by Authenticate or Act (the zero value, or one built by hand)
// is refused as unauthorized.
type Principal struct {
	Org   Organization
	Key   APIKey // the key used; zero when the Principal comes from Act
	Pause PauseState
	valid bool
}

var (
	errSuspended       = errcode.Newf(errcode.Forbidden, "This organization is suspended.")
	errNotAllowlisted  = errcode.Newf(errcode.Forbidden, "This address is not on the organization's allowlist.")
	errNoPrincipal     = errcode.Newf(errcode.Unauthorized, "This call needs a Principal from Authenticate or Act.")
	errOnboarding      = errcode.New(errcode.OnboardingIncomplete)
	errAccessSuspended = errcode.New(errcode.AccessSuspended)
)

// ErrNotAllowlisted is the forbidden error a transport returns when the
// caller's address is not on the organization's allowlist.
var ErrNotAllowlisted error = errNotAllowlisted

// Act returns a Principal for organization orgID without an API key, for
// a host that authenticates its own users. It is subject to every rule a
// key's Principal is: an unknown organization is not_found, a suspended
// one forbidden, and each use case checks the pause switches, /v2 access
// and the assets and operations enabled.
func (e *Engine) Act(ctx context.Context, orgID string) (Principal, error) {
	var p Principal
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.cachedOrg(tx, orgID, errNotFound)
		if err != nil {
			return err
		}
		p, err = e.principal(tx, org)
		return err
	})
	if err != nil {
		return Principal{}, err
	}
	return p, nil
}

// principal makes the Principal of org (a cached value: it is copied),
// refusing a suspended organization, with the pause switches read in tx.
func (e *Engine) principal(tx store.Tx, org Organization) (Principal, error) {
	if org.Status != OrgActive {
		return Principal{}, errSuspended
	}
	pause, err := e.readPause(tx)
	if err != nil {
		return Principal{}, err
	}
	return Principal{Org: org.Clone(), Pause: pause, valid: true}, nil
}

// admitNow is Gate.Admit.
func (e *Engine) admitNow(ctx context.Context, p Principal, api API) error {
	return e.store.View(ctx, func(tx store.Tx) error {
		_, err := e.admit(tx, p, api)
		return err
	})
}

// Admitted checks the rules Admit checks against the snapshot the
// Principal carries: the organization and the pause switches that
// Authenticate or Act read together when it was made. A transport that
// has just authenticated calls it instead of Admit, saving a read of the
// store; the answer is the one Admit would have given at the moment of
// authentication, and every use case checks the rules again inside its
// own transaction.
func (g Gate) Admitted(p Principal, api API) error {
	if !p.valid {
		return errNoPrincipal
	}
	return admission(&p.Org, p.Pause, api)
}

// admit is Admit inside tx; it returns the organization as committed.
func (e *Engine) admit(tx store.Tx, p Principal, api API) (*Organization, error) {
	if !p.valid {
		return nil, errNoPrincipal
	}
	return e.admitOrg(tx, p.Org.ID, api)
}

// admitOrg is admit for the organization id of a Principal known to be
// valid: all of the Principal that admit reads, so that a caller's
// closure need not hold (and move to the heap) the whole Principal.
func (e *Engine) admitOrg(tx store.Tx, id string, api API) (*Organization, error) {
	org, err := e.cachedOrg(tx, id, errUnauthorized)
	if err != nil {
		return nil, err
	}
	if org.Status != OrgActive {
		return nil, errSuspended
	}
	pause, err := e.readPause(tx)
	if err != nil {
		return nil, err
	}
	if err := admission(&org, pause, api); err != nil {
		return nil, err
	}
	return &org, nil // the cached value is shared: read it, never change it
}

// admission is the rule Admit and Admitted share: the organization is
// active, api is not paused and, for /v2, the organization's multi-asset
// access is enabled.
func admission(org *Organization, pause PauseState, api API) error {
	if org.Status != OrgActive {
		return errSuspended
	}
	if err := pause.Err(api); err != nil {
		return err
	}
	if api == APIv2 {
		switch org.V2Access {
		case V2OnboardingIncomplete:
			return errOnboarding
		case V2AccessSuspended:
			return errAccessSuspended
		}
	}
	return nil
}

// isNotFound reports a store miss.
func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
