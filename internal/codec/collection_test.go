package codec

import "testing"

func TestCollectionRecordBytes(t *testing.T) {
	pinRecord(t, CollectionRecord{Org: "o", ID: "c", Status: "settled", Amount: "100.00", Fee: "0.00", Credited: "100.00", Rail: "momo",
		SourceCustomerName: "n", SourceAccountNumber: "a", SourceInstitution: "i", RTPReferenceNumber: "r", CreatedAt: "t"},
		`{"org":"o","id":"c","status":"settled","amount_mwk":"100.00","fee":"0.00","amount_credited":"100.00","rail":"momo","source_customer_name":"n","source_account_number":"a","source_institution":"i","rtp_reference_number":"r","created_at":"t"}`)
}
