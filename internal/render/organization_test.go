package render

import "testing"

func TestOrganizationBytes(t *testing.T) {
	pin(t, organizationBytes(organizationJSON{ID: "o1", Name: "N", Status: "active", V2Access: "enabled",
		Assets:          []assetAccessJSON{{Asset: "MWK", Operations: []string{"payout"}}, {Asset: "USDT"}},
		BalanceFloorMWK: "1.00", Allowlist: []string{"1.2.3.4"},
		PayoutLimits: &payoutLimitsJSON{MaxPerPayoutMWK: "1", DailyVolumeMWK: "2", HourlyCount: 3}, CreatedAt: pinAt}),
		`{"id":"o1","name":"N","status":"active","v2_access":"enabled","assets":[{"asset":"MWK","operations":["payout"]},{"asset":"USDT","operations":null}],"balance_floor_mwk":"1.00","ip_allowlist":["1.2.3.4"],"payout_limits":{"max_per_payout_mwk":"1","daily_volume_mwk":"2","hourly_count":3},"created_at":"2026-03-04T05:06:07.891234567Z"}`)
	pin(t, organizationBytes(organizationJSON{}),
		`{"id":"","name":"","status":"","v2_access":"","assets":null,"ip_allowlist":null,"created_at":"0001-01-01T00:00:00Z"}`)
}
