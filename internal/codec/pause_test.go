package codec

import "testing"

func TestPauseRecordBytes(t *testing.T) {
	pinRecord(t, PauseRecord{}, `{"v1":"","v2":""}`)
	pinRecord(t, PauseRecord{V1: "maintenance", V2: "incident", V2Pauses: []PauseWindowRecord{{From: pinAt}, {From: pinAt, To: &pinAt2}}},
		`{"v1":"maintenance","v2":"incident","v2_pauses":[{"from":"2026-03-04T05:06:07.891234567Z"},{"from":"2026-03-04T05:06:07.891234567Z","to":"2026-03-04T06:36:07.891234567Z"}]}`)
}
