package render

import (
	"testing"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func TestTradeBytes(t *testing.T) {
	rate, err := money.ParseRate("1750.50")
	if err != nil {
		t.Fatal(err)
	}
	pin(t, tradeBytes(tradeJSON{ID: "t", USDTAmount: money.FromInt(money.USDT, 1000000), ClientRate: rate, MWKAmount: 1750, Status: "settled", CreatedAt: "c", SettledAt: "s"}),
		`{"id":"t","usdt_amount":"1000000.000000","client_rate":"1750.5","mwk_amount":1750,"status":"settled","created_at":"c","settled_at":"s"}`)
}

func TestBankAndMobileOperatorBytes(t *testing.T) {
	pin(t, Bank(payouts.BankListing{BankUUID: "u", Name: "n"}), `{"bank_uuid":"u","name":"n"}`)
	pin(t, MobileOperator(payouts.MobileOperator{RefID: "1", Name: "n"}), `{"ref_id":"1","name":"n"}`)
}
