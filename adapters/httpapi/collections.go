package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/payouts"
)

func (h *Handler) collectionRoutes() {
	h.handle("GET /v1/collections", tambala.APIv1, serveList(h, listRoute[tambala.Collection, struct{}]{
		name: "collections", filter: noFilter, list: unfiltered(v1Collections), render: render.Collection}))
	h.handle("GET /v1/collections/{id}", tambala.APIv1, serveGet(h, v1Collection, render.Collection))
	h.handleJSON("POST /v1/collections/simulate", tambala.APIv1, servePost(h, true, decodeSimulatedCollection, v1SimulateCollection, render.Collection))
	h.handle("GET /v1/trades", tambala.APIv1, serveList(h, listRoute[tambala.Trade, struct{}]{
		name: "trades", filter: noFilter, list: unfiltered((*tambala.Client).Trades), render: render.Trade}))
	h.handle("GET /v1/banks", tambala.APIv1, h.banks)
	h.handle("GET /v1/operators", tambala.APIv1, h.operators)
}

// page reads limit and before_id, answering the error itself.
func (h *Handler) page(w http.ResponseWriter, r *http.Request) (tambala.PageRequest, bool) {
	q := r.URL.Query()
	p, err := parsePage(q.Get("limit"), q.Get("before_id"))
	if err != nil {
		writeError(w, r, h.log, err)
		return p, false
	}
	return p, true
}

// decodeSimulatedCollection reads POST /v1/collections/simulate:
// {amount_mwk, rail}.
func decodeSimulatedCollection(body []byte) (tambala.SimulatedCollection, error) {
	var in struct {
		AmountMWK json.RawMessage `json:"amount_mwk"`
		Rail      payouts.Rail    `json:"rail"`
	}
	if err := decodeJSON(body, &in); err != nil {
		return tambala.SimulatedCollection{}, err
	}
	amt, err := parseAmountMWK(in.AmountMWK)
	if err != nil {
		return tambala.SimulatedCollection{}, err
	}
	return tambala.SimulatedCollection{Amount: amt, Rail: in.Rail}, nil
}

func (h *Handler) banks(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	banks, err := h.engine.Client(p).V1().Banks(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"banks": renderAll(banks, func(b tambala.Bank) []byte { return render.Bank(b) })})
}

func (h *Handler) operators(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	ops, at, err := h.engine.Client(p).V1().MobileOperators(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := renderAll(ops, func(o tambala.MobileOperator) []byte { return render.MobileOperator(o) })
	writeJSON(w, http.StatusOK, map[string]any{"operators": items, "fetched_at": render.Time(at)})
}
