package httpapi

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
)

//go:embed openapi.json
var openAPIDoc []byte

//go:embed openapi-admin.json
var adminOpenAPIDoc []byte

// OpenAPI returns the OpenAPI 3 document of the public API, served at
// GET /openapi.json.
func OpenAPI() []byte { return openAPIDoc }

// AdminOpenAPI returns the OpenAPI 3 document of the admin API, served by
// the Admin handler at GET /admin/openapi.json (behind the admin token).
func AdminOpenAPI() []byte { return adminOpenAPIDoc }

func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request) {
	writeRaw(w, http.StatusOK, openAPIDoc)
}

func (a *Admin) openAPI(w http.ResponseWriter, r *http.Request) {
	writeRaw(w, http.StatusOK, adminOpenAPIDoc)
}

func itoa(n int) string { return strconv.Itoa(n) }

func (h *Handler) pingV1(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	writeJSON(w, http.StatusOK, struct {
		Org       string `json:"org"`
		Mode      string `json:"mode"`
		KeyPrefix string `json:"key_prefix"`
	}{p.Org.Name, "live", p.Key.Prefix})
}

func (h *Handler) pingV2(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	writeJSON(w, http.StatusOK, struct {
		Status string `json:"status"`
	}{p.Pause.PingStatus()})
}

func (h *Handler) balanceV1(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	b, err := h.engine.Client(p).V1().Balance(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusOK, render.BalanceV1(b))
}

func (h *Handler) assets(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	assets, err := h.engine.Client(p).EnabledAssets(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := renderAll(assets, func(a tambala.EnabledAsset) []byte { return render.EnabledAsset(a) })
	writeJSON(w, http.StatusOK, struct {
		Assets []json.RawMessage `json:"assets"`
	}{items})
}

type balanceJSON struct {
	Asset     string       `json:"asset"`
	Available money.Amount `json:"available"`
	Held      money.Amount `json:"held"`
}

func toBalanceJSON(b ledger.Balance) balanceJSON {
	return balanceJSON{Asset: string(b.Asset.Code), Available: b.Available, Held: b.Held}
}

func (h *Handler) balancesV2(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	bs, err := h.engine.Client(p).Balances(r.Context())
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	out := make([]balanceJSON, 0, len(bs))
	for _, b := range bs {
		out = append(out, toBalanceJSON(b))
	}
	writeJSON(w, http.StatusOK, struct {
		Balances []balanceJSON `json:"balances"`
	}{out})
}

func (h *Handler) balanceV2(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	b, err := h.engine.Client(p).Balance(r.Context(), money.AssetCode(r.PathValue("asset")))
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toBalanceJSON(b))
}
