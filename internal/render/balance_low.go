package render

import (
	"encoding/json"

	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
)

// BalanceLow is the data of a balance.low event: the organization's /v1
// balance (BalanceV1) after the change that took it under its floor, and
// the floor: {"balance","floor_mwk"}.
func BalanceLow(b ledger.Balance, floor money.Amount) []byte {
	out, _ := json.Marshal(struct {
		Balance  json.RawMessage `json:"balance"`
		FloorMWK money.Amount    `json:"floor_mwk"`
	}{BalanceV1(b), floor})
	return out
}
