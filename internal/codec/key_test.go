package codec

import "testing"

func TestKeyRecordBytes(t *testing.T) {
	pinRecord(t, KeyRecord{ID: "k", Org: "o", Prefix: "p", Environment: "sandbox", CreatedAt: pinAt, RevokedAt: &pinAt2, Hash: "ab"},
		`{"id":"k","org_id":"o","prefix":"p","environment":"sandbox","created_at":"2026-03-04T05:06:07.891234567Z","revoked_at":"2026-03-04T06:36:07.891234567Z","hash":"ab"}`)
	pinRecord(t, KeyRecord{},
		`{"id":"","org_id":"","prefix":"","environment":"","created_at":"0001-01-01T00:00:00Z","revoked_at":null,"hash":""}`)
}
