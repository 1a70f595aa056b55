package render

import (
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

// Quote is the JSON of a quote, as both quote calls issue it (the
// engine's Client.QuoteOrder and Client.QuoteConversion):
// {"quote_id","from_asset","to_asset","from_amount","to_amount","rate",
// "expires_at"}, amounts at their asset's decimals, the rate trimmed,
// expires_at in UTC with milliseconds (Time).
func Quote(q quotes.Quote) []byte {
	return mustMarshal(struct {
		QuoteID    string       `json:"quote_id"`
		FromAsset  string       `json:"from_asset"`
		ToAsset    string       `json:"to_asset"`
		FromAmount money.Amount `json:"from_amount"`
		ToAmount   money.Amount `json:"to_amount"`
		Rate       money.Rate   `json:"rate"`
		ExpiresAt  string       `json:"expires_at"`
	}{q.ID, string(q.From.Asset().Code), string(q.To.Asset().Code), q.From, q.To, q.Rate, Time(q.ExpiresAt)})
}
