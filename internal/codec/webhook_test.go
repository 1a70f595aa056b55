package codec

import "testing"

func TestEndpointAndSecretRecordBytes(t *testing.T) {
	pinRecord(t, EndpointRecord{URL: "https://x/<&>", SecretID: "s", CreatedAt: pinAt},
		`{"url":"https://x/\u003c\u0026\u003e","secret_id":"s","created_at":"2026-03-04T05:06:07.891234567Z"}`)
	pinRecord(t, SecretRecord{Org: "o", Secret: "sec"}, `{"org":"o","secret":"sec"}`)
}
