package tambala

import (
	"context"
	"time"

	"github.com/tambalapay/tambala/internal/render"

	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
)

// The /v2 collections: the rules are package collections'; here they are
// loaded, stored, posted and announced.

// EventCollectionV2Settled is the event of a /v2 collection.
const EventCollectionV2Settled = collections.EventV2Settled

// CollectionV2 is money received on /v2: a deposit, a returned order
// refund, or a simulated collection (package collections). Amount - Fee =
// AmountCredited; Network is "" for none.
type CollectionV2 = collections.CollectionV2

// CollectionSource is where a /v2 collection came from.
type CollectionSource = collections.Source

// Sources of a /v2 collection.
const (
	CollectionSourceDeposit     = collections.SourceDeposit
	CollectionSourceOrderRefund = collections.SourceOrderRefund
	CollectionSourceSimulated   = collections.SourceSimulated
)

// SimulatedCollectionV2 is what Client.SimulateCollectionV2 takes: an
// asset code, an amount as decimal text (parsed once the asset is known)
// and the network it came on, "" for none (package collections).
type SimulatedCollectionV2 = collections.SimulatedV2

var (
	bucketCollectionsV2      = []byte("collections_v2")
	bucketCollectionsV2ByOrg = []byte("collections_v2.by_org")
)

// recordRefundCollection writes the /v2 collection of a returned order
// refund and its event, in the refund's transaction.
func (e *Engine) recordRefundCollection(tx store.Tx, _ orders.Order, rc *orders.RefundCollection, now time.Time) error {
	c, event := collections.Refunded(e.newID(), *rc, now)
	return e.putCollectionV2(tx, rc.Org, rc.EntryID, c, event)
}

// putCollectionV2 stores /v2 collection c of org, the record of ledger
// entry entry, with its index and event.
func (e *Engine) putCollectionV2(tx store.Tx, org, entry string, c CollectionV2, event string) error {
	rendered := render.CollectionV2(c)
	if err := storage.PutJSON(tx, bucketCollectionsV2, c.ID, collectionV2Record{Org: org, EntryID: entry, Rendered: rendered}); err != nil {
		return err
	}
	if err := tx.Put(bucketCollectionsV2ByOrg, storage.IndexKey(org, c.ID), nil); err != nil {
		return err
	}
	return e.emit(tx, org, event, rendered, rawResource(eventCollectionV2, rendered))
}

// loadCollectionV2 reads one of org's /v2 collections: not_found for an
// unknown, foreign or malformed id.
func (e *Engine) loadCollectionV2(tx store.Tx, org, id string) (CollectionV2, error) {
	if id == "" || len(id) > 64 {
		return CollectionV2{}, errNotFound
	}
	var r collectionV2Record
	if err := storage.GetJSON(tx, bucketCollectionsV2, id, &r, errNotFound); err != nil {
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
	Asset money.AssetCode
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
				return err == nil && c.Asset.Code == f.Asset, err
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

// creditCollectionV2 credits org with amount net of its fee
// (collections.FeeV2), From external, and writes the /v2 collection and
// its collection_v2.settled event, in tx.
func (e *Engine) creditCollectionV2(tx store.Tx, org string, amount money.Amount, network string, source CollectionSource) (CollectionV2, error) {
	fee, err := collections.FeeV2(e.fees, amount)
	if err != nil {
		return CollectionV2{}, err
	}
	now := e.nowUTC()
	c, postings, event, err := collections.SettleV2(e.newID(), org, amount, fee, network, source, now)
	if err != nil {
		return CollectionV2{}, err
	}
	if err := postCollection(tx, postings, now); err != nil {
		return CollectionV2{}, err
	}
	return c, e.putCollectionV2(tx, org, collections.EntryIDV2(c.ID), c, event)
}

// simulateCollectionV2 is Client.SimulateCollectionV2.
func (e *Engine) simulateCollectionV2(ctx context.Context, p Principal, sc SimulatedCollectionV2) (CollectionV2, error) {
	if e.env != Sandbox {
		return CollectionV2{}, errcode.New(errcode.SandboxOnly)
	}
	if err := sc.Check(); err != nil {
		return CollectionV2{}, err
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
		network, err := sc.CheckNetwork(asset, e.classes, e.networks)
		if err != nil {
			return err
		}
		amount, err := collections.ParseAmount(asset, sc.Amount)
		if err != nil {
			return err
		}
		c, err = e.creditCollectionV2(tx, org.ID, amount, network, CollectionSourceSimulated)
		return err
	})
	return c, err
}
