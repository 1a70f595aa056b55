package render

import (
	"encoding/json"

	"github.com/tambalapay/tambala/collections"

	"github.com/tambalapay/tambala/money"
)

// collectionJSON is the wire form of a /v1 collection
// (collections.Collection), CreatedAt already rendered.
type collectionJSON struct {
	ID                  string       `json:"id"`
	Status              string       `json:"status"`
	AmountMWK           money.Amount `json:"amount_mwk"`
	Fee                 money.Amount `json:"fee"`
	AmountCredited      money.Amount `json:"amount_credited"`
	Rail                string       `json:"rail"`
	SourceCustomerName  string       `json:"source_customer_name"`
	SourceAccountNumber string       `json:"source_account_number"`
	SourceInstitution   string       `json:"source_institution"`
	RTPReferenceNumber  string       `json:"rtp_reference_number"`
	CreatedAt           string       `json:"created_at"`
}

// Collection is the one rendering of a /v1 collection: a read of one (the
// engine's ClientV1.Collection), each item of its list (ClientV1.Collections),
// the operator's reversal and the data of collection.settled and
// collection.reversed are these bytes:
// {"id","status","amount_mwk","fee","amount_credited","rail",
// "source_customer_name","source_account_number","source_institution",
// "rtp_reference_number","created_at"}.
func Collection(c collections.Collection) []byte {
	return collectionBytes(collectionJSON{ID: c.ID, Status: string(c.Status), AmountMWK: c.AmountMWK, Fee: c.Fee,
		AmountCredited: c.AmountCredited, Rail: string(c.Rail), SourceCustomerName: c.SourceCustomerName,
		SourceAccountNumber: c.SourceAccountNumber, SourceInstitution: c.SourceInstitution,
		RTPReferenceNumber: c.RTPReferenceNumber, CreatedAt: Time(c.CreatedAt)})
}

func collectionBytes(f collectionJSON) []byte {
	b, _ := json.Marshal(f)
	return b
}
