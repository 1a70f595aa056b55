package tambala

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/store"
)

// Operation names an idempotent create. Idempotency keys are scoped by
// (organization, operation, key), and the names are stable across
// versions, whatever transport carries the call.
type Operation string

// The idempotent creates.
const (
	CreateBankPayout Operation = "payouts.create.bank"
	CreateMomoPayout Operation = "payouts.create.momo"
)

// operationInfo is what the engine knows of each operation: the API whose
// rules it is under, and the scope under which versions before operation
// names stored its outcomes (method and path), still read so that a retry
// across the upgrade replays, for as long as such a record can be within
// the retention (legacyLookups).
var operationInfo = map[Operation]struct {
	api    API
	legacy string
}{
	CreateBankPayout: {APIv1, "POST\x00/v1/payouts/bank"},
	CreateMomoPayout: {APIv1, "POST\x00/v1/payouts/momo"},
}

// Fingerprint identifies the request a create was made with. Two calls
// with one idempotency key and different fingerprints are a conflict.
type Fingerprint [32]byte

// BodyFingerprint is the fingerprint of a request body: its SHA-256. The
// HTTP binding uses it over the raw bytes, so a body that differs even in
// spacing is a different request.
func BodyFingerprint(body []byte) Fingerprint { return sha256.Sum256(body) }

// Idempotency makes a create safe to retry. Key is required (at most
// MaxIdempotencyKeyLength bytes). Fingerprint identifies the request; when
// it is zero the engine uses the default fingerprint of the typed request
// (for payouts, payouts.Request.Fingerprint: SHA-256 over a length-prefixed
// encoding of every field), which is what a Go host without a request body
// wants.
type Idempotency struct {
	Key         string
	Fingerprint Fingerprint
}

// Created is the result of an idempotent create: the resource as it was
// when the create was decided, and whether this call replayed that
// decision instead of making it.
type Created[T any] struct {
	Resource T
	Replayed bool
}

// MaxIdempotencyKeyLength bounds an idempotency key.
const MaxIdempotencyKeyLength = 255

func idemScope(org string, op Operation, key string) string {
	return org + "\x00" + string(op) + "\x00" + key
}

func legacyIdemScope(org, legacy, key string) string {
	return org + "\x00" + legacy + "\x00" + key
}

func checkIdemKey(key string) error {
	if key == "" {
		return errcode.Newf(errcode.ValidationError, "The Idempotency-Key header is required.")
	}
	if len(key) > MaxIdempotencyKeyLength {
		return errcode.Newf(errcode.ValidationError, "The Idempotency-Key header is longer than %d characters.", MaxIdempotencyKeyLength)
	}
	return nil
}

var (
	errIdemInFlight    = errcode.Newf(errcode.Conflict, "The original request with this Idempotency-Key is still in progress.")
	errIdemMismatch    = errcode.Newf(errcode.Conflict, "This Idempotency-Key was used with a different request body.")
	errIdemUndecodable = errcode.Newf(errcode.Conflict,
		"This Idempotency-Key was decided for a request this version no longer accepts; use a new key.")
)

// storedOutcome looks up the decided outcome of scope (and, when
// withLegacy, of its legacy scope); ok is false when there is none.
func storedOutcome(tx store.Tx, org string, op Operation, key string, withLegacy bool) (rec codec.IdemRecord, ok bool, err error) {
	v, err := tx.Get(bucketIdem, []byte(idemScope(org, op, key)))
	if isNotFound(err) {
		legacy := operationInfo[op].legacy
		if legacy == "" || !withLegacy {
			return rec, false, nil
		}
		v, err = tx.Get(bucketIdem, []byte(legacyIdemScope(org, legacy, key)))
	}
	if isNotFound(err) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	rec, err = codec.DecodeIdemRecord(v)
	return rec, err == nil, err
}

// resourceCodec reads the resource a decided create stored: decode reads
// what run returned (version 2 records); decodeLegacy reads the response
// body that versions 0 and 1 stored instead.
type resourceCodec[T any] struct {
	decode       func(org string, stored []byte) (T, error)
	decodeLegacy func(org string, body []byte) (T, error)
}

// create runs a create exactly once per (organization, operation, key):
//   - a missing or too long key is validation_error;
//   - inside one transaction, the Principal's rules are checked first
//     (admit), so a paused API or a suspended organization answers even a
//     replay;
//   - while the same scope is being decided in this process, conflict;
//   - once decided, the same fingerprint replays the stored resource and a
//     different one is conflict;
//   - otherwise run decides it in the same transaction, returning the
//     resource and its stored encoding; an error (a rejection or a fault)
//     stores nothing, so the key can be used again.
//
// Across processes sharing a store, the serializable Update guarantees
// that only one decision commits; the loser replays it.
func create[T any](ctx context.Context, e *Engine, p Principal, op Operation, idem Idempotency, fp Fingerprint, rc resourceCodec[T],
	run func(tx store.Tx, org *Organization) (T, []byte, error)) (Created[T], error) {
	if err := checkIdemKey(idem.Key); err != nil {
		return Created[T]{}, err
	}
	if !p.valid {
		return Created[T]{}, errNoPrincipal
	}
	scope := idemScope(p.Org.ID, op, idem.Key)
	if _, busy := e.inflight.LoadOrStore(scope, struct{}{}); busy {
		return Created[T]{}, errIdemInFlight
	}
	defer e.inflight.Delete(scope)
	withLegacy, err := e.legacyLookups(ctx)
	if err != nil {
		return Created[T]{}, err
	}
	digest := hex.EncodeToString(fp[:])
	var out Created[T]
	err = e.store.Update(ctx, func(tx store.Tx) error {
		out = Created[T]{}
		org, err := e.admit(tx, p, operationInfo[op].api)
		if err != nil {
			return err
		}
		rec, found, err := storedOutcome(tx, p.Org.ID, op, idem.Key, withLegacy)
		if err != nil {
			return err
		}
		if found {
			if rec.BodySHA256 != digest {
				return errIdemMismatch
			}
			out.Replayed = true
			if rec.Version == 2 {
				out.Resource, err = rc.decode(p.Org.ID, rec.Body)
			} else {
				out.Resource, err = rc.decodeLegacy(p.Org.ID, rec.Body)
			}
			return err
		}
		res, stored, err := run(tx, org)
		if err != nil {
			return err
		}
		now := e.nowUTC()
		r := codec.IdemRecord{Body: stored, CreatedAt: now}
		if err := tx.Put(bucketIdem, []byte(scope), r.Encode(fp)); err != nil {
			return err
		}
		if err := tx.Put(bucketIdemByTime, idemTimeKey(now, scope), nil); err != nil {
			return err
		}
		out.Resource = res
		return nil
	})
	if err != nil {
		return Created[T]{}, err
	}
	return out, nil
}

