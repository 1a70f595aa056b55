package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

// The operator's per-(asset, operation) limits of /v2 conversions and
// payouts (see docs/decisions.md, "/v2 conversions").
func (a *Admin) conversionRoutes() {
	a.handle("GET /admin/assets/{asset}/limits/{operation}", a.getAssetLimits)
	a.handleJSON("PUT /admin/assets/{asset}/limits/{operation}", a.setAssetLimits)
	a.handle("GET /admin/networks", a.listNetworks)
}

func renderAssetLimits(asset, op string, l quotes.Limits) map[string]any {
	out := map[string]any{"asset": asset, "operation": op, "min": nil, "max": nil}
	if l.Min.IsSet() {
		out["min"] = l.Min.String()
	}
	if l.Max.IsSet() {
		out["max"] = l.Max.String()
	}
	return out
}

func limitsOperation(op string) error {
	if op != tambala.OpConvert && op != tambala.OpPayout {
		return errcode.Newf(errcode.ValidationError, "operation must be convert or payout.")
	}
	return nil
}

func (a *Admin) getAssetLimits(w http.ResponseWriter, r *http.Request) {
	asset, op := r.PathValue("asset"), r.PathValue("operation")
	if err := limitsOperation(op); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	l, err := a.engine.Operator().Desk().AssetLimits(r.Context(), money.AssetCode(asset), op)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, renderAssetLimits(asset, op, l))
}

// setAssetLimits is PUT /admin/assets/{asset}/limits/{operation} with
// {"min":"10.00"|null?, "max":"..."|null?}: absent or null removes a bound.
func (a *Admin) setAssetLimits(w http.ResponseWriter, r *http.Request) {
	asset, op := r.PathValue("asset"), r.PathValue("operation")
	if err := limitsOperation(op); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	ma, err := a.engine.Settings().Asset(money.AssetCode(asset))
	if err != nil {
		writeError(w, r, a.log, money.NotConfigured(truncateField(asset)))
		return
	}
	var in struct {
		Min json.RawMessage `json:"min"`
		Max json.RawMessage `json:"max"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	var l quotes.Limits
	for _, b := range []struct {
		field string
		raw   json.RawMessage
		out   *money.Amount
	}{{"min", in.Min, &l.Min}, {"max", in.Max, &l.Max}} {
		if len(b.raw) == 0 || string(b.raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(b.raw, &s); err != nil {
			writeError(w, r, a.log, errcode.Newf(errcode.ValidationError, "%s must be a string.", b.field))
			return
		}
		v, err := quotes.ParseAmount(b.field, s, ma)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		*b.out = v
	}
	if err := a.engine.Operator().Desk().SetAssetLimits(r.Context(), money.AssetCode(asset), op, l); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, renderAssetLimits(asset, op, l))
}

// listNetworks is GET /admin/networks: the networks the engine accepts,
// with their address format and the assets each carries.
func (a *Admin) listNetworks(w http.ResponseWriter, r *http.Request) {
	type networkJSON struct {
		ID     string            `json:"id"`
		Kind   string            `json:"kind"`
		Assets []money.AssetCode `json:"assets"`
	}
	var out []networkJSON
	for _, n := range a.engine.Settings().Networks() {
		out = append(out, networkJSON{ID: n.ID, Kind: string(n.Kind), Assets: n.Assets})
	}
	writeJSON(w, http.StatusOK, map[string]any{"networks": out})
}
