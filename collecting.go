package tambala

import (
	"context"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/store"
)

// The /v1 collections: the rules are package collections'; here they are
// loaded, stored, posted and announced.

// CollectionStatus is the status of a collection (/v1 and /v2): settled
// when credited, reversed when the operator took it back (/v1 only). The
// rules are package collections'.
type CollectionStatus = collections.Status

// Collection statuses.
const (
	CollectionSettled  = collections.Settled
	CollectionReversed = collections.Reversed
)

// Collection is money received for an organization, credited net of the
// collection fee: AmountMWK - Fee = AmountCredited, always (package
// collections).
type Collection = collections.Collection

// NewCollection describes money received for an organization (package
// collections' Received).
type NewCollection = collections.Received

// SimulatedCollection is a collection the sandbox makes up: Amount
// received on Rail (default momo) from a sandbox customer.
type SimulatedCollection = collections.Simulated

// postCollection posts the ledger movements of a collection (/v1 or /v2)
// at now in tx.
func postCollection(tx store.Tx, ps []collections.Posting, now time.Time) error {
	for _, p := range ps {
		var cmd ledger.Command
		switch {
		case p.Kind == collections.KindCredit && p.System == collections.External:
			cmd = ledger.Credit{EntryID: p.EntryID, Org: p.Org, Amount: p.Amount, Fee: p.Fee, From: ledger.External, Ref: p.Ref, At: now}
		case p.Kind == collections.KindReverse:
			cmd = ledger.Reverse{EntryID: p.EntryID, Of: p.Of, Ref: p.Ref, At: now}
		default:
			return fmt.Errorf("tambala: unknown collection posting %q from %q", p.Kind, p.System)
		}
		if _, err := postLedger(tx, cmd); err != nil {
			return err
		}
	}
	return nil
}

// recordCollectionByOperator is Operator.RecordCollection.
func (e *Engine) recordCollectionByOperator(ctx context.Context, orgID string, n NewCollection) (Collection, error) {
	return e.recordCollection(ctx, orgID, nil, n)
}

// recordCollection is RecordCollection; with a Principal (a simulated
// collection) the Principal's /v1 rules are checked in the transaction.
// The operator's (no Principal) above the MWK threshold waits for
// approval (ApprovalPendingError): a collection has no reference of its
// own, so each such call asks anew.
func (e *Engine) recordCollection(ctx context.Context, orgID string, p *Principal, n NewCollection) (Collection, error) {
	n, err := n.Check()
	if err != nil {
		return Collection{}, err
	}
	fee, err := collections.Fee(e.fees, n.Rail, n.Amount)
	if err != nil {
		return Collection{}, err
	}
	var c Collection
	var pending *Approval
	err = e.store.Update(ctx, func(tx store.Tx) error {
		pending = nil
		o := &Organization{}
		if p != nil {
			var err error
			if o, err = e.admit(tx, *p, APIv1); err != nil {
				return err
			}
		} else if err := loadOrg(tx, orgID, o, errNotFound); err != nil {
			return err
		}
		if _, err := e.enabledAsset(o, money.MWK.Code, OpCollection); err != nil {
			return err
		}
		if p == nil {
			var err error
			pending, err = e.gateWith(ctx, tx, gateReq{kind: approvals.Collection, org: orgID, amount: n.Amount, role: accounts.StaffOperations,
				details: n.Details()})
			if err != nil || pending != nil {
				return err
			}
		}
		var err error
		c, err = e.settleCollection(ctx, tx, orgID, n, fee, "")
		return err
	})
	if err == nil && pending != nil {
		return Collection{}, &ApprovalPendingError{Approval: *pending}
	}
	return c, err
}

// settleCollection credits collection n of org net of fee in tx: its
// postings, record, index, audit entry (whose summary ends with note) and
// event.
func (e *Engine) settleCollection(ctx context.Context, tx store.Tx, orgID string, n NewCollection, fee money.Amount, note string) (Collection, error) {
	now := e.nowUTC()
	c, postings, event, err := collections.Settle(e.newID(), orgID, n, fee, now)
	if err != nil {
		return Collection{}, err
	}
	if err := postCollection(tx, postings, now); err != nil {
		return Collection{}, err
	}
	if err := storage.AddCollection(tx, orgID, c); err != nil {
		return Collection{}, err
	}
	if err := e.auditAs(ctx, tx, orgID, AuditCollectionRecorded, c.ID, fmt.Sprintf("credited %s net of the fee %s, rail %s, RTP reference %q",
		amountText(c.AmountCredited), amountText(c.Fee), c.Rail, c.RTPReferenceNumber)+note); err != nil {
		return Collection{}, err
	}
	return c, e.emit(tx, orgID, event, render.Collection(c), jsonResource(eventCollection, storage.ToCollectionRecord(orgID, c)))
}

