package codec

import "testing"

func TestDepositRecordBytes(t *testing.T) {
	pinRecord(t, DepositRecord{Org: "o", Asset: "a", Amount: "1", Collection: "c"}, `{"org":"o","asset":"a","amount":"1","collection":"c"}`)
}
