package codec

import "testing"

func TestEventRecordBytes(t *testing.T) {
	pinRecord(t, EventRecord{ID: "ev", Type: "t", Org: "o", CreatedAt: pinAt, Kind: "k", Record: []byte(`{"x":1}`), Attempts: 3, NextAt: pinAt2},
		`{"id":"ev","type":"t","org":"o","created_at":"2026-03-04T05:06:07.891234567Z","kind":"k","record":{"x":1},"attempts":3,"next_at":"2026-03-04T06:36:07.891234567Z"}`)
	pinRecord(t, BalanceLowRecord{Available: "1.00", Held: "2.00", Floor: "3.00"}, `{"available":"1.00","held":"2.00","floor":"3.00"}`)
}
