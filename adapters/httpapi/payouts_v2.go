package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

func (h *Handler) payoutV2Routes() {
	h.handleJSON("POST /v2/payouts", tambala.APIv2, serveCreate(h, createRoute[tambala.PayoutV2Request, tambala.PayoutV2]{
		op: tambala.CreatePayoutV2Op, decode: decodePayoutV2, create: (*tambala.Client).CreatePayout,
		status: http.StatusAccepted, render: render.PayoutV2}))
	h.handle("GET /v2/payouts/{id}", tambala.APIv2, serveGet(h, (*tambala.Client).Payout, render.PayoutV2))
	h.handle("GET /v2/payouts", tambala.APIv2, serveList(h, listRoute[tambala.PayoutV2, tambala.PayoutFilter]{
		name: "payouts", filter: payoutFilter, list: (*tambala.Client).Payouts, render: render.PayoutV2}))
}

// decodePayoutV2 reads a POST /v2/payouts body with the strict decoding
// of every body: source_asset, asset and amount are JSON strings (a number
// is refused: send a string); destination is an object whose type says
// which other fields it has (payouts.V2Destination.CheckFields, on the
// members the body carries: a text sent as "" is sent; institution_id is
// sent with any value, null included, which where it is needed reads as
// missing); institution_id is a positive JSON integer. Codes, decimals,
// the sign and the destination's values are the engine's rules.
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
	var r tambala.PayoutV2Request
	if w.SourceAsset == nil || *w.SourceAsset == "" {
		return r, required("source_asset")
	}
	if w.Asset == nil || *w.Asset == "" {
		return r, required("asset")
	}
	r.SourceAsset, r.Asset = money.AssetCode(*w.SourceAsset), money.AssetCode(*w.Asset)
	if len(w.Amount) == 0 || string(w.Amount) == "null" {
		return r, required("amount")
	}
	var amount string
	if err := json.Unmarshal(w.Amount, &amount); err != nil {
		return r, errcode.Newf(errcode.ValidationError, "amount must be a JSON string (send a string, not a number).")
	}
	r.Amount = money.DecimalText(amount)
	d := w.Destination
	if d == nil {
		return r, required("destination")
	}
	var sent payouts.DestinationFields
	text := func(p *string, f payouts.DestinationFields) string {
		if p == nil {
			return ""
		}
		sent |= f
		return *p
	}
	dest := payouts.V2Destination{
		Type:            payouts.DestinationKind(text(d.Type, 0)),
		AccountNumber:   text(d.AccountNumber, payouts.FieldAccountNumber),
		MobileNumber:    text(d.MobileNumber, payouts.FieldMobileNumber),
		BeneficiaryName: text(d.BeneficiaryName, payouts.FieldBeneficiaryName),
		Network:         text(d.Network, payouts.FieldNetwork),
		Address:         text(d.Address, payouts.FieldAddress),
	}
	if len(d.InstitutionID) != 0 {
		sent |= payouts.FieldInstitutionID
	}
	if dest.Type.Fields().Has(payouts.FieldInstitutionID) && sent.Has(payouts.FieldInstitutionID) {
		// The value first, as a kind that has one reads it: null is
		// missing, anything else a positive JSON integer.
		if string(d.InstitutionID) == "null" {
			sent &^= payouts.FieldInstitutionID
		} else if err := json.Unmarshal(d.InstitutionID, &dest.InstitutionID); err != nil || dest.InstitutionID <= 0 {
			return r, errcode.Newf(errcode.ValidationError, "destination.institution_id must be a positive JSON integer.")
		}
	}
	if err := dest.CheckFields(sent); err != nil {
		return r, err
	}
	r.Destination = dest
	return r, nil
}
