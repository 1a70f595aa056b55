package render

import (
	"encoding/json"

	"github.com/tambalapay/tambala/collections"

	"github.com/tambalapay/tambala/money"
)

// collectionV2JSON is the wire form of a /v2 collection
// (collections.CollectionV2): Network and OrderID render as null when nil;
// CreatedAt is already rendered.
type collectionV2JSON struct {
	ID             string       `json:"id"`
	Status         string       `json:"status"`
	Asset          string       `json:"asset"`
	Amount         money.Amount `json:"amount"`
	Fee            money.Amount `json:"fee"`
	AmountCredited money.Amount `json:"amount_credited"`
	Network        *string      `json:"network"`
	Source         string       `json:"source"`
	OrderID        *string      `json:"order_id"`
	CreatedAt      string       `json:"created_at"`
}

// CollectionV2 is the one rendering of a /v2 collection: a read of one
// (the engine's Client.Collection), each item of its list, the answer to
// a simulated collection and to a recorded deposit, and the data of
// collection_v2.settled are these bytes (the engine stores them with the
// collection): {"id","status","asset","amount","fee","amount_credited",
// "network","source","order_id","created_at"}, amounts at the asset's
// decimals.
func CollectionV2(c collections.CollectionV2) []byte {
	var network *string
	if c.Network != "" {
		network = &c.Network
	}
	return collectionV2Bytes(collectionV2JSON{ID: c.ID, Status: string(c.Status), Asset: string(c.Asset.Code), Amount: c.Amount,
		Fee: c.Fee, AmountCredited: c.AmountCredited, Network: network, Source: string(c.Source), OrderID: c.OrderID,
		CreatedAt: Time(c.CreatedAt)})
}

func collectionV2Bytes(f collectionV2JSON) []byte {
	b, _ := json.Marshal(f)
	return b
}
