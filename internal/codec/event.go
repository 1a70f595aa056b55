package codec

import (
	"encoding/json"
	"time"
)

// EventRecord is an event waiting for the engine's event handler: the
// event, the kind of its resource and the resource's stored record
// (Record; the binary order record as a JSON string), how many hand-overs
// failed (absent when none) and when it is next handed over.
type EventRecord struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Org       string          `json:"org"`
	CreatedAt time.Time       `json:"created_at"`
	Kind      string          `json:"kind"`
	Record    json.RawMessage `json:"record"`
	Attempts  int             `json:"attempts,omitempty"`
	NextAt    time.Time       `json:"next_at"`
}

// BalanceLowRecord is the stored resource of a balance.low event: the MWK
// balance and the floor, as decimal text.
type BalanceLowRecord struct {
	Available string `json:"available"`
	Held      string `json:"held"`
	Floor     string `json:"floor"`
}
