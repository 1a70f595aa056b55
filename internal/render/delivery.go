package render

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/webhooks"
)

// attemptJSON is the wire form of a delivery attempt: the duration in
// nanoseconds, error and response left out when empty.
type attemptJSON struct {
	At         time.Time     `json:"at"`
	StatusCode int           `json:"status_code"`
	Error      string        `json:"error,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
	Response   string        `json:"response,omitempty"`
	Signature  string        `json:"signature"`
}

// Delivery is the operator's rendering of a webhook delivery (the items of
// Operator.Deliveries and Operator.Redeliver):
// {"id","event_type","url","state","attempts","body","created_at"}. Body
// is the exact bytes sent, as text; attempts come newest first, [] when
// there are none.
func Delivery(d webhooks.DeliveryView) []byte {
	attempts := make([]attemptJSON, len(d.Attempts))
	for i, a := range d.Attempts {
		attempts[i] = attemptJSON(a)
	}
	b, _ := json.Marshal(struct {
		ID        string        `json:"id"`
		EventType string        `json:"event_type"`
		URL       string        `json:"url"`
		State     string        `json:"state"`
		Attempts  []attemptJSON `json:"attempts"`
		Body      string        `json:"body"`
		CreatedAt time.Time     `json:"created_at"`
	}{d.ID, d.EventType, d.URL, string(d.State), attempts, d.Body, d.CreatedAt})
	return b
}
