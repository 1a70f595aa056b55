package codec

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// IdemRecord is a decided idempotent create.
//
// Version 3 (written now): 0x03, the request's fingerprint (32 bytes), the
// operation that decided it (uvarint length and bytes), the decision time
// (varint Unix nanoseconds), then the created resource as the engine
// encodes it (Body). Version 2 is the same without the operation (records
// of builds that scoped keys by operation). Version 1: 0x01, the SHA-256 of the request
// body (32 bytes), the HTTP status (uvarint), the time, then the response
// body bytes. Records that start with '{' are the JSON of the first
// version. Versions 0 and 1 are read so that a replay after an upgrade
// still answers; their Body is the rendered response.
type IdemRecord struct {
	Version    int       `json:"-"`
	BodySHA256 string    `json:"body_sha256"` // hex of the fingerprint
	Operation  string    `json:"-"`           // version 3 only
	Status     int       `json:"status"`      // versions 0 and 1 only
	Body       []byte    `json:"body"`
	CreatedAt  time.Time `json:"created_at"`
}

var errBadIdem = errors.New("idempotency: bad record")

// Encode writes the record in version 3 with fingerprint sum.
func (r *IdemRecord) Encode(sum [32]byte) []byte {
	return r.AppendEncode(make([]byte, 0, 1+32+binary.MaxVarintLen64+len(r.Operation)+binary.MaxVarintLen64+len(r.Body)), sum)
}

// AppendEncode appends what Encode writes to b.
func (r *IdemRecord) AppendEncode(b []byte, sum [32]byte) []byte {
	b = append(b, 3)
	b = append(b, sum[:]...)
	b = binary.AppendUvarint(b, uint64(len(r.Operation)))
	b = append(b, r.Operation...)
	b = binary.AppendVarint(b, r.CreatedAt.UnixNano())
	return append(b, r.Body...)
}

// EncodeV2 writes the record in version 2, as builds that scoped keys by
// operation did; kept for tests of the upgrade path.
func (r *IdemRecord) EncodeV2(sum [32]byte) []byte {
	b := make([]byte, 0, 1+32+binary.MaxVarintLen64+len(r.Body))
	b = append(b, 2)
	b = append(b, sum[:]...)
	b = binary.AppendVarint(b, r.CreatedAt.UnixNano())
	return append(b, r.Body...)
}

// EncodeV1 writes the record in version 1, as earlier versions did; kept
// for tests of the upgrade path.
func (r *IdemRecord) EncodeV1(sum [32]byte) []byte {
	b := make([]byte, 0, 1+32+2*binary.MaxVarintLen64+len(r.Body))
	b = append(b, 1)
	b = append(b, sum[:]...)
	b = binary.AppendUvarint(b, uint64(r.Status))
	b = binary.AppendVarint(b, r.CreatedAt.UnixNano())
	return append(b, r.Body...)
}

// DecodeIdemRecord reads any version.
func DecodeIdemRecord(v []byte) (IdemRecord, error) {
	var r IdemRecord
	if len(v) > 0 && v[0] == '{' {
		err := json.Unmarshal(v, &r)
		return r, err
	}
	if len(v) < 33 || v[0] < 1 || v[0] > 3 {
		return r, errBadIdem
	}
	r.Version = int(v[0])
	r.BodySHA256 = hex.EncodeToString(v[1:33])
	rest := v[33:]
	if r.Version == 3 {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n == 0 || n > uint64(len(rest)-k) {
			return r, errBadIdem
		}
		r.Operation, rest = string(rest[k:k+int(n)]), rest[k+int(n):]
	}
	if r.Version == 1 {
		status, n := binary.Uvarint(rest)
		if n <= 0 {
			return r, errBadIdem
		}
		r.Status = int(status)
		rest = rest[n:]
	}
	at, n := binary.Varint(rest)
	if n <= 0 {
		return r, errBadIdem
	}
	r.CreatedAt, r.Body = time.Unix(0, at).UTC(), rest[n:]
	return r, nil
}