// RefuseCreate answers a create whose request the transport could not
// decode into the typed request (malformed JSON, a field of the wrong
// type), in the order the engine answers every create, so that the
// idempotency rules come first: the Principal's rules; a missing key;
// the key in flight (conflict); the key already decided with another
// fingerprint (conflict, even though this request is invalid). Otherwise
// it returns reason. It stores nothing.
func (e *Engine) RefuseCreate(ctx context.Context, p Principal, op Operation, idem Idempotency, reason error) error {
	info, ok := operationInfo[op]
	if !ok {
		return errcode.Newf(errcode.ValidationError, "Unknown operation %q.", truncate(string(op), 40))
	}
	if err := checkIdemKey(idem.Key); err != nil {
		return err
	}
	if !p.valid {
		return errNoPrincipal
	}
	if _, busy := e.inflight.Load(idemScope(p.Org.ID, op, idem.Key)); busy {
		return errIdemInFlight
	}
	withLegacy, err := e.legacyLookups(ctx)
	if err != nil {
		return err
	}
	digest := hex.EncodeToString(idem.Fingerprint[:])
	err = e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, info.api); err != nil {
			return err
		}
		rec, found, err := storedOutcome(tx, p.Org.ID, op, idem.Key, withLegacy)
		switch {
		case err != nil:
			return err
		case !found:
			return nil
		case rec.BodySHA256 != digest:
			return errIdemMismatch
		default: // decided for these very bytes, which no longer decode
			return errIdemUndecodable
		}
	})
	if err != nil {
		return err
	}
	return reason
}

// settingLegacySince records, in the settings bucket, when creates in this
// store began to be scoped by operation: the time a build with operation
// names first created in it, or the zero time when it then held no
// decided outcome at all (a new store), which therefore holds none under
// a legacy scope.
var settingLegacySince = []byte("idempotency.legacy_since")

// legacyLookups reports whether a create must still look for an outcome
// stored under its operation's legacy scope: only while one can be within
// the retention, that is until the retention has passed since the store's
// first create by a build with operation names. A new store never does,
// so a create reads one record, not two. The first call records that time
// in the store (once for every process sharing it) and keeps it.
func (e *Engine) legacyLookups(ctx context.Context) (bool, error) {
	since := e.legacySince.Load()
	if since == nil {
		var t time.Time
		err := e.store.Update(ctx, func(tx store.Tx) error {
			t = time.Time{}
			v, err := tx.Get(bucketSettings, settingLegacySince)
			if err == nil {
				return t.UnmarshalText(v)
			}
			if !isNotFound(err) {
				return err
			}
			empty := true
			err = tx.Scan(bucketIdem, store.ScanOptions{}, func(_, _ []byte) (bool, error) {
				empty = false
				return false, nil
			})
			if err != nil {
				return err
			}
			if !empty {
				t = e.nowUTC()
			}
			text, err := t.MarshalText()
			if err != nil {
				return err
			}
			return tx.Put(bucketSettings, settingLegacySince, text)
		})
		if err != nil {
			return false, err
		}
		since = &t
		e.legacySince.Store(since)
	}
	return !since.IsZero() && e.now().Before(since.Add(e.limits.IdempotencyRetention)), nil
}

func idemTimeKey(t time.Time, scope string) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano()))
	return append(k, scope...)
}

// PruneIdempotency deletes decided outcomes older than the retention, at
// most batch of them per call, and reports how many it deleted. Run calls
// it every few minutes; a host that schedules its own loops calls it
// periodically.
func (e *Engine) PruneIdempotency(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		batch = 1000
	}
	cutoff := e.now().Add(-e.limits.IdempotencyRetention)
	end := binary.BigEndian.AppendUint64(nil, uint64(cutoff.UnixNano()))
	n := 0
	err := e.store.Update(ctx, func(tx store.Tx) error {
		n = 0
		var keys [][]byte
		err := tx.Scan(bucketIdemByTime, store.ScanOptions{End: end}, func(k, _ []byte) (bool, error) {
			keys = append(keys, k)
			return len(keys) < batch, nil
		})
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := tx.Delete(bucketIdem, k[8:]); err != nil {
				return err
			}
			if err := tx.Delete(bucketIdemByTime, k); err != nil {
				return err
			}
		}
		n = len(keys)
		return nil
	})
	return n, err
}
