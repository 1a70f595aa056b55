package httpapi

import (
	"encoding/json"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/internal/render"
	"github.com/tambalapay/tambala/money"
)

// The renderings of the engine's own resources, and the bodies the admin
// API takes for them. Each resource is a type of a package below the
// engine (tambala.APIKey is apikeys.Key, ...), so internal/render takes
// it as it is.

// renderOrg is the rendering of an organization.
func renderOrg(o tambala.Organization) json.RawMessage { return render.Organization(o) }

// assetAccessJSON is an asset and its operations as the admin API takes
// them.
type assetAccessJSON struct {
	Asset      money.AssetCode `json:"asset"`
	Operations []string        `json:"operations"`
}

// assetAccesses reads a list of assetAccessJSON; nil stays nil (no list
// given).
func assetAccesses(in []assetAccessJSON) []tambala.AssetAccess {
	if in == nil {
		return nil
	}
	out := make([]tambala.AssetAccess, len(in))
	for i, a := range in {
		out[i] = tambala.AssetAccess(a)
	}
	return out
}

// payoutLimitsJSON is an organization's /v1 payout limits as the admin
// API takes them.
type payoutLimitsJSON struct {
	MaxPerPayoutMWK string `json:"max_per_payout_mwk"`
	DailyVolumeMWK  string `json:"daily_volume_mwk"`
	HourlyCount     int    `json:"hourly_count"`
}

// renderKey is the rendering of an API key (never its secret).
func renderKey(k tambala.APIKey) []byte { return render.APIKey(k) }

// renderInvitation is the rendering of an invitation (never its token).
func renderInvitation(i tambala.Invitation) []byte { return render.Invitation(i) }

// renderDelivery is the rendering of a webhook delivery.
func renderDelivery(v tambala.DeliveryView) json.RawMessage { return render.Delivery(v) }

// renderUser is the rendering of a portal user: never a secret of theirs.
func renderUser(u tambala.User) json.RawMessage { return render.User(u) }

// renderAuditEntry is the rendering of an entry of the audit trail.
func renderAuditEntry(a tambala.AuditEntry) json.RawMessage { return render.AuditEntry(a) }
