package storage

import "encoding/json"

// Encode is the JSON of a record (a record type of internal/codec): the
// bytes PutJSON stores, for a caller that also keeps them elsewhere (an
// idempotency outcome, an event waiting for its handler).
func Encode(v any) ([]byte, error) {
	if a, ok := v.(Appender); ok {
		return a.AppendJSON(make([]byte, 0, 512))
	}
	return json.Marshal(v)
}

// Appender is a record that writes its own JSON, the bytes encoding/json
// would write for it, without reflection; Encode and PutJSON use it.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// Decode reads a record's JSON (from Encode or PutJSON) into v.
func Decode(b []byte, v any) error { return json.Unmarshal(b, v) }
