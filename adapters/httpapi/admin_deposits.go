package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
)

func (a *Admin) depositRoutes() {
	a.handleJSON("POST /admin/orgs/{org}/deposits", a.recordDeposit)
	a.handle("POST /admin/orgs/{org}/deposit-addresses/{network}/rotate", a.rotateDepositAddress)
}

// rotateDepositAddress is POST
// /admin/orgs/{org}/deposit-addresses/{network}/rotate: a new address from
// the issuer replaces the organization's address on the network.
func (a *Admin) rotateDepositAddress(w http.ResponseWriter, r *http.Request) {
	d, err := a.engine.Operator().Desk().RotateDepositAddress(r.Context(), r.PathValue("org"), r.PathValue("network"))
	a.reply(w, r, http.StatusOK, json.RawMessage(render.DepositAddress(d)), err)
}

// recordDeposit is POST /admin/orgs/{org}/deposits {network, asset,
// amount, tx_ref}: a deposit credited to the organization, idempotent per
// (network, tx_ref): 201 with the /v2 collection, and the same deposit
// again answers 201 with the same collection, marked Idempotent-Replayed:
// true (see docs/decisions.md, "/v2 deposits and collections").
func (a *Admin) recordDeposit(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Network string          `json:"network"`
		Asset   string          `json:"asset"`
		Amount  json.RawMessage `json:"amount"`
		TxRef   string          `json:"tx_ref"`
	}
	if err := bind(r, &in); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	text, err := v2AmountText("amount", in.Amount)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	asset, amt, err := a.assetAmount(in.Asset, text, func(err error) error {
		return &errcode.Error{Code: errcode.ValidationError, Message: "amount: " + errcode.Message(err), Err: err}
	})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	c, err := a.engine.Operator().Desk().RecordDeposit(r.Context(), r.PathValue("org"), tambala.Deposit{Network: in.Network, Asset: asset.Code, Amount: amt, TxRef: in.TxRef})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	markReplayed(w, c.Replayed) // credited before under (network, tx_ref)
	writeRaw(w, http.StatusCreated, render.CollectionV2(c.Resource))
}

// assetAmount is text as an amount of the engine's asset code: the asset
// looked up (its error as it is), then text parsed for it, a parse error
// through parseErr (nil: as it is) so that a route may word it.
func (a *Admin) assetAmount(code, text string, parseErr func(error) error) (money.Asset, money.Amount, error) {
	asset, err := a.engine.Settings().Asset(money.AssetCode(code))
	if err != nil {
		return asset, money.Amount{}, err
	}
	amt, err := money.Parse(asset, text)
	if err != nil && parseErr != nil {
		err = parseErr(err)
	}
	return asset, amt, err
}
