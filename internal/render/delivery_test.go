package render

import (
	"testing"
	"time"

	"github.com/tambalapay/tambala/webhooks"
)

func TestDeliveryBytes(t *testing.T) {
	pin(t, Delivery(webhooks.DeliveryView{ID: "d", EventType: "e", URL: "u", State: "dead", Body: `{"a":"<"}`, CreatedAt: pinAt,
		Attempts: []webhooks.Attempt{{At: pinAt, StatusCode: 500, Error: "e", Duration: 1500 * time.Millisecond, Response: "r", Signature: "sig"}, {}}}),
		`{"id":"d","event_type":"e","url":"u","state":"dead","attempts":[{"at":"2026-03-04T05:06:07.891234567Z","status_code":500,"error":"e","duration_ns":1500000000,"response":"r","signature":"sig"},{"at":"0001-01-01T00:00:00Z","status_code":0,"duration_ns":0,"signature":""}],"body":"{\"a\":\"\u003c\"}","created_at":"2026-03-04T05:06:07.891234567Z"}`)
	pin(t, Delivery(webhooks.DeliveryView{}),
		`{"id":"","event_type":"","url":"","state":"","attempts":[],"body":"","created_at":"0001-01-01T00:00:00Z"}`)
}
