package httpapi

import (
	"encoding/json"
	"testing"
)

// FuzzJSONInt holds jsonInt to what encoding/json decodes into an int, 0
// where it refuses, for every valid JSON value.
func FuzzJSONInt(f *testing.F) {
	for _, s := range []string{
		`101`, `0`, `-0`, `-7`, `1.0`, `1e2`, `1E2`, `-1.5e-3`, `"101"`, `null`, `true`, `[]`, `{}`,
		`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
		`00`, `+1`, `0x10`, `1_000`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		var want int
		if json.Unmarshal([]byte(s), &want) != nil {
			want = 0
		}
		if got := jsonInt(json.RawMessage(s)); got != want {
			t.Fatalf("jsonInt(%s) = %d, encoding/json %d", s, got, want)
		}
	})
}
