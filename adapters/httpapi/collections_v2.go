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
	h.handle("GET /v2/collections", tambala.APIv2, serveList(h, listRoute[tambala.CollectionV2, tambala.CollectionV2Filter]{
		name: "collections", filter: collectionV2Filter, list: (*tambala.Client).Collections, render: render.CollectionV2}))
	h.handle("GET /v2/collections/{id}", tambala.APIv2, serveGet(h, (*tambala.Client).Collection, render.CollectionV2))
	h.handleJSON("POST /v2/collections/simulate", tambala.APIv2, servePost(h, true, decodeSimulatedCollectionV2, (*tambala.Client).SimulateCollection, render.CollectionV2))
}

func (h *Handler) depositAddresses(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	list, err := h.engine.Client(p).DepositAddresses(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := renderAll(list, func(d tambala.DepositAddress) []byte { return render.DepositAddress(d) })
	writeJSON(w, http.StatusOK, map[string]any{"deposit_addresses": items})
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

func collectionV2Filter(r *http.Request) (tambala.CollectionV2Filter, error) {
	asset, err := assetFilter(r)
	return tambala.CollectionV2Filter{Asset: money.AssetCode(asset)}, err
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
