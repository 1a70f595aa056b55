package codec

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// The JSON records: each encodes to the bytes stores hold today, written
// out here, and those bytes decode back to the same record, so that a
// store written before opens and replays.

var (
	pinAt  = time.Date(2026, 3, 4, 5, 6, 7, 891234567, time.UTC)
	pinAt2 = pinAt.Add(90 * time.Minute)
)

func pinStr(s string) *string { return &s }

// pinRecord checks that rec encodes to want and want decodes to rec.
func pinRecord[T any](t *testing.T, rec T, want string) {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Errorf("%T encodes as\n%s\nwant\n%s", rec, b, want)
	}
	var back T
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rec) {
		t.Errorf("%s decodes as %+v, want %+v", want, back, rec)
	}
}
