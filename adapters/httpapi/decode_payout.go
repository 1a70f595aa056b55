package httpapi

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// payoutBody is the JSON body of both /v1 create-payout routes.
// The text fields are plain strings: absent, null and "" read the same.
type payoutBody struct {
	AmountMWK       json.RawMessage `json:"amount_mwk"`
	InstitutionID   json.RawMessage `json:"institution_id"`
	AccountNumber   string          `json:"account_number"`
	MobileNumber    string          `json:"mobile_number"`
	BeneficiaryName string          `json:"beneficiary_name"`
}

// decodePayoutRequest reads a create-payout body for rail into a
// payouts.Request with the strict decoding of every request body
// (decodeJSON): one JSON object with amount_mwk (parseAmountMWK),
// institution_id (a positive JSON integer) and the destination's text
// fields (payouts.CheckText), in that order; the mobile number's pattern
// is the engine's check. The engine validates the Request it is given
// again (payouts.Request.Validate), so a Go host that builds a Request
// gets the same rules.
func decodePayoutRequest(rail payouts.Rail, body []byte) (payouts.Request, error) {
	var w payoutBody
	if err := decodeJSON(body, &w); err != nil {
		return payouts.Request{}, err
	}
	amt, err := parseAmountMWK(w.AmountMWK)
	if err != nil {
		return payouts.Request{}, err
	}
	if len(w.InstitutionID) == 0 || string(w.InstitutionID) == "null" {
		return payouts.Request{}, required("institution_id")
	}
	inst := jsonInt(w.InstitutionID) // not a JSON integer: 0, refused as a non-positive one
	if err := payouts.CheckInstitutionID(inst); err != nil {
		return payouts.Request{}, err
	}
	r := payouts.Request{Rail: rail, Amount: amt, Destination: payouts.Destination{InstitutionID: inst}}
	if r.Destination.BeneficiaryName, err = textField("beneficiary_name", w.BeneficiaryName); err != nil {
		return payouts.Request{}, err
	}
	switch rail {
	case payouts.Bank:
		if r.Destination.AccountNumber, err = textField("account_number", w.AccountNumber); err != nil {
			return payouts.Request{}, err
		}
	case payouts.Momo:
		if w.MobileNumber == "" {
			return payouts.Request{}, required("mobile_number")
		}
		r.Destination.MobileNumber = w.MobileNumber
	default:
		return payouts.Request{}, payouts.CheckRail(rail)
	}
	return r, nil
}

// textField reads a destination's text field under payouts.CheckText;
// absent is empty.
func textField(field string, s string) (string, error) {
	return s, payouts.CheckText(field, s)
}

// jsonInt is the value of the JSON value raw as encoding/json decodes it
// into an int: a JSON integer literal in the range of int, and 0 for
// anything else (a fraction, an exponent, a string, out of range).
func jsonInt(raw json.RawMessage) int {
	raw = bytes.Trim(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return 0
	}
	n, err := strconv.ParseInt(string(raw), 10, strconv.IntSize)
	if err != nil {
		return 0
	}
	return int(n)
}

// parseAmountMWK is the one rule for amount_mwk in a /v1 body: a JSON
// integer or a decimal string with at most 2 places (money.ParseJSON),
// greater than zero and at most payouts.MaxAmount (payouts.CheckAmount);
// anything else is validation_error.
func parseAmountMWK(raw json.RawMessage) (money.Amount, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return money.Amount{}, required("amount_mwk")
	}
	amt, err := money.ParseJSON(money.MWK, raw)
	if err != nil {
		return money.Amount{}, fieldError("amount_mwk", err)
	}
	if err := payouts.CheckAmount(amt); err != nil {
		return money.Amount{}, err
	}
	return amt, nil
}
