package codec

import "testing"

func TestRailsRecordBytes(t *testing.T) {
	pinRecord(t, RailsRecord{BankDisabled: true}, `{"bank_disabled":true,"momo_disabled":false}`)
}
