package records

import "encoding/json"

// Encode is the JSON of a record (a record type of internal/codec): the
// bytes PutJSON stores, for a caller that also keeps them elsewhere (an
// idempotency outcome, an event waiting for its handler).
func Encode(v any) ([]byte, error) { return json.Marshal(v) }

// Decode reads a record's JSON (from Encode or PutJSON) into v.
func Decode(b []byte, v any) error { return json.Unmarshal(b, v) }
