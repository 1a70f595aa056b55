package codec

import (
	"testing"
	"time"
)

func TestDeliveryRecordBytes(t *testing.T) {
	pinRecord(t, DeliveryRecord{ID: "d", Org: "o", EventType: "e", URL: "u", SecretID: "s", Body: []byte(`{"a":"<"}`), State: "pending",
		Attempts: 2, RoundStart: 1, NextAt: pinAt, CreatedAt: pinAt2},
		`{"id":"d","org":"o","event_type":"e","url":"u","secret_id":"s","body":"eyJhIjoiPCJ9","state":"pending","attempts":2,"round_start":1,"next_at":"2026-03-04T05:06:07.891234567Z","created_at":"2026-03-04T06:36:07.891234567Z"}`)
	pinRecord(t, DeliveryRecord{},
		`{"id":"","org":"","event_type":"","url":"","secret_id":"","body":null,"state":"","attempts":0,"next_at":"0001-01-01T00:00:00Z","created_at":"0001-01-01T00:00:00Z"}`)
}

func TestAttemptRecordBytes(t *testing.T) {
	pinRecord(t, AttemptRecord{At: pinAt, StatusCode: 500, Error: "e", Duration: 1500 * time.Millisecond, Response: "r", Signature: "sig"},
		`{"at":"2026-03-04T05:06:07.891234567Z","status_code":500,"error":"e","duration_ns":1500000000,"response":"r","signature":"sig"}`)
	pinRecord(t, AttemptRecord{}, `{"at":"0001-01-01T00:00:00Z","status_code":0,"duration_ns":0,"signature":""}`)
}
