package render

import (
	"testing"
	"time"
)

// Each rendering is pinned to the bytes the API answers today, written
// out here.

var (
	pinAt  = time.Date(2026, 3, 4, 5, 6, 7, 891234567, time.UTC)
	pinAt2 = pinAt.Add(90 * time.Minute)
)

func pinStr(s string) *string { return &s }

// pin checks a rendering against want.
func pin(t *testing.T, got []byte, want string) {
	t.Helper()
	if string(got) != want {
		t.Errorf("rendered\n%s\nwant\n%s", got, want)
	}
}
