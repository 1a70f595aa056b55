package tambala

import (
	"context"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// EventCollectionV2Settled is the event of a /v2 collection.
const EventCollectionV2Settled = "collection_v2.settled"

// CollectionV2 is money received on /v2: a deposit, a returned order
// refund, or a simulated collection. Amount - Fee = AmountCredited. An
// order_refund collection records the refund's one ledger posting; it is
// never a second credit.
type CollectionV2 struct {
	ID             string
	Status         CollectionStatus
	Asset          string
	Amount         money.Amount
	Fee            money.Amount
	AmountCredited money.Amount
	Network        *string
	Source         CollectionSource
	OrderID        *string
	CreatedAt      time.Time
}

var (
	bucketCollectionsV2      = []byte("collections_v2")
	bucketCollectionsV2ByOrg = []byte("collections_v2.by_org")
)

// recordRefundCollection writes the /v2 collection of a returned order
// refund and its event, in the refund's transaction.
func (e *Engine) recordRefundCollection(tx store.Tx, _ orders.Order, rc *orders.RefundCollection, now time.Time) error {
	id := e.newID()
	order := rc.OrderID
	c := CollectionV2{ID: id, Status: "settled", Asset: rc.Amount.Asset().Code, Amount: rc.Amount, Fee: money.Zero(rc.Amount.Asset()),
		AmountCredited: rc.Amount, Source: "order_refund", OrderID: &order, CreatedAt: now}
	rendered := renderCollectionV2(c)
	rec := collectionV2Record{Org: rc.Org, EntryID: rc.EntryID, Rendered: rendered}
	if err := records.PutJSON(tx, bucketCollectionsV2, id, rec); err != nil {
		return err
	}
	if err := tx.Put(bucketCollectionsV2ByOrg, records.IndexKey(rc.Org, id), nil); err != nil {
		return err
	}
	return e.emit(tx, rc.Org, EventCollectionV2Settled, rendered, rawResource(eventCollectionV2, rendered))
}

// CollectionSource is where a /v2 collection came from.
type CollectionSource string

// Sources of a /v2 collection.
const (
	CollectionSourceDeposit     CollectionSource = "deposit"
	CollectionSourceOrderRefund CollectionSource = "order_refund"
	CollectionSourceSimulated   CollectionSource = "simulated"
)

func collectionV2Entry(id string) string { return "collection_v2:" + id }

// loadCollectionV2 reads one of org's /v2 collections: not_found for an
// unknown, foreign or malformed id.
func (e *Engine) loadCollectionV2(tx store.Tx, org, id string) (CollectionV2, error) {
	if id == "" || len(id) > 64 {
		return CollectionV2{}, errNotFound
	}
	var r collectionV2Record
	if err := records.GetJSON(tx, bucketCollectionsV2, id, &r, errNotFound); err != nil {
		return CollectionV2{}, err
	}
	if r.Org != org {
		return CollectionV2{}, errNotFound
	}
	return e.decodeCollectionV2(r.Rendered)
}

// CollectionV2Filter narrows Client.CollectionsV2: Asset, when set, keeps
// that asset's collections (it must be well-formed and in the
// organization's list).
type CollectionV2Filter struct {
	Asset string
}

// collectionsV2 is Client.CollectionsV2.
func (e *Engine) collectionsV2(ctx context.Context, p Principal, page PageRequest, f CollectionV2Filter) (Page[CollectionV2], error) {
	var out Page[CollectionV2]
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		var keep func(id string) (bool, error)
		if f.Asset != "" {
			if _, err := e.assetOf(org, f.Asset, ""); err != nil {
				return err
			}
			keep = func(id string) (bool, error) {
				c, err := e.loadCollectionV2(tx, org.ID, id)
				return err == nil && c.Asset == f.Asset, err
			}
		}
		out, err = listPage(tx, bucketCollectionsV2ByOrg, org.ID, page, keep, func(id string) (CollectionV2, error) {
			return e.loadCollectionV2(tx, org.ID, id)
		})
		return err
	})
	return out, err
}

// collectionV2 is Client.CollectionV2.
func (e *Engine) collectionV2(ctx context.Context, p Principal, id string) (CollectionV2, error) {
	var c CollectionV2
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		c, err = e.loadCollectionV2(tx, org.ID, id)
		return err
	})
	return c, err
}

// collectionV2Fee is the fee of a /v2 collection of amount: MWK pays
// the /v1 collection fee (momo schedule); every other asset 0 (see
// docs/decisions.md, "/v2 deposits and collections").
func (e *Engine) collectionV2Fee(amount money.Amount) (money.Amount, error) {
	if amount.Asset() != money.MWK {
		return money.Zero(amount.Asset()), nil
	}
	if err := money.CheckMax("amount", amount); err != nil {
		return money.Amount{}, err
	}
	q, err := e.fees.Quote(payouts.DirCollection, payouts.Momo, amount)
	if err != nil {
		return money.Amount{}, errcode.Wrap(errcode.RateUnavailable, err)
	}
	if q.Total.Cmp(amount) > 0 {
		return money.Amount{}, errcode.Newf(errcode.ValidationError, "amount is below the collection fee of %s %s.", q.Total, amount.Asset().Code)
	}
	return q.Total, nil
}

