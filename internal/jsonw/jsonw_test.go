package jsonw_test

import (
	"encoding/json"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/internal/jsonw"
)

func TestStringTable(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " backslash \ slash /`, "<script>&amp;</script>",
		"\x00\x01\b\f\n\r\t\x1f\x7f", "Chisomo Banda", "ẞ ü 漢字 🙂",
		"\xff", "a\xc3", "\xed\xa0\x80", "line\u2028para\u2029", "\ufffd",
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonw.String(nil, s); string(got) != string(want) {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	}
}

// Any string, valid UTF-8 or not, is written as encoding/json writes it.
func TestStringMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.String(),
			rapid.StringOf(rapid.RuneFrom([]rune{'"', '\\', '<', '>', '&', '\u2028', '\u2029', 0, '\n', 0x7f, 'a', 'é'})),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
		).Draw(t, "s")
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("x")
		if got := jsonw.String(prefix, s); string(got) != "x"+string(want) {
			t.Fatalf("String(%q) = %s, want x%s", s, got, want)
		}
	})
}

func TestTimeMatchesMarshalJSON(t *testing.T) {
	cat := time.FixedZone("CAT", 2*3600)
	odd := time.FixedZone("odd", -(9*3600 + 30*60 + 15))
	rapid.Check(t, func(t *rapid.T) {
		at := time.Unix(rapid.Int64Range(-70_000_000_000, 300_000_000_000).Draw(t, "sec"), rapid.Int64Range(0, 999_999_999).Draw(t, "nsec"))
		switch rapid.IntRange(0, 3).Draw(t, "zone") {
		case 0:
			at = at.UTC()
		case 1:
			at = at.In(cat)
		case 2:
			at = at.In(odd)
		}
		want, wantErr := at.MarshalJSON()
		got, err := jsonw.Time(nil, at)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Time(%v) error %v, MarshalJSON's %v", at, err, wantErr)
		}
		if err == nil && string(got) != string(want) {
			t.Fatalf("Time(%v) = %s, want %s", at, got, want)
		}
	})
}

func TestNullables(t *testing.T) {
	if got := string(jsonw.StringPtr(nil, nil)); got != "null" {
		t.Errorf("StringPtr(nil) = %s", got)
	}
	s := "a<b"
	if got := string(jsonw.StringPtr(nil, &s)); got != `"a\u003cb"` {
		t.Errorf("StringPtr = %s", got)
	}
	if got, _ := jsonw.TimePtr(nil, nil); string(got) != "null" {
		t.Errorf("TimePtr(nil) = %s", got)
	}
	at := time.Date(2026, 11, 26, 3, 4, 5, 600, time.UTC)
	if got, _ := jsonw.TimePtr(nil, &at); string(got) != `"2026-11-26T03:04:05.0000006Z"` {
		t.Errorf("TimePtr = %s", got)
	}
	if got := string(jsonw.Int(jsonw.Bool(nil, true), -12)); got != "true-12" {
		t.Errorf("Bool, Int = %s", got)
	}
}
