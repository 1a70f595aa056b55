package tambala

import (
	"context"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/records"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

var (
	bucketCollections      = []byte("collections")
	bucketCollectionsByOrg = []byte("collections.by_org")
)

// CollectionStatus is the status of a collection (/v1 and /v2): settled
// when credited, reversed when the operator took it back (/v1 only).
type CollectionStatus string

// Collection statuses.
const (
	CollectionSettled  CollectionStatus = "settled"
	CollectionReversed CollectionStatus = "reversed"
)

// Terminal reports whether a collection in status s can change no more:
// a settled collection may still be reversed.
func (s CollectionStatus) Terminal() bool { return s == CollectionReversed }

// Collection is money received for an organization, credited net of the
// collection fee: AmountMWK - Fee = AmountCredited, always.
type Collection struct {
	ID                  string
	Status              CollectionStatus
	AmountMWK           money.Amount
	Fee                 money.Amount
	AmountCredited      money.Amount
	Rail                payouts.Rail
	SourceCustomerName  string
	SourceAccountNumber string
	SourceInstitution   string
	RTPReferenceNumber  string
	CreatedAt           time.Time
}

func collectionEntry(id string) string { return "collection:" + id }

// NewCollection describes money received for an organization.
type NewCollection struct {
	Amount              money.Amount
	Rail                payouts.Rail // default momo
	SourceCustomerName  string
	SourceAccountNumber string
	SourceInstitution   string
	RTPReferenceNumber  string
}

// recordCollectionByOperator is Operator.RecordCollection.
func (e *Engine) recordCollectionByOperator(ctx context.Context, orgID string, n NewCollection) (Collection, error) {
	return e.recordCollection(ctx, orgID, nil, n)
}

// recordCollection is RecordCollection; with a Principal (a simulated
// collection) the Principal's /v1 rules are checked in the transaction.
func (e *Engine) recordCollection(ctx context.Context, orgID string, p *Principal, n NewCollection) (Collection, error) {
	if n.Rail == "" {
		n.Rail = payouts.Momo
	}
	if n.Rail != payouts.Momo && n.Rail != payouts.Bank {
		return Collection{}, errcode.Newf(errcode.ValidationError, "rail must be momo or bank.")
	}
	if n.Amount.Asset() != money.MWK || n.Amount.Sign() <= 0 || n.Amount.Cmp(payouts.MaxAmount) > 0 {
		return Collection{}, errcode.Newf(errcode.ValidationError, "amount_mwk must be positive and at most %s.", payouts.MaxAmount)
	}
	q, err := e.fees.Quote(payouts.DirCollection, n.Rail, n.Amount)
	if err != nil {
		return Collection{}, errcode.Wrap(errcode.RateUnavailable, err)
	}
	var c Collection
	err = e.store.Update(ctx, func(tx store.Tx) error {
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
		now := e.nowUTC()
		c = Collection{
			ID: e.newID(), Status: CollectionSettled, AmountMWK: n.Amount, Fee: q.Total, AmountCredited: *q.AmountReceived,
			Rail: n.Rail, SourceCustomerName: n.SourceCustomerName, SourceAccountNumber: n.SourceAccountNumber,
			SourceInstitution: n.SourceInstitution, RTPReferenceNumber: n.RTPReferenceNumber, CreatedAt: now,
		}
		if _, err := ledger.Post(tx, ledger.Credit{
			EntryID: collectionEntry(c.ID), Org: orgID, Amount: c.AmountMWK, Fee: c.Fee, From: ledger.External, Ref: c.ID, At: now,
		}); err != nil {
			return err
		}
		if err := putCollection(tx, orgID, c); err != nil {
			return err
		}
		if err := tx.Put(bucketCollectionsByOrg, records.IndexKey(orgID, c.ID), nil); err != nil {
			return err
		}
		return e.emit(tx, orgID, webhooks.CollectionSettled, renderCollection(c), jsonResource(eventCollection, toCollectionRecord(orgID, c)))
	})
	return c, err
}

func putCollection(tx store.Tx, org string, c Collection) error {
	return records.PutJSON(tx, bucketCollections, c.ID, toCollectionRecord(org, c))
}

// SimulatedCollection is a collection the sandbox makes up: Amount
// received on Rail (default momo) from a sandbox customer.
type SimulatedCollection struct {
	Amount money.Amount
	Rail   payouts.Rail
}

// simulateCollection is Client.SimulateCollection.
func (e *Engine) simulateCollection(ctx context.Context, p Principal, sc SimulatedCollection) (Collection, error) {
	if e.env != Sandbox {
		return Collection{}, errcode.New(errcode.SandboxOnly)
	}
	if err := payouts.CheckAmount(sc.Amount); err != nil {
		return Collection{}, err
	}
	return e.recordCollection(ctx, p.Org.ID, &p, NewCollection{
		Amount: sc.Amount, Rail: sc.Rail, SourceCustomerName: "Sandbox Customer", SourceAccountNumber: "265880000000",
		SourceInstitution: "Sandbox", RTPReferenceNumber: "SIM-" + e.newID(),
	})
}

func loadCollection(tx store.Tx, org, id string) (collectionRecord, error) {
	var r collectionRecord
	if id == "" || len(id) > 64 {
		return r, errNotFound
	}
	if err := records.GetJSON(tx, bucketCollections, id, &r, errNotFound); err != nil {
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
		if CollectionStatus(r.Status) != CollectionSettled {
			return errcode.Newf(errcode.Conflict, "This collection is already %s.", r.Status)
		}
		if _, err := ledger.Post(tx, ledger.Reverse{EntryID: collectionEntry(id) + ":reverse", Of: collectionEntry(id), Ref: id, At: e.nowUTC()}); err != nil {
			return err
		}
		if c, err = fromCollectionRecord(r); err != nil {
			return err
		}
		c.Status = CollectionReversed
		if err := putCollection(tx, orgID, c); err != nil {
			return err
		}
		if err := e.emit(tx, orgID, webhooks.CollectionReversed, renderCollection(c), jsonResource(eventCollection, toCollectionRecord(orgID, c))); err != nil {
			return err
		}
		return e.checkBalanceLow(tx, orgID)
	})
	return c, err
}
