package render

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/apikeys"
)

// apiKeyJSON is the wire form of an API key: RevokedAt renders as null
// while the key is active.
type apiKeyJSON struct {
	ID          string     `json:"id"`
	Org         string     `json:"org_id"`
	Prefix      string     `json:"prefix"`
	Environment string     `json:"environment"`
	CreatedAt   time.Time  `json:"created_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
}

func apiKey(k apikeys.Key) apiKeyJSON {
	return apiKeyJSON{ID: k.ID, Org: k.Org, Prefix: k.Prefix, Environment: string(k.Environment), CreatedAt: k.CreatedAt,
		RevokedAt: k.RevokedAt}
}

// APIKey is the operator's rendering of an API key (the engine's
// Operator.Keys items and Operator.RevokeKey), never its secret:
// {"id","org_id","prefix","environment","created_at","revoked_at"}.
func APIKey(k apikeys.Key) []byte {
	b, _ := json.Marshal(apiKey(k))
	return b
}

// NewAPIKey is the rendering of a key just made (Operator.CreateKey): the
// full key under "key", shown this once, then the fields of APIKey.
func NewAPIKey(full string, k apikeys.Key) []byte {
	b, _ := json.Marshal(struct {
		Key string `json:"key"`
		apiKeyJSON
	}{full, apiKey(k)})
	return b
}
