package render

import (
	"encoding/json"

	"github.com/tambalapay/tambala/payouts"
)

// Bank is the rendering of a bank of the earlier API's list (the engine's
// ClientV1.Banks): {"bank_uuid","name"}.
func Bank(b payouts.BankListing) []byte {
	out, _ := json.Marshal(struct {
		BankUUID string `json:"bank_uuid"`
		Name     string `json:"name"`
	}{b.BankUUID, b.Name})
	return out
}

// MobileOperator is the rendering of a mobile-money operator (the engine's
// ClientV1.MobileOperators): {"ref_id","name"}.
func MobileOperator(o payouts.MobileOperator) []byte {
	b, _ := json.Marshal(struct {
		RefID string `json:"ref_id"`
		Name  string `json:"name"`
	}{o.RefID, o.Name})
	return b
}
