package render

import (
	"encoding/json"
	"time"
)

// EndpointFields is an organization's webhook endpoint: the engine's
// Endpoint, field for field.
type EndpointFields struct {
	URL       string    `json:"url"`
	SecretID  string    `json:"secret_id"`
	CreatedAt time.Time `json:"created_at"`
}

// NewEndpoint is the rendering of an endpoint just set
// (Operator.SetWebhookEndpoint): {"url","secret_id","created_at","secret"},
// the signing secret shown this once.
func NewEndpoint(ep EndpointFields, secret string) []byte {
	b, _ := json.Marshal(struct {
		EndpointFields
		Secret string `json:"secret"`
	}{ep, secret})
	return b
}
