package codec

import "testing"

func TestSettlementRecordBytes(t *testing.T) {
	pinRecord(t, SettlementMappingRecord{Reference: "ref", Amount: "net", Currency: "ccy", Status: "st", Time: "at"},
		`{"reference":"ref","amount":"net","currency":"ccy","status":"st","time":"at"}`)
	pinRecord(t, SettlementImportRecord{ID: "s", Rail: "momo", Name: "f.csv", SHA256: "ab", FileNumber: 3, ImportedAt: pinAt, By: "a@b.co",
		Mapping:   SettlementMappingRecord{Reference: "r", Amount: "a", Currency: "c", Status: "s", Time: "t", FileNumber: "n"},
		Lines:     []SettlementLineRecord{{Number: 2, Reference: "p1", Amount: "1.50", Currency: "MWK", Status: "succeeded", Time: pinAt2}},
		Explained: []SettlementExplanationRecord{{Line: 2, Reason: "why", By: "automation", At: pinAt2}}},
		`{"id":"s","rail":"momo","name":"f.csv","sha256":"ab","file_number":3,"imported_at":"2026-03-04T05:06:07.891234567Z","by":"a@b.co",`+
			`"mapping":{"reference":"r","amount":"a","currency":"c","status":"s","time":"t","file_number":"n"},`+
			`"lines":[{"n":2,"reference":"p1","amount":"1.50","currency":"MWK","status":"succeeded","time":"2026-03-04T06:36:07.891234567Z"}],`+
			`"explained":[{"line":2,"reason":"why","by":"automation","at":"2026-03-04T06:36:07.891234567Z"}]}`)
}
