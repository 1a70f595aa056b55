package httpapi

import (
	"encoding/json"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

// decodeQuoteRequest reads a quote body (both quote routes) with the
// strict decoding of every request body and checks its shape (step 1 of
// package quotes' checks, all validation_error): from_amount and
// to_amount, when present and not null, JSON strings (a JSON number is
// refused: send a string), then quotes.Request.CheckShape: both asset
// codes non-empty, exactly one amount, in the grammar of money.Parse.
// Codes, decimals and the sign are checked later (Request.Check, the
// engine's quote).
func decodeQuoteRequest(body []byte) (quotes.Request, error) {
	var w struct {
		FromAsset  *string         `json:"from_asset"`
		ToAsset    *string         `json:"to_asset"`
		FromAmount json.RawMessage `json:"from_amount"`
		ToAmount   json.RawMessage `json:"to_amount"`
	}
	if err := decodeJSON(body, &w); err != nil {
		return quotes.Request{}, err
	}
	var r quotes.Request
	if w.FromAsset != nil {
		r.FromAsset = money.AssetCode(*w.FromAsset)
	}
	if w.ToAsset != nil {
		r.ToAsset = money.AssetCode(*w.ToAsset)
	}
	for _, a := range []struct {
		field string
		raw   json.RawMessage
		dst   *money.Decimal
	}{{"from_amount", w.FromAmount, &r.FromAmount}, {"to_amount", w.ToAmount, &r.ToAmount}} {
		s, present, err := jsonString(a.field, a.raw)
		if err != nil {
			return quotes.Request{}, err
		}
		if present {
			*a.dst = money.DecimalText(s)
		}
	}
	if err := r.CheckShape(); err != nil {
		return quotes.Request{}, err
	}
	return r, nil
}

// jsonString reads a raw JSON value that must be a string; absent and null
// are not present.
func jsonString(field string, raw json.RawMessage) (s string, present bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] != '"' {
		return "", false, errcode.Newf(errcode.ValidationError, "%s must be a JSON string (send \"100.50\", not 100.50).", field)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, errcode.Newf(errcode.ValidationError, "%s must be a JSON string.", field)
	}
	return s, true, nil
}
