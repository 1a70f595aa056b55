package codec

import (
	"testing"

	"github.com/tambalapay/tambala/payouts"
)

func TestInstitutionsRecordBytes(t *testing.T) {
	list := []payouts.Institution{{ID: 1, Name: "B <&>", Rail: payouts.Bank, AccountNumberMinDigits: 3, AccountNumberMaxDigits: 5}}
	pinRecord(t, InstitutionsRecord{Institutions: StoreInstitutions(list), Networks: map[int]string{2: "9", 10: "8"},
		AccountDigits: map[int][2]int{1: {3, 5}}, SyncedAt: pinAt},
		`{"institutions":[{"institution_id":1,"name":"B \u003c\u0026\u003e","rail":"bank"}],"networks":{"10":"8","2":"9"},"account_digits":{"1":[3,5]},"synced_at":"2026-03-04T05:06:07.891234567Z"}`)
	pinRecord(t, InstitutionsRecord{}, `{"institutions":null,"networks":null,"synced_at":"0001-01-01T00:00:00Z"}`)
	if got := LoadInstitutions(StoreInstitutions(list)); len(got) != 1 || got[0].ID != 1 || got[0].Name != "B <&>" || got[0].Rail != payouts.Bank {
		t.Errorf("LoadInstitutions = %+v", got)
	}
	if StoreInstitutions(nil) != nil || LoadInstitutions(nil) != nil {
		t.Error("nil lists do not stay nil")
	}
}
