package codec

import "testing"

func TestProofRecordBytes(t *testing.T) {
	pinRecord(t, ProofRecord{ID: "p", Order: "o", Org: "g", SHA256: "h", ContentType: "image/png", Size: 9, UploadedAt: pinAt},
		`{"id":"p","order":"o","org":"g","sha256":"h","content_type":"image/png","size":9,"uploaded_at":"2026-03-04T05:06:07.891234567Z"}`)
}
