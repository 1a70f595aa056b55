package render

import (
	"encoding/json"
	"time"
)

// APIKeyFields is an API key as the operator reads it: the engine's
// APIKey, field for field. RevokedAt renders as null while the key is
// active.
type APIKeyFields struct {
	ID          string     `json:"id"`
	Org         string     `json:"org_id"`
	Prefix      string     `json:"prefix"`
	Environment string     `json:"environment"`
	CreatedAt   time.Time  `json:"created_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
}

// APIKey is the operator's rendering of an API key (the engine's
// Operator.Keys items and Operator.RevokeKey):
// {"id","org_id","prefix","environment","created_at","revoked_at"}.
func APIKey(k APIKeyFields) []byte {
	b, _ := json.Marshal(k)
	return b
}

// NewAPIKey is the rendering of a key just made (Operator.CreateKey): the
// full key under "key", shown this once, then the fields of APIKey.
func NewAPIKey(full string, k APIKeyFields) []byte {
	b, _ := json.Marshal(struct {
		Key string `json:"key"`
		APIKeyFields
	}{full, k})
	return b
}
