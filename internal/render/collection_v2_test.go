package render

import (
	"testing"

	"github.com/tambalapay/tambala/money"
)

func TestCollectionV2Bytes(t *testing.T) {
	pin(t, collectionV2Bytes(collectionV2JSON{ID: "c", Status: "settled", Asset: "USDT", Amount: money.FromInt(money.USDT, 100), Fee: money.Zero(money.USDT),
		AmountCredited: money.FromInt(money.USDT, 100), Network: pinStr("tron"), Source: "order_refund", OrderID: pinStr("ord"), CreatedAt: "t"}),
		`{"id":"c","status":"settled","asset":"USDT","amount":"100.000000","fee":"0.000000","amount_credited":"100.000000","network":"tron","source":"order_refund","order_id":"ord","created_at":"t"}`)
	pin(t, collectionV2Bytes(collectionV2JSON{Amount: money.Zero(money.MWK), Fee: money.Zero(money.MWK), AmountCredited: money.Zero(money.MWK)}),
		`{"id":"","status":"","asset":"","amount":"0.00","fee":"0.00","amount_credited":"0.00","network":null,"source":"","order_id":null,"created_at":""}`)
}
