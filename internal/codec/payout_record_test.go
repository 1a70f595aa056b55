package codec

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/payouts"
)

func TestPayoutRecordBytes(t *testing.T) {
	pinRecord := func(t *testing.T, rec PayoutRecord, want string) {
		t.Helper()
		pinRecord(t, rec, want)
		b, err := rec.AppendJSON(nil)
		if err != nil || string(b) != want {
			t.Errorf("AppendJSON = %s, %v; want\n%s", b, err, want)
		}
	}
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

// AppendJSON writes what encoding/json writes, for any record: every
// optional part present or absent, any text (HTML-sensitive, control
// characters, invalid UTF-8), any time zone.
func TestPayoutRecordAppendJSONMatchesEncodingJSON(t *testing.T) {
	text, optText, at, optAt := oracleText, oracleOptText, oracleTime, oracleOptTime
	num := rapid.IntRange(-3, 1<<40)
	rapid.Check(t, func(t *rapid.T) {
		r := PayoutRecord{ID: text.Draw(t, "id"), Org: text.Draw(t, "org"), Rail: payouts.Rail(text.Draw(t, "rail")),
			Amount: text.Draw(t, "amount"), HeldFee: text.Draw(t, "held"), Fee: optText.Draw(t, "fee"), Status: payouts.Status(text.Draw(t, "status")),
			Destination: PayoutDestination{InstitutionID: num.Draw(t, "inst"), AccountNumber: text.Draw(t, "acct"), MobileNumber: text.Draw(t, "msisdn"), BeneficiaryName: text.Draw(t, "name")},
			CreatedAt:   at.Draw(t, "created"), UpdatedAt: at.Draw(t, "updated"), TerminalAt: optAt.Draw(t, "terminal"), DueAt: optAt.Draw(t, "due"),
			Attempts: num.Draw(t, "attempts"), Unknown: num.Draw(t, "unknown"), Resubmit: rapid.Bool().Draw(t, "resubmit")}
		if rapid.Bool().Draw(t, "failed") {
			r.Failure = &Failure{Code: text.Draw(t, "code"), Message: text.Draw(t, "message")}
		}
		if rapid.Bool().Draw(t, "resolved") {
			r.Resolution = &ResolutionRecord{Outcome: payouts.Status(text.Draw(t, "outcome")), Reason: text.Draw(t, "reason"), Reference: text.Draw(t, "ref"), At: at.Draw(t, "at")}
		}
		if rapid.Bool().Draw(t, "v2") {
			r.V2 = &PayoutV2Record{SourceAsset: text.Draw(t, "src"), SourceDecimals: rapid.Int32().Draw(t, "srcdec"), Asset: text.Draw(t, "asset"),
				AssetDecimals: rapid.Int32().Draw(t, "dec"), Amount: text.Draw(t, "v2amount"), PricedFee: text.Draw(t, "v2fee"), Rate: optText.Draw(t, "rate"),
				Destination: PayoutV2DestinationRecord{Type: text.Draw(t, "type"), InstitutionID: num.Draw(t, "v2inst"), AccountNumber: text.Draw(t, "v2acct"),
					MobileNumber: text.Draw(t, "v2msisdn"), BeneficiaryName: text.Draw(t, "v2name"), Network: text.Draw(t, "net"), Address: text.Draw(t, "addr")},
				FeeObserved: optText.Draw(t, "observed")}
		}
		checkAppendJSON(t, r, r.AppendJSON)
	})
}