// collectionOfDetails is the collection an approval of amount keeps, and
// its fee (checked again: the organization must still have collection
// enabled when it is approved).
func (e *Engine) collectionOfDetails(amount money.Amount, d map[string]string) (NewCollection, money.Amount, error) {
	n, err := collections.ReceivedOf(amount, d).Check()
	if err != nil {
		return NewCollection{}, money.Amount{}, err
	}
	fee, err := collections.Fee(e.fees, n.Rail, n.Amount)
	return n, fee, err
}

// simulateCollection is ClientV1.SimulateCollection.
func (e *Engine) simulateCollection(ctx context.Context, p Principal, sc SimulatedCollection) (Collection, error) {
	if e.env != Sandbox {
		return Collection{}, errcode.New(errcode.SandboxOnly)
	}
	if err := sc.Check(); err != nil {
		return Collection{}, err
	}
	return e.recordCollection(ctx, p.Org.ID, &p, sc.Received(e.newID()))
}

// collectionByID is ClientV1.Collection.
func (e *Engine) collectionByID(ctx context.Context, p Principal, id string) (Collection, error) {
	var c Collection
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		var err error
		c, err = storage.LoadCollection(tx, p.Org.ID, id)
		return err
	})
	return c, err
}

// collections is ClientV1.Collections.
func (e *Engine) collections(ctx context.Context, p Principal, page PageRequest) (Page[Collection], error) {
	var out Page[Collection]
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		var err error
		out, err = listPage(tx, storage.CollectionsByOrg, p.Org.ID, page, nil, func(id string) (Collection, error) {
			return storage.LoadCollection(tx, p.Org.ID, id)
		})
		return err
	})
	return out, err
}

// reverseCollection is Operator.ReverseCollection.
func (e *Engine) reverseCollection(ctx context.Context, orgID, id string) (Collection, error) {
	var c Collection
	err := e.store.Update(ctx, func(tx store.Tx) error {
		settled, err := storage.LoadCollection(tx, orgID, id)
		if err != nil {
			return err
		}
		reversed, postings, event, err := collections.Reverse(settled)
		if err != nil {
			return err
		}
		if err := postCollection(tx, postings, e.nowUTC()); err != nil {
			return err
		}
		if err := storage.SaveCollection(tx, orgID, reversed); err != nil {
			return err
		}
		if err := e.emit(tx, orgID, event, render.Collection(reversed), jsonResource(eventCollection, storage.ToCollectionRecord(orgID, reversed))); err != nil {
			return err
		}
		if err := e.auditAs(ctx, tx, orgID, AuditCollectionReversed, id, fmt.Sprintf("status %s -> %s, debited %s and the fee %s refunded",
			settled.Status, reversed.Status, amountText(settled.AmountCredited), amountText(settled.Fee))); err != nil {
			return err
		}
		c = reversed
		return e.checkBalanceLow(tx, orgID)
	})
	return c, err
}

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

// SimulatedCollectionV2 is what Client.SimulateCollection takes: an
// asset code, an amount as decimal text (parsed once the asset is known)
// and the network it came on, "" for none (package collections).
type SimulatedCollectionV2 = collections.SimulatedV2

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
	if err := storage.AddCollectionV2(tx, org, entry, c.ID, rendered); err != nil {
		return err
	}
	return e.emit(tx, org, event, rendered, rawResource(eventCollectionV2, rendered))
}

// loadCollectionV2 reads one of org's /v2 collections: not_found for an
// unknown, foreign or malformed id.
func (e *Engine) loadCollectionV2(tx store.Tx, org, id string) (CollectionV2, error) {
	return storage.LoadCollectionV2(tx, e.assets, org, id)
}

// CollectionV2Filter narrows Client.Collections: Asset, when set, keeps
// that asset's collections (it must be well-formed and in the
// organization's list).
type CollectionV2Filter struct {
	Asset money.AssetCode
}

// collectionsV2 is Client.Collections.
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
		out, err = listPage(tx, storage.CollectionsV2ByOrg, org.ID, page, keep, func(id string) (CollectionV2, error) {
			return e.loadCollectionV2(tx, org.ID, id)
		})
		return err
	})
	return out, err
}

// collectionV2 is Client.Collection.
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

// simulateCollectionV2 is Client.SimulateCollection.
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
