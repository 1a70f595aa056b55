package codec

import "time"

// EndpointRecord is the stored form of an organization's webhook endpoint
// (the engine's Endpoint): {"url","secret_id","created_at"}.
type EndpointRecord struct {
	URL       string    `json:"url"`
	SecretID  string    `json:"secret_id"`
	CreatedAt time.Time `json:"created_at"`
}

// SecretRecord keeps a webhook signing secret, in the clear (it is an HMAC
// key the engine signs with): {"org","secret"}.
type SecretRecord struct {
	Org    string `json:"org"`
	Secret string `json:"secret"`
}
