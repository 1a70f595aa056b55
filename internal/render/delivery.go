package render

import (
	"encoding/json"
	"time"
)

// DeliveryFields is a webhook delivery as the operator lists it: the
// engine's DeliveryView, field for field. Body is the exact bytes sent, as
// text; Attempts come newest first and render as [] when there are none.
type DeliveryFields struct {
	ID        string          `json:"id"`
	EventType string          `json:"event_type"`
	URL       string          `json:"url"`
	State     string          `json:"state"`
	Attempts  []AttemptFields `json:"attempts"`
	Body      string          `json:"body"`
	CreatedAt time.Time       `json:"created_at"`
}

// AttemptFields is one delivery attempt: the engine's Attempt, field for
// field; the duration in nanoseconds, error and response left out when
// empty.
type AttemptFields struct {
	At         time.Time     `json:"at"`
	StatusCode int           `json:"status_code"`
	Error      string        `json:"error,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
	Response   string        `json:"response,omitempty"`
	Signature  string        `json:"signature"`
}

// Delivery is the operator's rendering of a webhook delivery (the items of
// Operator.Deliveries and Operator.Redeliver):
// {"id","event_type","url","state","attempts","body","created_at"}.
func Delivery(d DeliveryFields) []byte {
	if d.Attempts == nil {
		d.Attempts = []AttemptFields{}
	}
	b, _ := json.Marshal(d)
	return b
}
