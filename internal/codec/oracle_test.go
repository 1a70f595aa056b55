package codec

import (
	"encoding/json"
	"time"

	"pgregory.net/rapid"
)

// The generators of the tests that hold a record's hand-written JSON to
// encoding/json's: text of every kind encoding/json escapes or replaces
// (HTML-sensitive, control characters, U+2028, invalid UTF-8), and times
// in any zone, some of them past year 9999 (no JSON form).
var (
	oracleText = rapid.OneOf(rapid.String(), rapid.StringOf(rapid.RuneFrom([]rune{'"', '\\', '<', '&', '\u2028', 0, '\n', 'a', 'é'})),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }), rapid.Just(""))
	oracleOptText = rapid.Ptr(oracleText, true)
	oracleTime    = rapid.Custom(func(t *rapid.T) time.Time {
		zone := rapid.SampledFrom([]*time.Location{time.UTC, time.FixedZone("CAT", 7200), time.Local}).Draw(t, "zone")
		return time.Unix(rapid.Int64Range(-70_000_000_000, 300_000_000_000).Draw(t, "sec"), rapid.Int64Range(0, 999_999_999).Draw(t, "nsec")).In(zone)
	})
	oracleOptTime = rapid.Ptr(oracleTime, true)
)

// checkAppendJSON fails t unless appendJSON, after a prefix, writes what
// encoding/json writes for v, and fails where it fails.
func checkAppendJSON(t *rapid.T, v any, appendJSON func([]byte) ([]byte, error)) {
	want, wantErr := json.Marshal(v)
	got, err := appendJSON([]byte("prefix"))
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("appendJSON error %v, encoding/json's %v", err, wantErr)
	}
	if err == nil && string(got) != "prefix"+string(want) {
		t.Fatalf("appendJSON wrote\n%s\nencoding/json\n%s", got, want)
	}
}
