package codec

import "testing"

func TestPayoutRecordBytes(t *testing.T) {
	pinRecord(t, PayoutRecord{},
		`{"id":"","org":"","rail":"","amount":"","held_fee":"","fee":null,"status":"","destination":{"InstitutionID":0,"AccountNumber":"","MobileNumber":"","BeneficiaryName":""},"failure":null,"created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z","terminal_at":null}`)
	pinRecord(t, PayoutRecord{ID: "p", Org: "o", Rail: "bank", Amount: "1.00", HeldFee: "2.00", Fee: pinStr("3.00"), Status: "failed",
		Destination: PayoutDestination{InstitutionID: 3, AccountNumber: "a", MobileNumber: "m", BeneficiaryName: "b"},
		Failure:     &Failure{Code: "declined", Message: "m"}, CreatedAt: pinAt, UpdatedAt: pinAt2, TerminalAt: &pinAt2, DueAt: &pinAt,
		Attempts: 2, Unknown: 1, Resubmit: true, Resolution: &ResolutionRecord{Outcome: "failed", Reason: "r", At: pinAt},
		V2: &PayoutV2Record{SourceAsset: "USDT", SourceDecimals: 6, Asset: "MWK", AssetDecimals: 2, Amount: "1", PricedFee: "2", Rate: pinStr("3"),
			Destination: PayoutV2DestinationRecord{Type: "wallet", InstitutionID: 1, AccountNumber: "a", MobileNumber: "m", BeneficiaryName: "b", Network: "n", Address: "ad"},
			FeeObserved: pinStr("4")}},
		`{"id":"p","org":"o","rail":"bank","amount":"1.00","held_fee":"2.00","fee":"3.00","status":"failed","destination":{"InstitutionID":3,"AccountNumber":"a","MobileNumber":"m","BeneficiaryName":"b"},"failure":{"code":"declined","message":"m"},"created_at":"2026-03-04T05:06:07.891234567Z","updated_at":"2026-03-04T06:36:07.891234567Z","terminal_at":"2026-03-04T06:36:07.891234567Z","due_at":"2026-03-04T05:06:07.891234567Z","attempts":2,"unknown":1,"resubmit":true,"resolution":{"outcome":"failed","reason":"r","at":"2026-03-04T05:06:07.891234567Z"},"v2":{"source_asset":"USDT","source_decimals":6,"asset":"MWK","asset_decimals":2,"amount":"1","fee":"2","rate":"3","destination":{"type":"wallet","institution_id":1,"account_number":"a","mobile_number":"m","beneficiary_name":"b","network":"n","address":"ad"},"fee_observed":"4"}}`)
	// A resolution with the provider's reference; without one the member is
	// omitted, so records written before it read unchanged.
	pinRecord(t, PayoutRecord{Resolution: &ResolutionRecord{Outcome: "succeeded", Reason: "r", Reference: "MP1", At: pinAt}},
		`{"id":"","org":"","rail":"","amount":"","held_fee":"","fee":null,"status":"","destination":{"InstitutionID":0,"AccountNumber":"","MobileNumber":"","BeneficiaryName":""},"failure":null,"created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z","terminal_at":null,"resolution":{"outcome":"succeeded","reason":"r","reference":"MP1","at":"2026-03-04T05:06:07.891234567Z"}}`)
	pinRecord(t, PayoutRecord{V2: &PayoutV2Record{}},
		`{"id":"","org":"","rail":"","amount":"","held_fee":"","fee":null,"status":"","destination":{"InstitutionID":0,"AccountNumber":"","MobileNumber":"","BeneficiaryName":""},"failure":null,"created_at":"0001-01-01T00:00:00Z","updated_at":"0001-01-01T00:00:00Z","terminal_at":null,"v2":{"source_asset":"","source_decimals":0,"asset":"","asset_decimals":0,"amount":"","fee":"","rate":null,"destination":{"type":""}}}`)
}
