package render

import (
	"testing"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func TestPayoutV2Bytes(t *testing.T) {
	rate, err := money.ParseRate("1750.50")
	if err != nil {
		t.Fatal(err)
	}
	fee := money.FromInt(money.MWK, 5)
	pin(t, payoutV2Bytes(payoutV2JSON{ID: "p", SourceAsset: "USDT", SourceAmount: money.FromInt(money.USDT, 7), Asset: "MWK",
		Amount: money.FromInt(money.MWK, 100), Rate: &rate, Fee: &fee, Status: payouts.Failed,
		Destination: PayoutV2Destination{Type: "wallet", InstitutionID: 1, AccountNumber: "a", MobileNumber: "m", BeneficiaryName: "b", Network: "n", Address: "ad"},
		Failure:     &payouts.Failure{Code: "declined", Message: "m"}, CreatedAt: pinAt, TerminalAt: &pinAt2}),
		`{"id":"p","source_asset":"USDT","source_amount":"7.000000","asset":"MWK","amount":"100.00","rate":"1750.5","fee":"5.00","status":"failed","destination":{"type":"wallet","institution_id":1,"account_number":"a","mobile_number":"m","beneficiary_name":"b","network":"n","address":"ad"},"failure":{"code":"declined","message":"m"},"created_at":"2026-03-04T05:06:07.891Z","terminal_at":"2026-03-04T06:36:07.891Z"}`)
	pin(t, payoutV2Bytes(payoutV2JSON{SourceAmount: money.Zero(money.USDT), Amount: money.Zero(money.MWK)}),
		`{"id":"","source_asset":"","source_amount":"0.000000","asset":"","amount":"0.00","rate":null,"fee":null,"status":"","destination":{"type":""},"failure":null,"created_at":"0001-01-01T00:00:00.000Z","terminal_at":null}`)
}
