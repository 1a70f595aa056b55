package render

import (
	"testing"

	"github.com/tambalapay/tambala/webhooks"
)

func TestNewEndpointBytes(t *testing.T) {
	pin(t, NewEndpoint(webhooks.Endpoint{URL: "u", SecretID: "s", CreatedAt: pinAt}, "sec"),
		`{"url":"u","secret_id":"s","created_at":"2026-03-04T05:06:07.891234567Z","secret":"sec"}`)
}
