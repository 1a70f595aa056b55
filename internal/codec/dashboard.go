package codec

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/tambalapay/tambala/internal/jsonw"
)

// DayCloseRecord is an organization's available balance in one asset at the
// end of its last change on one UTC day: {"available"} (decimal text).
type DayCloseRecord struct {
	Available string `json:"available"`
}

// AppendJSON appends the record's JSON, the bytes encoding/json writes for
// it: every posting writes one, so it is written without reflection.
func (r DayCloseRecord) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"available":`...)
	b = jsonw.String(b, r.Available)
	return append(b, '}'), nil
}

// CountRecord is a counter the engine keeps in the transaction of each
// change it counts: {"n"}.
type CountRecord struct {
	N int64 `json:"n"`
}

// AppendJSON appends the record's JSON, the bytes encoding/json writes for
// it.
func (r CountRecord) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"n":`...)
	b = strconv.AppendInt(b, r.N, 10)
	return append(b, '}'), nil
}

// countPrefix starts every CountRecord AppendJSON writes.
var countPrefix = []byte(`{"n":`)

// DecodeCountRecord reads a CountRecord's JSON. The bytes AppendJSON
// writes are read directly (every accept reads one counter); any other
// JSON goes through encoding/json, which answers it as before.
func DecodeCountRecord(v []byte) (CountRecord, error) {
	if digits, ok := bytes.CutPrefix(v, countPrefix); ok && len(digits) > 1 && digits[len(digits)-1] == '}' {
		if n, ok := canonicalInt(digits[:len(digits)-1]); ok {
			return CountRecord{N: n}, nil
		}
	}
	var r CountRecord
	err := json.Unmarshal(v, &r)
	return r, err
}

// canonicalInt parses b when it is an int64 as strconv.AppendInt writes
// it (an optional minus, no leading zeros, no minus zero).
func canonicalInt(b []byte) (int64, bool) {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || (digits[0] == '0' && len(b) > 1) {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}
