package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tambalapay/tambala/internal/wiretime"
	"github.com/tambalapay/tambala/money"
)

// SecretPrefix starts every signing secret.
const SecretPrefix = "whsec_"

// SecretBytes is how many random bytes a secret carries.
const SecretBytes = 32

// NewSecret renders random bytes as a signing secret.
func NewSecret(random []byte) (string, error) {
	if len(random) < SecretBytes {
		return "", fmt.Errorf("webhooks: a secret needs at least %d random bytes", SecretBytes)
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(random), nil
}

// Sign returns the Signature header for body: lowercase hex HMAC-SHA256 of
// the exact bytes, keyed with the secret's bytes.
func Sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether signature is the signature of body under any of
// secrets. Every secret is compared, in constant time, so timing tells
// nothing about which matched.
func Verify(body []byte, signature string, secrets ...string) bool {
	got, err := hex.DecodeString(strings.TrimSpace(signature))
	if err != nil || len(got) != sha256.Size {
		return false
	}
	ok := false
	for _, s := range secrets {
		if s == "" {
			continue
		}
		m := hmac.New(sha256.New, []byte(s))
		m.Write(body)
		if hmac.Equal(got, m.Sum(nil)) {
			ok = true
		}
	}
	return ok
}

// Event types of the catalog.
const (
	PayoutSucceeded    = "payout.succeeded"
	PayoutFailed       = "payout.failed"
	PayoutReversed     = "payout.reversed"
	CollectionSettled  = "collection.settled"
	CollectionReversed = "collection.reversed"
	TradeSettled       = "trade.settled"
	BalanceLow         = "balance.low"
	OrderAwaitingFunds = "order.awaiting_funds"
)

// Balance is the envelope's snapshot: JSON numbers, never for balance math.
type Balance struct {
	Available money.Amount
	Held      money.Amount
	Currency  string
}

// Envelope is one event as delivered.
type Envelope struct {
	ID        string
	EventType string
	CreatedAt time.Time
	Balance   Balance
	// Data is the resource, byte-identical to its read endpoint.
	Data json.RawMessage
}

// TimeFormat renders created_at: UTC, millisecond precision (the one
// layout of internal/wiretime).
const TimeFormat = wiretime.Layout

// Render returns the envelope's bytes: rendered once, at the event, and
// sent identically on every attempt.
func (e Envelope) Render() ([]byte, error) {
	if !json.Valid(e.Data) {
		return nil, errors.New("webhooks: data is not valid JSON")
	}
	return json.Marshal(struct {
		ID        string          `json:"id"`
		EventType string          `json:"event_type"`
		CreatedAt string          `json:"created_at"`
		Balance   any             `json:"balance"`
		Data      json.RawMessage `json:"data"`
	}{
		e.ID, e.EventType, e.CreatedAt.UTC().Format(TimeFormat),
		struct {
			Available json.Number `json:"available"`
			Held      json.Number `json:"held"`
			Currency  string      `json:"currency"`
		}{json.Number(e.Balance.Available.String()), json.Number(e.Balance.Held.String()), e.Balance.Currency},
		e.Data,
	})
}

// DefaultSchedule is the wait before each retry: the first attempt is at
// once, then 5 retries front-loaded over about 6 hours.
var DefaultSchedule = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 3*time.Hour + 30*time.Minute}

// State is where a delivery is.
type State string

const (
	Pending   State = "pending"   // due at NextAt
	Delivered State = "delivered" // a success status was recorded
	Dead      State = "dead"      // every attempt failed; never re-sent on its own
)

// Delivery is one event's delivery to one endpoint.
type Delivery struct {
	State    State
	Attempts int
	NextAt   time.Time
}

// ErrNotPending is an attempt recorded on a delivery that is not pending.
var ErrNotPending = errors.New("webhooks: delivery is not pending")

// Record applies the outcome of an attempt made at now, statusCode being
// the receiver's HTTP status. A success status delivers; anything else (a
// redirection, a client or server error status, a timeout, a refused
// connection) schedules the next retry of schedule, or dead-letters after
// the last.
// jitter in [0, 1) spreads the retry by up to a tenth of its wait.
func (d Delivery) Record(now time.Time, statusCode int, schedule []time.Duration, jitter float64) (Delivery, error) {
	if d.State != Pending {
		return d, ErrNotPending
	}
	d.Attempts++
	if statusCode >= 200 && statusCode <= 299 {
		d.State = Delivered
		return d, nil
	}
	retry := d.Attempts - 1 // retries already used before this attempt
	if retry >= len(schedule) {
		d.State = Dead
		return d, nil
	}
	wait := schedule[retry]
	if jitter > 0 && jitter < 1 {
		wait += time.Duration(float64(wait) / 10 * jitter)
	}
	d.NextAt = now.Add(wait).Truncate(time.Millisecond)
	return d, nil
}

// Redeliver puts a dead delivery back to pending at now, for one more full
// schedule (the operator's re-delivery on request).
func (d Delivery) Redeliver(now time.Time) (Delivery, error) {
	if d.State != Dead {
		return d, errors.New("webhooks: only a dead delivery is re-delivered")
	}
	return Delivery{State: Pending, Attempts: 0, NextAt: now}, nil
}
