package render

import "encoding/json"

// Rails is the rendering of the rail pause switches (the engine's Rails)
// for the operator: {"bank_disabled","momo_disabled"}.
func Rails(bankDisabled, momoDisabled bool) []byte {
	b, _ := json.Marshal(struct {
		BankDisabled bool `json:"bank_disabled"`
		MomoDisabled bool `json:"momo_disabled"`
	}{bankDisabled, momoDisabled})
	return b
}
