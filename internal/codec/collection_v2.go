package codec

import "encoding/json"

// CollectionV2Record is a stored /v2 collection: its owner, the ledger
// entry it records and its rendering (render.CollectionV2's bytes), kept
// as they were answered.
type CollectionV2Record struct {
	Org      string          `json:"org"`
	EntryID  string          `json:"entry_id"`
	Rendered json.RawMessage `json:"rendered"`
}

// CollectionV2Rendering is a /v2 collection read back from its stored
// rendering, the amounts as decimal text (the asset's decimals are the
// engine's to know).
type CollectionV2Rendering struct {
	ID             string  `json:"id"`
	Status         string  `json:"status"`
	Asset          string  `json:"asset"`
	Amount         string  `json:"amount"`
	Fee            string  `json:"fee"`
	AmountCredited string  `json:"amount_credited"`
	Network        *string `json:"network"`
	Source         string  `json:"source"`
	OrderID        *string `json:"order_id"`
	CreatedAt      string  `json:"created_at"`
}
