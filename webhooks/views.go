package webhooks

import "time"

// Endpoint is an organization's webhook endpoint: where its events are
// sent, and the id of the secret they are signed with.
type Endpoint struct {
	URL       string
	SecretID  string
	CreatedAt time.Time
}

// Attempt is one recorded delivery attempt.
type Attempt struct {
	At         time.Time
	StatusCode int
	// Error is why no answer came, in one of the fixed wordings of
	// Failure; "" when an answer came.
	Error    string
	Duration time.Duration
	// Response is the start of the answer, at most MaxResponse bytes; ""
	// for a refused destination.
	Response  string
	Signature string
}

// DeliveryView is a delivery as the operator lists it: the event sent,
// where, where the delivery stands and its attempts.
type DeliveryView struct {
	ID        string
	EventType string
	URL       string
	State     State
	Attempts  []Attempt // newest first
	Body      string
	CreatedAt time.Time
}
