package tambala

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/store"
)

// Idempotency identifies a create request: its Idempotency-Key and the raw
// bytes of its body, compared by SHA-256.
type Idempotency struct {
	Key  string
	Body []byte
}

// Outcome is a create's decided result: the status and the exact body
// bytes, returned again byte for byte on a replay.
type Outcome struct {
	Status   int
	Body     []byte
	Replayed bool
}

// idemRecord is a decided outcome. It is stored binary (it is written by
// every create): 0x01, the body's SHA-256 (32 bytes), the status
// (uvarint), the time (varint Unix nanoseconds), then the body bytes.
// Records that start with '{' are the JSON of earlier versions.
type idemRecord struct {
	BodySHA256 string    `json:"body_sha256"` // hex
	Status     int       `json:"status"`
	Body       []byte    `json:"body"`
	CreatedAt  time.Time `json:"created_at"`
}

func (r *idemRecord) encode(sum [32]byte) []byte {
	b := make([]byte, 0, 1+32+2*binary.MaxVarintLen64+len(r.Body))
	b = append(b, 1)
	b = append(b, sum[:]...)
	b = binary.AppendUvarint(b, uint64(r.Status))
	b = binary.AppendVarint(b, r.CreatedAt.UnixNano())
	return append(b, r.Body...)
}

func decodeIdemRecord(v []byte) (idemRecord, error) {
	var r idemRecord
	if len(v) > 0 && v[0] == '{' {
		err := json.Unmarshal(v, &r)
		return r, err
	}
	if len(v) < 33 || v[0] != 1 {
		return r, fmt.Errorf("idempotency: bad record")
	}
	r.BodySHA256 = hex.EncodeToString(v[1:33])
	rest := v[33:]
	status, n := binary.Uvarint(rest)
	if n <= 0 {
		return r, fmt.Errorf("idempotency: bad record")
	}
	rest = rest[n:]
	at, n := binary.Varint(rest)
	if n <= 0 {
		return r, fmt.Errorf("idempotency: bad record")
	}
	r.Status, r.CreatedAt, r.Body = int(status), time.Unix(0, at).UTC(), rest[n:]
	return r, nil
}

// MaxIdempotencyKeyLength bounds an Idempotency-Key.
const MaxIdempotencyKeyLength = 255

func idemScope(org, method, path, key string) string {
	return org + "\x00" + method + "\x00" + path + "\x00" + key
}

// create runs a create command exactly once per (organization, method and
// path, key):
//   - a missing key is validation_error;
//   - while the same scope is being decided in this process, conflict;
//   - once decided, the same body replays the stored outcome and a different
//     body is conflict;
//   - otherwise run decides it inside one transaction together with the
//     stored outcome; an error (a rejection or a fault) stores nothing, so
//     the key can be used again.
//
// Across processes sharing a store, the serializable Update guarantees that
// only one decision commits; the loser replays it.
func (e *Engine) create(ctx context.Context, orgID, method, path string, idem Idempotency,
	run func(tx store.Tx) (status int, body []byte, err error)) (Outcome, error) {
	if idem.Key == "" {
		return Outcome{}, errcode.Newf(errcode.ValidationError, "The Idempotency-Key header is required.")
	}
	if len(idem.Key) > MaxIdempotencyKeyLength {
		return Outcome{}, errcode.Newf(errcode.ValidationError, "The Idempotency-Key header is longer than %d characters.", MaxIdempotencyKeyLength)
	}
	scope := idemScope(orgID, method, path, idem.Key)
	if _, busy := e.inflight.LoadOrStore(scope, struct{}{}); busy {
		return Outcome{}, errcode.Newf(errcode.Conflict, "The original request with this Idempotency-Key is still in progress.")
	}
	defer e.inflight.Delete(scope)
	sum := sha256.Sum256(idem.Body)
	digest := hex.EncodeToString(sum[:])
	var out Outcome
	err := e.store.Update(ctx, func(tx store.Tx) error {
		out = Outcome{}
		stored, err := tx.Get(bucketIdem, []byte(scope))
		switch {
		case err == nil:
			rec, err := decodeIdemRecord(stored)
			if err != nil {
				return err
			}
			if rec.BodySHA256 != digest {
				return errcode.Newf(errcode.Conflict, "This Idempotency-Key was used with a different request body.")
			}
			out = Outcome{Status: rec.Status, Body: rec.Body, Replayed: true}
			return nil
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		status, body, err := run(tx)
		if err != nil {
			return err
		}
		now := e.nowUTC()
		rec := idemRecord{Status: status, Body: body, CreatedAt: now}
		if err := tx.Put(bucketIdem, []byte(scope), rec.encode(sum)); err != nil {
			return err
		}
		if err := tx.Put(bucketIdemByTime, idemTimeKey(now, scope), nil); err != nil {
			return err
		}
		out = Outcome{Status: status, Body: body}
		return nil
	})
	return out, err
}

func idemTimeKey(t time.Time, scope string) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano()))
	return append(k, scope...)
}

// PruneIdempotency deletes decided outcomes older than the retention,
// at most batch of them per call, and reports how many it deleted. A host
// calls it periodically (the runnable server does every few minutes).
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
