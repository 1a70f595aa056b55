package tambala

import (
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
)

// tradeRecord is a trade as stored.
type tradeRecord = codec.TradeRecord

// fromTradeRecord reads a stored trade back.
func fromTradeRecord(r tradeRecord) (Trade, error) {
	rate, err := money.ParseRate(r.ClientRate)
	if err != nil {
		return Trade{}, err
	}
	amt, err := money.Parse(money.USDT, r.USDTAmount)
	if err != nil {
		return Trade{}, err
	}
	return Trade{ID: r.ID, USDTAmount: amt, ClientRate: rate, MWKAmount: r.MWKAmount, Status: TradeStatus(r.Status), CreatedAt: r.CreatedAt, SettledAt: r.SettledAt}, nil
}
