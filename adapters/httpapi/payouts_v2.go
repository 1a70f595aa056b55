package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func (h *Handler) payoutV2Routes() {
	h.handleJSON("POST /v2/payouts", tambala.APIv2, serveCreate(h, createRoute[tambala.PayoutV2Request, tambala.PayoutV2]{
		op: tambala.CreatePayoutV2Op, decode: decodePayoutV2, create: (*tambala.Client).CreatePayoutV2,
		status: http.StatusAccepted, render: renderPayoutV2}))
	h.handle("GET /v2/payouts/{id}", tambala.APIv2, h.getPayoutV2)
	h.handle("GET /v2/payouts", tambala.APIv2, h.listPayoutsV2)
}

// decodePayoutV2 reads a POST /v2/payouts body with the strict decoding
// of every body: source_asset, asset and amount are JSON strings (a number
// is refused: send a string); destination is an object whose type says
// which other fields it has; institution_id is a positive JSON integer.
// Codes, decimals, the sign and the destination's rules are the engine's.
func decodePayoutV2(body []byte) (tambala.PayoutV2Request, error) {
	var w struct {
		SourceAsset *string         `json:"source_asset"`
		Asset       *string         `json:"asset"`
		Amount      json.RawMessage `json:"amount"`
		Destination *struct {
			Type            *string         `json:"type"`
			InstitutionID   json.RawMessage `json:"institution_id"`
			AccountNumber   *string         `json:"account_number"`
			MobileNumber    *string         `json:"mobile_number"`
			BeneficiaryName *string         `json:"beneficiary_name"`
			Network         *string         `json:"network"`
			Address         *string         `json:"address"`
		} `json:"destination"`
	}
	if err := decodeJSON(body, &w); err != nil {
		return tambala.PayoutV2Request{}, err
	}
	missing := func(f string) error { return errcode.Newf(errcode.ValidationError, "%s is required.", f) }
	var r tambala.PayoutV2Request
	if w.SourceAsset == nil || *w.SourceAsset == "" {
		return r, missing("source_asset")
	}
	if w.Asset == nil || *w.Asset == "" {
		return r, missing("asset")
	}
	r.SourceAsset, r.Asset = *w.SourceAsset, *w.Asset
	if len(w.Amount) == 0 || string(w.Amount) == "null" {
		return r, missing("amount")
	}
	var amount string
	if err := json.Unmarshal(w.Amount, &amount); err != nil {
		return r, errcode.Newf(errcode.ValidationError, "amount must be a JSON string (send a string, not a number).")
	}
	r.Amount = money.DecimalText(amount)
	d := w.Destination
	if d == nil {
		return r, missing("destination")
	}
	if d.Type == nil || *d.Type == "" {
		return r, missing("destination.type")
	}
	kind := tambala.DestinationKind(*d.Type)
	r.Destination.Type = kind
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	switch kind {
	case tambala.DestinationBank, tambala.DestinationMomo:
		if len(d.InstitutionID) == 0 || string(d.InstitutionID) == "null" {
			return r, missing("destination.institution_id")
		}
		if err := json.Unmarshal(d.InstitutionID, &r.Destination.InstitutionID); err != nil || r.Destination.InstitutionID <= 0 {
			return r, errcode.Newf(errcode.ValidationError, "destination.institution_id must be a positive JSON integer.")
		}
		if d.Network != nil || d.Address != nil {
			return r, errcode.Newf(errcode.ValidationError, "A %s destination has no network or address.", *d.Type)
		}
		if d.BeneficiaryName == nil {
			return r, missing("destination.beneficiary_name")
		}
		if kind == tambala.DestinationBank {
			if d.AccountNumber == nil || d.MobileNumber != nil {
				return r, errcode.Newf(errcode.ValidationError, "A bank destination has account_number and no mobile_number.")
			}
		} else if d.MobileNumber == nil || d.AccountNumber != nil {
			return r, errcode.Newf(errcode.ValidationError, "A momo destination has mobile_number and no account_number.")
		}
		r.Destination.AccountNumber, r.Destination.MobileNumber = str(d.AccountNumber), str(d.MobileNumber)
		r.Destination.BeneficiaryName = *d.BeneficiaryName
	case tambala.DestinationWallet:
		if len(d.InstitutionID) != 0 || d.AccountNumber != nil || d.MobileNumber != nil || d.BeneficiaryName != nil {
			return r, errcode.Newf(errcode.ValidationError, "A wallet destination has only network and address.")
		}
		if d.Network == nil || *d.Network == "" {
			return r, missing("destination.network")
		}
		if d.Address == nil || *d.Address == "" {
			return r, missing("destination.address")
		}
		r.Destination.Network, r.Destination.Address = *d.Network, *d.Address
	default:
		return r, errcode.Newf(errcode.ValidationError, "destination.type must be bank, momo or wallet.")
	}
	return r, nil
}

func (h *Handler) getPayoutV2(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	po, err := h.engine.Client(p).PayoutV2(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	writeRaw(w, http.StatusOK, renderPayoutV2(po))
}

func (h *Handler) listPayoutsV2(w http.ResponseWriter, r *http.Request, p tambala.Principal) {
	page, ok := h.page(w, r)
	if !ok {
		return
	}
	var status payouts.Status
	if s := r.URL.Query().Get("status"); s != "" {
		var err error
		if status, err = payouts.ParseStatus(s); err != nil {
			writeError(w, r, h.log, err)
			return
		}
	}
	res, err := h.engine.Client(p).PayoutsV2(r.Context(), page, tambala.PayoutFilter{Status: status})
	if err != nil {
		writeError(w, r, h.log, err)
		return
	}
	items := make([]json.RawMessage, len(res.Items))
	for i, po := range res.Items {
		items[i] = renderPayoutV2(po)
	}
	writeJSON(w, http.StatusOK, pageJSON("payouts", items, res.HasMore, res.NextBeforeID))
}
