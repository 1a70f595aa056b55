package codec

import "testing"

func TestCollectionV2RecordBytes(t *testing.T) {
	pinRecord(t, CollectionV2Record{Org: "o", EntryID: "e", Rendered: []byte(`{"id":"c"}`)}, `{"org":"o","entry_id":"e","rendered":{"id":"c"}}`)
	pinRecord(t, CollectionV2Rendering{ID: "c", Status: "settled", Asset: "USDT", Amount: "100.000000", Fee: "0.000000",
		AmountCredited: "100.000000", Network: pinStr("tron"), Source: "order_refund", OrderID: pinStr("ord"), CreatedAt: "t"},
		`{"id":"c","status":"settled","asset":"USDT","amount":"100.000000","fee":"0.000000","amount_credited":"100.000000","network":"tron","source":"order_refund","order_id":"ord","created_at":"t"}`)
}
