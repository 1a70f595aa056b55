// Package fingerprint is the one encoder of the engine's default
// idempotency fingerprints: SHA-256 over a length-prefixed encoding (each
// string preceded by its length as an unsigned varint) of a tag naming the
// request type and version, then each field in a fixed order. Two requests
// have one fingerprint exactly when their fields are equal; a field that
// may be absent is written after a marker field, so absence and emptiness
// differ.
package fingerprint
