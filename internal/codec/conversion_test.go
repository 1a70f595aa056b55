package codec

import "testing"

func TestConversionRecordBytes(t *testing.T) {
	pinRecord(t, ConversionRecord{ID: "c", Org: "o", FromAsset: "USDT", FromAmount: "1", ToAsset: "MWK", ToAmount: "2", Rate: "3", Status: "failed",
		Failure: &Failure{Code: "x", Message: "y"}, CreatedAt: pinAt, UpdatedAt: pinAt2, DueAt: &pinAt, Submitted: true, Attempts: 2},
		`{"id":"c","org":"o","from_asset":"USDT","from_amount":"1","to_asset":"MWK","to_amount":"2","rate":"3","status":"failed","failure":{"code":"x","message":"y"},"created_at":"2026-03-04T05:06:07.891234567Z","updated_at":"2026-03-04T06:36:07.891234567Z","due_at":"2026-03-04T05:06:07.891234567Z","submitted":true,"attempts":2}`)
	pinRecord(t, ConversionRecord{},
		`{"id":"","org":"","from_asset":"","from_amount":"","to_asset":"","to_amount":"","rate":"","status":"","created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z"}`)
}
