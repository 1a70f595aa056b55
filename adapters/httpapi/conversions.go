package httpapi

import (
	"net/http"

	"github.com/tambalapay/tambala/money"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
)

// The /v2 conversion routes.
func (h *Handler) conversionRoutes() {
	h.handleJSON("POST /v2/conversions/quotes", tambala.APIv2, servePost(h, false, decodeQuoteRequest, (*tambala.Client).QuoteConversion, render.Quote))
	h.handleJSON("POST /v2/conversions", tambala.APIv2, serveCreate(h, createRoute[tambala.NewConversion, tambala.Conversion]{
		op: tambala.CreateConversion, decode: decodeNewConversion, create: (*tambala.Client).CreateConversion,
		status: http.StatusCreated, render: render.Conversion}))
	h.handle("GET /v2/conversions", tambala.APIv2, serveList(h, listRoute[tambala.Conversion, tambala.ConversionFilter]{
		name: "conversions", filter: conversionFilter, list: (*tambala.Client).Conversions, render: render.Conversion}))
	h.handle("GET /v2/conversions/{id}", tambala.APIv2, serveGet(h, (*tambala.Client).Conversion, render.Conversion))
}

// decodeNewConversion reads POST /v2/conversions: {"quote_id": string}.
func decodeNewConversion(body []byte) (tambala.NewConversion, error) {
	var in struct {
		QuoteID *string `json:"quote_id"`
	}
	if err := decodeJSON(body, &in); err != nil {
		return tambala.NewConversion{}, err
	}
	if in.QuoteID == nil {
		return tambala.NewConversion{}, errcode.Newf(errcode.ValidationError, "quote_id is required.")
	}
	return tambala.NewConversion{QuoteID: *in.QuoteID}, nil
}

func conversionFilter(r *http.Request) (tambala.ConversionFilter, error) {
	asset, err := assetFilter(r)
	return tambala.ConversionFilter{Asset: money.AssetCode(asset)}, err
}
