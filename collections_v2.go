package tambala

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
)

// EventCollectionV2Settled is the event of a /v2 collection.
const EventCollectionV2Settled = "collection_v2.settled"

// CollectionV2 is money received on /v2 (design 2.13): a deposit, a
// returned order refund, or a simulated collection. Amount - Fee =
// AmountCredited. An order_refund collection records the refund's one
// ledger posting; it is never a second credit.
type CollectionV2 struct {
	ID             string       `json:"id"`
	Status         string       `json:"status"` // settled or reversed
	Asset          string       `json:"asset"`
	Amount         money.Amount `json:"amount"`
	Fee            money.Amount `json:"fee"`
	AmountCredited money.Amount `json:"amount_credited"`
	Network        *string      `json:"network"`
	Source         string       `json:"source"` // deposit, order_refund or simulated
	OrderID        *string      `json:"order_id"`
	CreatedAt      string       `json:"created_at"`
}

var (
	bucketCollectionsV2      = []byte("collections_v2")
	bucketCollectionsV2ByOrg = []byte("collections_v2.by_org")
)

// collectionV2Record is a stored /v2 collection: its owner, the ledger
// entry it records and its rendering (amounts as text at the asset's
// decimals).
type collectionV2Record struct {
	Org      string          `json:"org"`
	EntryID  string          `json:"entry_id"`
	Rendered json.RawMessage `json:"rendered"`
}

// renderCollectionV2 is the one rendering of a /v2 collection: its read
// and the data of collection_v2.settled.
func renderCollectionV2(c CollectionV2) []byte { b, _ := json.Marshal(c); return b }

// recordRefundCollection writes the /v2 collection of a returned order
// refund and its event, in the refund's transaction.
func (e *Engine) recordRefundCollection(tx store.Tx, _ orders.Order, rc *orders.RefundCollection, now time.Time) error {
	id := e.newID()
	order := rc.OrderID
	c := CollectionV2{ID: id, Status: "settled", Asset: rc.Amount.Asset().Code, Amount: rc.Amount, Fee: money.Zero(rc.Amount.Asset()),
		AmountCredited: rc.Amount, Source: "order_refund", OrderID: &order, CreatedAt: orders.FormatTime(now)}
	rendered := renderCollectionV2(c)
	rec := collectionV2Record{Org: rc.Org, EntryID: rc.EntryID, Rendered: rendered}
	if err := records.PutJSON(tx, bucketCollectionsV2, id, rec); err != nil {
		return err
	}
	if err := tx.Put(bucketCollectionsV2ByOrg, records.IndexKey(rc.Org, id), nil); err != nil {
		return err
	}
	return e.emit(tx, rc.Org, EventCollectionV2Settled, rendered)
}
