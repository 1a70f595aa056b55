package codec

import (
	"time"

	"github.com/tambalapay/tambala/money"
)

// OrgRecord is the stored form of an organization (the engine's
// Organization). Assets and ip_allowlist are null when nil;
// balance_floor_mwk and payout_limits are absent when unset.
type OrgRecord struct {
	ID              string              `json:"id"`
	Name            string              `json:"name"`
	Status          string              `json:"status"`
	V2Access        string              `json:"v2_access"`
	Assets          []AssetAccessRecord `json:"assets"`
	BalanceFloorMWK string              `json:"balance_floor_mwk,omitempty"`
	Allowlist       []string            `json:"ip_allowlist"`
	PayoutLimits    *PayoutLimitsRecord `json:"payout_limits,omitempty"`
	CreatedAt       time.Time           `json:"created_at"`
}

// AssetAccessRecord is an asset enabled for an organization and its
// operations: {"asset","operations"}.
type AssetAccessRecord struct {
	Asset      money.AssetCode `json:"asset"`
	Operations []string        `json:"operations"`
}

// PayoutLimitsRecord is an organization's /v1 payout limits:
// {"max_per_payout_mwk","daily_volume_mwk","hourly_count"}.
type PayoutLimitsRecord struct {
	MaxPerPayoutMWK string `json:"max_per_payout_mwk"`
	DailyVolumeMWK  string `json:"daily_volume_mwk"`
	HourlyCount     int    `json:"hourly_count"`
}
