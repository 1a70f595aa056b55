package render

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
)

// organizationJSON is the wire form of an organization: Assets and
// Allowlist render as null when nil; BalanceFloorMWK and PayoutLimits are
// left out when unset.
type organizationJSON struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	Status          string            `json:"status"`
	V2Access        string            `json:"v2_access"`
	Assets          []assetAccessJSON `json:"assets"`
	BalanceFloorMWK string            `json:"balance_floor_mwk,omitempty"`
	Allowlist       []string          `json:"ip_allowlist"`
	PayoutLimits    *payoutLimitsJSON `json:"payout_limits,omitempty"`
	CreatedAt       time.Time         `json:"created_at"`
}

// assetAccessJSON is an asset enabled for an organization and its
// operations.
type assetAccessJSON struct {
	Asset      money.AssetCode `json:"asset"`
	Operations []string        `json:"operations"`
}

// payoutLimitsJSON are an organization's /v1 payout limits.
type payoutLimitsJSON struct {
	MaxPerPayoutMWK string `json:"max_per_payout_mwk"`
	DailyVolumeMWK  string `json:"daily_volume_mwk"`
	HourlyCount     int    `json:"hourly_count"`
}

// Organization is the operator's rendering of an organization (the
// engine's Operator.Organization and every call that changes one):
// {"id","name","status","v2_access","assets","balance_floor_mwk"?,
// "ip_allowlist","payout_limits"?,"created_at"}, created_at in RFC 3339
// with nanoseconds.
func Organization(o orgs.Organization) []byte {
	f := organizationJSON{ID: o.ID, Name: o.Name, Status: string(o.Status), V2Access: string(o.V2Access),
		BalanceFloorMWK: mwkText(o.BalanceFloorMWK), CreatedAt: o.CreatedAt}
	if o.Assets != nil {
		f.Assets = make([]assetAccessJSON, len(o.Assets))
		for i, a := range o.Assets {
			f.Assets[i] = assetAccessJSON(a)
		}
	}
	if o.Allowlist != nil {
		f.Allowlist = make([]string, len(o.Allowlist))
		for i, a := range o.Allowlist {
			f.Allowlist[i] = a.String()
		}
	}
	if l := o.PayoutLimits; l != nil {
		f.PayoutLimits = &payoutLimitsJSON{MaxPerPayoutMWK: mwkText(l.MaxPerPayoutMWK), DailyVolumeMWK: mwkText(l.DailyVolumeMWK),
			HourlyCount: l.HourlyCount}
	}
	return organizationBytes(f)
}

func organizationBytes(f organizationJSON) []byte {
	b, _ := json.Marshal(f)
	return b
}

// mwkText is the text of an optional MWK amount: "" when unset.
func mwkText(a money.Amount) string {
	if !a.IsSet() {
		return ""
	}
	return a.String()
}
