package tambala

import (
	"context"
	"fmt"
	"time"

	"github.com/tambalapay/tambala/internal/render"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/collections"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// The /v1 collections: the rules are package collections'; here they are
// loaded, stored, posted and announced.

var (
	bucketCollections      = []byte("collections")
	bucketCollectionsByOrg = []byte("collections.by_org")
)

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
				details: map[string]string{"rail": string(n.Rail), "source_customer_name": n.SourceCustomerName,
					"source_account_number": n.SourceAccountNumber, "source_institution": n.SourceInstitution,
					"rtp_reference_number": n.RTPReferenceNumber}})
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
	if err := putCollection(tx, orgID, c); err != nil {
		return Collection{}, err
	}
	if err := tx.Put(bucketCollectionsByOrg, storage.IndexKey(orgID, c.ID), nil); err != nil {
		return Collection{}, err
	}
	if err := e.auditAs(ctx, tx, orgID, AuditCollectionRecorded, c.ID, fmt.Sprintf("credited %s net of the fee %s, rail %s, RTP reference %q",
		amountText(c.AmountCredited), amountText(c.Fee), c.Rail, c.RTPReferenceNumber)+note); err != nil {
		return Collection{}, err
	}
	return c, e.emit(tx, orgID, event, render.Collection(c), jsonResource(eventCollection, toCollectionRecord(orgID, c)))
}

// collectionOfDetails is the collection an approval of amount keeps, and
// its fee (checked again: the organization must still have collection
// enabled when it is approved).
func (e *Engine) collectionOfDetails(amount money.Amount, d map[string]string) (NewCollection, money.Amount, error) {
	n, err := NewCollection{Amount: amount, Rail: payouts.Rail(d["rail"]), SourceCustomerName: d["source_customer_name"],
		SourceAccountNumber: d["source_account_number"], SourceInstitution: d["source_institution"],
		RTPReferenceNumber: d["rtp_reference_number"]}.Check()
	if err != nil {
		return NewCollection{}, money.Amount{}, err
	}
	fee, err := collections.Fee(e.fees, n.Rail, n.Amount)
	return n, fee, err
}

func putCollection(tx store.Tx, org string, c Collection) error {
	return storage.PutJSON(tx, bucketCollections, c.ID, toCollectionRecord(org, c))
}

// simulateCollection is Client.SimulateCollection.
func (e *Engine) simulateCollection(ctx context.Context, p Principal, sc SimulatedCollection) (Collection, error) {
	if e.env != Sandbox {
		return Collection{}, errcode.New(errcode.SandboxOnly)
	}
	if err := sc.Check(); err != nil {
		return Collection{}, err
	}
	return e.recordCollection(ctx, p.Org.ID, &p, sc.Received(e.newID()))
}

func loadCollection(tx store.Tx, org, id string) (collectionRecord, error) {
	var r collectionRecord
	if id == "" || len(id) > 64 {
		return r, errNotFound
	}
	if err := storage.GetJSON(tx, bucketCollections, id, &r, errNotFound); err != nil {
		return r, err
	}
	if r.Org != org {
		return r, errNotFound
	}
	return r, nil
}

// collectionByID is Client.Collection.
func (e *Engine) collectionByID(ctx context.Context, p Principal, id string) (Collection, error) {
	var c Collection
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		r, err := loadCollection(tx, p.Org.ID, id)
		if err != nil {
			return err
		}
		c, err = fromCollectionRecord(r)
		return err
	})
	return c, err
}

// collections is Client.Collections.
func (e *Engine) collections(ctx context.Context, p Principal, page PageRequest) (Page[Collection], error) {
	var out Page[Collection]
	err := e.store.View(ctx, func(tx store.Tx) error {
		if _, err := e.admit(tx, p, APIv1); err != nil {
			return err
		}
		var err error
		out, err = listPage(tx, bucketCollectionsByOrg, p.Org.ID, page, nil, func(id string) (Collection, error) {
			r, err := loadCollection(tx, p.Org.ID, id)
			if err != nil {
				return Collection{}, err
			}
			return fromCollectionRecord(r)
		})
		return err
	})
	return out, err
}

// reverseCollection is Operator.ReverseCollection.
func (e *Engine) reverseCollection(ctx context.Context, orgID, id string) (Collection, error) {
	var c Collection
	err := e.store.Update(ctx, func(tx store.Tx) error {
		r, err := loadCollection(tx, orgID, id)
		if err != nil {
			return err
		}
		settled, err := fromCollectionRecord(r)
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
		if err := putCollection(tx, orgID, reversed); err != nil {
			return err
		}
		if err := e.emit(tx, orgID, event, render.Collection(reversed), jsonResource(eventCollection, toCollectionRecord(orgID, reversed))); err != nil {
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