// creditCollectionV2 credits org with amount net of fee, From external,
// and writes the /v2 collection and its collection_v2.settled event, in
// tx.
func (e *Engine) creditCollectionV2(tx store.Tx, org string, amount, fee money.Amount, network *string, source CollectionSource) (CollectionV2, error) {
	now := e.nowUTC()
	credited, err := amount.Sub(fee)
	if err != nil {
		return CollectionV2{}, err
	}
	c := CollectionV2{ID: e.newID(), Status: CollectionSettled, Asset: amount.Asset().Code, Amount: amount, Fee: fee,
		AmountCredited: credited, Network: network, Source: source, CreatedAt: now}
	entry := collectionV2Entry(c.ID)
	if _, err := ledger.Post(tx, ledger.Credit{EntryID: entry, Org: org, Amount: amount, Fee: fee, From: ledger.External, Ref: c.ID, At: now}); err != nil {
		return CollectionV2{}, err
	}
	rendered := renderCollectionV2(c)
	if err := records.PutJSON(tx, bucketCollectionsV2, c.ID, collectionV2Record{Org: org, EntryID: entry, Rendered: rendered}); err != nil {
		return CollectionV2{}, err
	}
	if err := tx.Put(bucketCollectionsV2ByOrg, records.IndexKey(org, c.ID), nil); err != nil {
		return CollectionV2{}, err
	}
	return c, e.emit(tx, org, EventCollectionV2Settled, rendered, rawResource(eventCollectionV2, rendered))
}

// SimulatedCollectionV2 is what Client.SimulateCollectionV2 takes: an
// asset code, an amount as decimal text (parsed once the asset is known)
// and an optional network.
type SimulatedCollectionV2 struct {
	Asset   string
	Amount  money.Decimal // in Asset, bound to it when the asset is checked
	Network *string
}

// simulateCollectionV2 is Client.SimulateCollectionV2.
func (e *Engine) simulateCollectionV2(ctx context.Context, p Principal, sc SimulatedCollectionV2) (CollectionV2, error) {
	if e.env != Sandbox {
		return CollectionV2{}, errcode.New(errcode.SandboxOnly)
	}
	if sc.Asset == "" {
		return CollectionV2{}, errcode.Newf(errcode.ValidationError, "asset is required.")
	}
	if sc.Amount.String() == "" {
		return CollectionV2{}, errcode.Newf(errcode.ValidationError, "amount is required.")
	}
	var c CollectionV2
	err := e.store.Update(ctx, func(tx store.Tx) error {
		org, err := e.admit(tx, p, APIv2)
		if err != nil {
			return err
		}
		asset, err := e.assetOf(org, sc.Asset, OpCollection)
		if err != nil {
			return err
		}
		if sc.Network != nil {
			if class, _ := e.classes.Lookup(asset.Code); class == quotes.Fiat {
				return errcode.Newf(errcode.ValidationError, "network must be absent for %s, which is not carried on a network.", asset.Code)
			}
			n, err := e.networks.Lookup(*sc.Network)
			if err != nil {
				return err
			}
			if !n.Carries(asset.Code) {
				return errcode.Newf(errcode.UnsupportedNetwork, "%s is not carried on the %s network.", asset.Code, n.ID)
			}
		}
		amount, err := parseV2Amount(asset, sc.Amount.String())
		if err != nil {
			return err
		}
		fee, err := e.collectionV2Fee(amount)
		if err != nil {
			return err
		}
		c, err = e.creditCollectionV2(tx, org.ID, amount, fee, sc.Network, CollectionSourceSimulated)
		return err
	})
	return c, err
}

// parseV2Amount parses a /v2 amount of asset: the grammar of
// money.Parse, no more decimals than the asset carries, above 0
// (validation_error otherwise), and at most money.Max (limit_exceeded).
func parseV2Amount(asset money.Asset, s string) (money.Amount, error) {
	a, err := money.Parse(asset, s)
	if err != nil {
		return money.Amount{}, &errcode.Error{Code: errcode.ValidationError, Message: "amount: " + errcode.Message(err), Err: err}
	}
	if a.Sign() <= 0 {
		return money.Amount{}, errcode.Newf(errcode.ValidationError, "amount must be greater than 0.")
	}
	if err := money.CheckMax("amount", a); err != nil {
		return money.Amount{}, err
	}
	return a, nil
}
