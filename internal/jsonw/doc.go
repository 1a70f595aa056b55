// Package jsonw appends JSON values to a byte slice exactly as
// encoding/json's Marshal writes them: strings HTML-escaped, invalid UTF-8
// replaced, U+2028 and U+2029 escaped, and times as time.Time's
// MarshalJSON writes them. The hottest records and renderings (a payout's
// stored record and its rendering) are written with it instead of by
// reflection; tests hold each such writer to encoding/json's bytes.
package jsonw
