package render

import (
	"github.com/tambalapay/tambala/conversions"
	"github.com/tambalapay/tambala/money"
)

// Conversion is the one rendering of a conversion, shared by its
// creation, its reads and its events' data: {id, from_asset, to_asset,
// from_amount, to_amount, rate, status, failure|null, created_at}.
func Conversion(c conversions.Conversion) []byte {
	var f *Failure
	if c.Failure != nil {
		f = &Failure{Code: c.Failure.Code, Message: c.Failure.Message}
	}
	return mustMarshal(struct {
		ID         string             `json:"id"`
		FromAsset  string             `json:"from_asset"`
		ToAsset    string             `json:"to_asset"`
		FromAmount money.Amount       `json:"from_amount"`
		ToAmount   money.Amount       `json:"to_amount"`
		Rate       money.Rate         `json:"rate"`
		Status     conversions.Status `json:"status"`
		Failure    *Failure           `json:"failure"`
		CreatedAt  string             `json:"created_at"`
	}{c.ID, string(c.From.Asset().Code), string(c.To.Asset().Code), c.From, c.To, c.Rate, c.Status, f, Time(c.CreatedAt)})
}
