package codec

import (
	"time"

	"github.com/tambalapay/tambala/webhooks"
)

// DeliveryRecord is an outbox row: the exact bytes to send (base64 in the
// record), the secret that signs them, and where the delivery is.
// Attempts counts every attempt, numbering the attempt log; RoundStart is
// how many came before the current schedule (0, or the attempts made
// before the last re-delivery; absent when 0).
type DeliveryRecord struct {
	ID         string         `json:"id"` // the event id
	Org        string         `json:"org"`
	EventType  string         `json:"event_type"`
	URL        string         `json:"url"`
	SecretID   string         `json:"secret_id"`
	Body       []byte         `json:"body"`
	State      webhooks.State `json:"state"`
	Attempts   int            `json:"attempts"`
	RoundStart int            `json:"round_start,omitempty"`
	NextAt     time.Time      `json:"next_at"`
	CreatedAt  time.Time      `json:"created_at"`
}

// AttemptRecord is the stored form of one delivery attempt (the engine's
// Attempt): the duration in nanoseconds; error and response absent when
// empty.
type AttemptRecord struct {
	At         time.Time     `json:"at"`
	StatusCode int           `json:"status_code"`
	Error      string        `json:"error,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
	Response   string        `json:"response,omitempty"`
	Signature  string        `json:"signature"`
}
