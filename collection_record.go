package tambala

import (
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// collectionRecord is a /v1 collection as stored.
type collectionRecord = codec.CollectionRecord

func toCollectionRecord(org string, c Collection) collectionRecord {
	return collectionRecord{Org: org, ID: c.ID, Status: string(c.Status),
		Amount: c.AmountMWK.String(), Fee: c.Fee.String(), Credited: c.AmountCredited.String(), Rail: string(c.Rail),
		SourceCustomerName: c.SourceCustomerName, SourceAccountNumber: c.SourceAccountNumber,
		SourceInstitution: c.SourceInstitution, RTPReferenceNumber: c.RTPReferenceNumber, CreatedAt: payouts.FormatTime(c.CreatedAt)}
}

// fromCollectionRecord reads a stored collection back.
func fromCollectionRecord(r collectionRecord) (Collection, error) {
	c := Collection{ID: r.ID, Status: CollectionStatus(r.Status), Rail: payouts.Rail(r.Rail), SourceCustomerName: r.SourceCustomerName,
		SourceAccountNumber: r.SourceAccountNumber, SourceInstitution: r.SourceInstitution,
		RTPReferenceNumber: r.RTPReferenceNumber}
	var err error
	if c.CreatedAt, err = parseWireTime(r.CreatedAt); err != nil {
		return Collection{}, err
	}
	if c.AmountMWK, err = money.Parse(money.MWK, r.Amount); err != nil {
		return Collection{}, err
	}
	if c.Fee, err = money.Parse(money.MWK, r.Fee); err != nil {
		return Collection{}, err
	}
	if c.AmountCredited, err = money.Parse(money.MWK, r.Credited); err != nil {
		return Collection{}, err
	}
	return c, nil
}
