package render

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/webhooks"
)

// NewEndpoint is the rendering of an endpoint just set
// (Operator.SetWebhookEndpoint): {"url","secret_id","created_at","secret"},
// the signing secret shown this once.
func NewEndpoint(ep webhooks.Endpoint, secret string) []byte {
	b, _ := json.Marshal(struct {
		URL       string    `json:"url"`
		SecretID  string    `json:"secret_id"`
		CreatedAt time.Time `json:"created_at"`
		Secret    string    `json:"secret"`
	}{ep.URL, ep.SecretID, ep.CreatedAt, secret})
	return b
}
