package render

import (
	"testing"

	"github.com/tambalapay/tambala/apikeys"
)

func TestAPIKeyBytes(t *testing.T) {
	k := apikeys.Key{ID: "k", Org: "o", Prefix: "p", Environment: "sandbox", CreatedAt: pinAt}
	pin(t, APIKey(k), `{"id":"k","org_id":"o","prefix":"p","environment":"sandbox","created_at":"2026-03-04T05:06:07.891234567Z","revoked_at":null}`)
	pin(t, NewAPIKey("full", k), `{"key":"full","id":"k","org_id":"o","prefix":"p","environment":"sandbox","created_at":"2026-03-04T05:06:07.891234567Z","revoked_at":null}`)
	k.RevokedAt = &pinAt2
	pin(t, APIKey(k), `{"id":"k","org_id":"o","prefix":"p","environment":"sandbox","created_at":"2026-03-04T05:06:07.891234567Z","revoked_at":"2026-03-04T06:36:07.891234567Z"}`)
}
