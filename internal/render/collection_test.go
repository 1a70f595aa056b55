package render

import (
	"testing"

	"github.com/tambalapay/tambala/money"
)

func TestCollectionBytes(t *testing.T) {
	pin(t, collectionBytes(collectionJSON{ID: "c", Status: "settled", AmountMWK: money.FromInt(money.MWK, 100), Fee: money.Zero(money.MWK),
		AmountCredited: money.FromInt(money.MWK, 100), Rail: "momo", SourceCustomerName: "n<", SourceAccountNumber: "a",
		SourceInstitution: "i", RTPReferenceNumber: "r", CreatedAt: "t"}),
		`{"id":"c","status":"settled","amount_mwk":"100.00","fee":"0.00","amount_credited":"100.00","rail":"momo","source_customer_name":"n\u003c","source_account_number":"a","source_institution":"i","rtp_reference_number":"r","created_at":"t"}`)
}
