package codec

// TradeRecord is the stored form of an OTC trade (the engine's Trade), its
// owner and the operator's reference: the USDT amount and the client rate
// as decimal text, the times as rendered.
type TradeRecord struct {
	Org        string `json:"org"`
	Ref        string `json:"ref"`
	ID         string `json:"id"`
	USDTAmount string `json:"usdt_amount"`
	ClientRate string `json:"client_rate"`
	MWKAmount  int64  `json:"mwk_amount"`
	Status     string `json:"status"`
	CreatedAt  string `json:"created_at"`
	SettledAt  string `json:"settled_at"`
}
