package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/payouts"
)

func (h *Handler) collectionRoutes() {
	h.handle("GET /v1/collections", tambala.APIv1, h.listCollections)
	h.handle("GET /v1/collections/{id}", tambala.APIv1, h.getCollection)
	h.handleJSON("POST /v1/collections/simulate", tambala.APIv1, h.simulateCollection)
	h.handle("GET /v1/trades", tambala.APIv1, h.listTrades)
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

func (h *Handler) listCollections(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	page, ok := h.page(w, r)
	if !ok {
		return
	}
	res, err := h.engine.Client(p).Collections(r.Context(), page)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := make([]json.RawMessage, len(res.Items))
	for i, c := range res.Items {
		items[i] = render.Collection(c)
	}
	writeJSON(w, http.StatusOK, pageJSON("collections", items, res.HasMore, res.NextBeforeID))
}

func (h *Handler) getCollection(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	c, err := h.engine.Client(p).Collection(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.Collection(c))
}

func (h *Handler) simulateCollection(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	body, err := readBody(r)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	if h.engine.Environment() != tambala.Sandbox {
		// The engine refuses it too; answered before the body is decoded,
		// so an invalid body outside the sandbox is sandbox_only as well.
		writeError(w, r, h.log, errcode.New(errcode.SandboxOnly))
		return
	}
	var in struct {
		AmountMWK json.RawMessage `json:"amount_mwk"`
		Rail      payouts.Rail    `json:"rail"`
	}
	if err := decodeJSON(body, &in); err != nil {
		writeError(w, r, h.log, err)
		return
	}
	amt, err := parseAmountMWK(in.AmountMWK)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	c, err := h.engine.Client(p).SimulateCollection(r.Context(), tambala.SimulatedCollection{Amount: amt, Rail: in.Rail})
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusCreated, render.Collection(c))
}

func (h *Handler) listTrades(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	page, ok := h.page(w, r)
	if !ok {
		return
	}
	res, err := h.engine.Client(p).Trades(r.Context(), page)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := make([]json.RawMessage, len(res.Items))
	for i, t := range res.Items {
		items[i] = render.Trade(t)
	}
	writeJSON(w, http.StatusOK, pageJSON("trades", items, res.HasMore, res.NextBeforeID))
}

func (h *Handler) banks(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	banks, err := h.engine.Client(p).Banks(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := make([]json.RawMessage, len(banks))
	for i, b := range banks {
		items[i] = render.Bank(render.BankFields(b))
	}
	writeJSON(w, http.StatusOK, map[string]any{"banks": items})
}

func (h *Handler) operators(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	ops, at, err := h.engine.Client(p).MobileOperators(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := make([]json.RawMessage, len(ops))
	for i, o := range ops {
		items[i] = render.MobileOperator(render.MobileOperatorFields(o))
	}
	writeJSON(w, http.StatusOK, map[string]any{"operators": items, "fetched_at": render.Time(at)})
}
