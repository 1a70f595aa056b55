package tambala

import (
	"encoding/hex"
	"testing"

	"pgregory.net/rapid"
)

// decodeHash answers as hex.DecodeString followed by a length check,
// which Authenticate used before: the same 32 bytes, or not ok.
func TestDecodeHashAnswersAsDecodeString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.StringMatching(`[0-9a-fA-F]{64}`),
			rapid.StringMatching(`[0-9a-fA-Fg-z]{60,68}`),
			rapid.String(),
		).Draw(t, "s")
		want, err := hex.DecodeString(s)
		wantOK := err == nil && len(want) == 32
		got, ok := decodeHash(s)
		if ok != wantOK {
			t.Fatalf("decodeHash(%q) ok %v, hex.DecodeString %v (%d bytes)", s, ok, err, len(want))
		}
		if ok && string(got[:]) != string(want) {
			t.Fatalf("decodeHash(%q) = %x, want %x", s, got, want)
		}
	})
}
