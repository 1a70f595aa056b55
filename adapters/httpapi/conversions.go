package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala/money"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
)

// The /v2 conversion routes.
func (h *Handler) conversionRoutes() {
	h.handleJSON("POST /v2/conversions/quotes", tambala.APIv2, h.serveQuote((*tambala.Client).QuoteConversion))
	h.handleJSON("POST /v2/conversions", tambala.APIv2, serveCreate(h, createRoute[tambala.NewConversion, tambala.Conversion]{
		op: tambala.CreateConversion, decode: decodeNewConversion, create: (*tambala.Client).CreateConversion,
		status: http.StatusCreated, render: render.Conversion}))
	h.handle("GET /v2/conversions", tambala.APIv2, h.listConversions)
	h.handle("GET /v2/conversions/{id}", tambala.APIv2, h.getConversion)
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

func (h *Handler) getConversion(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	c, err := h.engine.Client(p).Conversion(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.Conversion(c))
}

func (h *Handler) listConversions(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	page, ok := h.page(w, r)
	if !ok {
		return
	}
	asset, err := assetFilter(r)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	f := tambala.ConversionFilter{Asset: money.AssetCode(asset)}
	res, err := h.engine.Client(p).Conversions(r.Context(), page, f)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := make([]json.RawMessage, len(res.Items))
	for i, c := range res.Items {
		items[i] = render.Conversion(c)
	}
	writeJSON(w, http.StatusOK, pageJSON("conversions", items, res.HasMore, res.NextBeforeID))
}
