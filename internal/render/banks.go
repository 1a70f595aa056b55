package render

import "encoding/json"

// BankFields is an item of the earlier API's bank list: the engine's Bank,
// field for field.
type BankFields struct {
	BankUUID string `json:"bank_uuid"`
	Name     string `json:"name"`
}

// Bank is the rendering of a bank of the earlier API's list (the engine's
// Client.Banks): {"bank_uuid","name"}.
func Bank(b BankFields) []byte {
	out, _ := json.Marshal(b)
	return out
}

// MobileOperatorFields is an item of the mobile operators' list: the
// engine's MobileOperator, field for field.
type MobileOperatorFields struct {
	RefID string `json:"ref_id"`
	Name  string `json:"name"`
}

// MobileOperator is the rendering of a mobile-money operator (the engine's
// Client.MobileOperators): {"ref_id","name"}.
func MobileOperator(o MobileOperatorFields) []byte {
	b, _ := json.Marshal(o)
	return b
}
