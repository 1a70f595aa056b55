package render

import (
	"encoding/json"

	"github.com/tambalapay/tambala/trades"

	"github.com/tambalapay/tambala/money"
)

// tradeJSON is the wire form of an OTC funding trade (trades.Trade), the
// times already rendered.
type tradeJSON struct {
	ID         string       `json:"id"`
	USDTAmount money.Amount `json:"usdt_amount"`
	ClientRate money.Rate   `json:"client_rate"`
	MWKAmount  int64        `json:"mwk_amount"`
	Status     string       `json:"status"`
	CreatedAt  string       `json:"created_at"`
	SettledAt  string       `json:"settled_at"`
}

// Trade is the one rendering of a trade: each item of its list (the
// engine's Client.Trades), the operator's record of one and the data of
// trade.settled are these bytes:
// {"id","usdt_amount","client_rate","mwk_amount","status","created_at",
// "settled_at"}, the kwacha credited a whole number.
func Trade(t trades.Trade) []byte {
	return tradeBytes(tradeJSON{ID: t.ID, USDTAmount: t.USDTAmount, ClientRate: t.ClientRate, MWKAmount: t.MWKAmount,
		Status: string(t.Status), CreatedAt: Time(t.CreatedAt), SettledAt: Time(t.SettledAt)})
}

func tradeBytes(f tradeJSON) []byte {
	b, _ := json.Marshal(f)
	return b
}
