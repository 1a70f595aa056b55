package codec

import "testing"

func TestAssetLimitsRecordBytes(t *testing.T) {
	pinRecord(t, AssetLimitsRecord{Min: pinStr("1.00"), Max: pinStr("2.00")}, `{"min":"1.00","max":"2.00"}`)
	pinRecord(t, AssetLimitsRecord{Min: pinStr("1.00")}, `{"min":"1.00"}`)
}
