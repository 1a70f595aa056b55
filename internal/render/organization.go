package render

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/money"
)

// OrganizationFields is an organization as the operator reads it: the
// engine's Organization, field for field (this package cannot import the
// engine, which renders its events here). Assets and Allowlist render as
// null when nil; BalanceFloorMWK and PayoutLimits are left out when unset.
type OrganizationFields struct {
	ID              string        `json:"id"`
	Name            string        `json:"name"`
	Status          string        `json:"status"`
	V2Access        string        `json:"v2_access"`
	Assets          []AssetAccess `json:"assets"`
	BalanceFloorMWK string        `json:"balance_floor_mwk,omitempty"`
	Allowlist       []string      `json:"ip_allowlist"`
	PayoutLimits    *PayoutLimits `json:"payout_limits,omitempty"`
	CreatedAt       time.Time     `json:"created_at"`
}

// AssetAccess is an asset enabled for an organization and its operations.
type AssetAccess struct {
	Asset      money.AssetCode `json:"asset"`
	Operations []string        `json:"operations"`
}

// PayoutLimits are an organization's /v1 payout limits.
type PayoutLimits struct {
	MaxPerPayoutMWK string `json:"max_per_payout_mwk"`
	DailyVolumeMWK  string `json:"daily_volume_mwk"`
	HourlyCount     int    `json:"hourly_count"`
}

// Organization is the operator's rendering of an organization (the
// engine's Operator.Organization and every call that changes one):
// {"id","name","status","v2_access","assets","balance_floor_mwk"?,
// "ip_allowlist","payout_limits"?,"created_at"}, created_at in RFC 3339
// with nanoseconds.
func Organization(o OrganizationFields) []byte {
	b, _ := json.Marshal(o)
	return b
}
