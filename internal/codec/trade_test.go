package codec

import "testing"

func TestTradeRecordBytes(t *testing.T) {
	pinRecord(t, TradeRecord{Org: "o", Ref: "r", ID: "t", USDTAmount: "1.00", ClientRate: "1750.5", MWKAmount: 17, Status: "settled", CreatedAt: "c", SettledAt: "s"},
		`{"org":"o","ref":"r","id":"t","usdt_amount":"1.00","client_rate":"1750.5","mwk_amount":17,"status":"settled","created_at":"c","settled_at":"s"}`)
}
