// Package render holds the wire renderings that the engine's events and
// the HTTP binding share, so that an event's data and the read it mirrors
// are the same bytes; and the renderings of the engine's other resources,
// which only the binding answers with. It is below the engine, so a
// rendering of an engine type takes that type's fields (CollectionFields,
// OrganizationFields, ...), which the engine and the binding fill. Payouts
// render in package payouts.
package render

import (
	"encoding/json"

	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
)

// BalanceV1 is the one rendering of a /v1 balance (the engine's
// Client.BalanceV1), reused as the balance.low event's data.
func BalanceV1(b ledger.Balance) []byte {
	out, _ := json.Marshal(struct {
		Available money.Amount `json:"available"`
		Held      money.Amount `json:"held"`
		Shortfall money.Amount `json:"shortfall"`
		Currency  string       `json:"currency"`
	}{b.Available, b.Held, b.Shortfall, money.MWK.Code})
	return out
}
