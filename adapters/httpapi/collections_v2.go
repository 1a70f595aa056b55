package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
)

func (h *Handler) collectionV2Routes() {
	h.handle("GET /v2/deposit-addresses", tambala.APIv2, h.depositAddresses)
	h.handle("GET /v2/collections", tambala.APIv2, h.listCollectionsV2)
	h.handle("GET /v2/collections/{id}", tambala.APIv2, h.getCollectionV2)
	h.handleJSON("POST /v2/collections/simulate", tambala.APIv2, h.simulateCollectionV2)
}

func (h *Handler) depositAddresses(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	list, err := h.engine.Client(p).DepositAddresses(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := make([]json.RawMessage, len(list))
	for i, d := range list {
		items[i] = render.DepositAddress(render.DepositAddressFields(d))
	}
	writeJSON(w, http.StatusOK, map[string]any{"deposit_addresses": items})
}

func renderCollectionsV2(cs []tambala.CollectionV2) []json.RawMessage {
	out := make([]json.RawMessage, len(cs))
	for i, c := range cs {
		out[i] = render.CollectionV2(c)
	}
	return out
}

func (h *Handler) listCollectionsV2(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	page, ok := h.page(w, r)
	if !ok {
		return
	}
	asset, err := assetFilter(r)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	f := tambala.CollectionV2Filter{Asset: money.AssetCode(asset)}
	res, err := h.engine.Client(p).CollectionsV2(r.Context(), page, f)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeJSON(w, http.StatusOK, pageJSON("collections", renderCollectionsV2(res.Items), res.HasMore, res.NextBeforeID))
}

func (h *Handler) getCollectionV2(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	c, err := h.engine.Client(p).CollectionV2(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.CollectionV2(c))
}

// assetFilter reads the optional ?asset= of a /v2 list: absent is every
// asset, present and empty is validation_error.
func assetFilter(r *http.Request) (string, error) {
	q := r.URL.Query()
	if q.Has("asset") && q.Get("asset") == "" {
		return "", errcode.Newf(errcode.ValidationError, "asset must not be empty.")
	}
	return q.Get("asset"), nil
}

// simulateCollectionV2 is POST /v2/collections/simulate: sandbox_only is
// answered before the body is decoded; then the body's shape (400), and
// the engine checks the rest in SimulateCollectionV2's order (see
// docs/decisions.md, "/v2 deposits and collections").
func (h *Handler) simulateCollectionV2(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	body, err := readBody(r)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	if h.engine.Environment() != tambala.Sandbox {
		writeError(w, r, h.log, errcode.New(errcode.SandboxOnly))
		return
	}
	sc, err := decodeSimulatedCollectionV2(body)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	c, err := h.engine.Client(p).SimulateCollectionV2(r.Context(), sc)
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusCreated, render.CollectionV2(c))
}

// decodeSimulatedCollectionV2 reads {asset, amount, network?}: asset a
// non-empty string, amount a JSON string (a number is refused: send a
// string), network a string, null or absent.
func decodeSimulatedCollectionV2(body []byte) (tambala.SimulatedCollectionV2, error) {
	var in struct {
		Asset   *string         `json:"asset"`
		Amount  json.RawMessage `json:"amount"`
		Network *string         `json:"network"`
	}
	if err := decodeJSON(body, &in); err != nil {
		return tambala.SimulatedCollectionV2{}, err
	}
	if in.Asset == nil || *in.Asset == "" {
		return tambala.SimulatedCollectionV2{}, errcode.Newf(errcode.ValidationError, "asset is required.")
	}
	amount, err := v2AmountText("amount", in.Amount)
	if err != nil {
		return tambala.SimulatedCollectionV2{}, err
	}
	sc := tambala.SimulatedCollectionV2{Asset: money.AssetCode(*in.Asset), Amount: money.DecimalText(amount)}
	if in.Network != nil {
		sc.Network, sc.EmptyNetwork = *in.Network, *in.Network == ""
	}
	return sc, nil
}

// v2AmountText reads a required /v2 amount field as its decimal text: a
// JSON string, never a number, as every /v2 amount (see
// docs/decisions.md, "Money"); the engine parses it once the asset is
// known.
func v2AmountText(field string, raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", errcode.Newf(errcode.ValidationError, "%s is required.", field)
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", errcode.Newf(errcode.ValidationError, "%s must be a JSON string (send \"100.50\", not 100.50).", field)
	}
	if s == "" {
		return "", errcode.Newf(errcode.ValidationError, "%s is required.", field)
	}
	return s, nil
}
