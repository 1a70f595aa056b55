package fingerprint_test

import (
	"encoding/hex"
	"testing"

	"github.com/tambalapay/tambala/internal/fingerprint"
)

// TestEncodingPinned pins the encoding: default fingerprints are stored in
// idempotency records, so a change would make replays of keys used before
// conflict. The expected value is SHA-256 of 04 "t/v1" 01 "a" 00,
// computed independently.
func TestEncodingPinned(t *testing.T) {
	sum := fingerprint.Of("t/v1", "a", "")
	if got := hex.EncodeToString(sum[:]); got != "085021f3160f9a8041ea962782031668bd3e3b5e058695c0500ead0ff97e8a71" {
		t.Fatalf("encoding changed: %s", got)
	}
	b := fingerprint.New("t/v1")
	b.Field("a")
	b.Field("")
	if b.Sum() != sum {
		t.Fatal("Builder and Of disagree")
	}
}

// TestBoundaries: moving a byte across a field boundary, or dropping an
// empty field, changes the fingerprint.
func TestBoundaries(t *testing.T) {
	seen := map[[32]byte][]string{}
	for _, fields := range [][]string{{"a", ""}, {"a"}, {"", "a"}, {"ab"}, {"a", "b"}, {}, {""}} {
		sum := fingerprint.Of("t/v1", fields...)
		if prev, dup := seen[sum]; dup {
			t.Fatalf("%q and %q share a fingerprint", prev, fields)
		}
		seen[sum] = fields
	}
	if fingerprint.Of("t/v1") == fingerprint.Of("t/v2") {
		t.Fatal("the tag is part of the fingerprint")
	}
}
