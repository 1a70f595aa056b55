package codec

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/conversions"
)

func TestConversionRecordBytes(t *testing.T) {
	pin := func(t *testing.T, r ConversionRecord, want string) {
		t.Helper()
		pinRecord(t, r, want)
		b, err := r.AppendJSON(nil)
		if err != nil || string(b) != want {
			t.Errorf("AppendJSON = %s, %v; want\n%s", b, err, want)
		}
	}
	pin(t, ConversionRecord{ID: "c", Org: "o", FromAsset: "USDT", FromAmount: "1", ToAsset: "MWK", ToAmount: "2", Rate: "3", Status: "failed",
		Failure: &Failure{Code: "x", Message: "y"}, CreatedAt: pinAt, UpdatedAt: pinAt2, DueAt: &pinAt, Submitted: true, Attempts: 2},
		`{"id":"c","org":"o","from_asset":"USDT","from_amount":"1","to_asset":"MWK","to_amount":"2","rate":"3","status":"failed","failure":{"code":"x","message":"y"},"created_at":"2026-03-04T05:06:07.891234567Z","updated_at":"2026-03-04T06:36:07.891234567Z","due_at":"2026-03-04T05:06:07.891234567Z","submitted":true,"attempts":2}`)
	pin(t, ConversionRecord{},
		`{"id":"","org":"","from_asset":"","from_amount":"","to_asset":"","to_amount":"","rate":"","status":"","created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z"}`)
}

// AppendJSON writes what encoding/json writes, for any record: every
// optional part present or absent, any text, any time zone, and a time
// with no JSON form refused as encoding/json refuses it.
func TestConversionRecordAppendJSONMatchesEncodingJSON(t *testing.T) {
	text, at := oracleText, oracleTime
	rapid.Check(t, func(t *rapid.T) {
		r := ConversionRecord{ID: text.Draw(t, "id"), Org: text.Draw(t, "org"), FromAsset: text.Draw(t, "from asset"), FromAmount: text.Draw(t, "from"),
			ToAsset: text.Draw(t, "to asset"), ToAmount: text.Draw(t, "to"), Rate: text.Draw(t, "rate"), Status: conversions.Status(text.Draw(t, "status")),
			CreatedAt: at.Draw(t, "created"), UpdatedAt: at.Draw(t, "updated"), DueAt: oracleOptTime.Draw(t, "due"),
			Submitted: rapid.Bool().Draw(t, "submitted"), Attempts: rapid.IntRange(-3, 1<<40).Draw(t, "attempts")}
		if rapid.Bool().Draw(t, "failed") {
			r.Failure = &Failure{Code: text.Draw(t, "code"), Message: text.Draw(t, "message")}
		}
		checkAppendJSON(t, r, r.AppendJSON)
	})
}
