package httpapi_test

import (
	"testing"
)

// TestAdmin_OrgFiguresParsedInTheEngineOrder: the binding parses the
// floor, the payout limits and the allowlist from their text, and still
// answers as if the engine had: a bad floor comes after the name, the
// access and the assets on create, and after the organization's lookup on
// update; bad limits and allowlist entries come before it.
func TestAdmin_OrgFiguresParsedInTheEngineOrder(t *testing.T) {
	e := newEnv(t)
	org := e.admin(t, "POST", "/admin/orgs", map[string]any{"name": "A"}).want(t, 201, "").obj(t)["id"].(string)
	const (
		decimals = `{"error":{"code":"validation_error","message":"MWK amount has more decimal places than the asset carries"}}`
		sign     = `{"error":{"code":"validation_error","message":"amount must not carry a sign"}}`
		notFound = `{"error":{"code":"not_found","message":"No such resource."}}`
	)
	for _, tc := range []struct {
		name, method, path string
		body               map[string]any
		status             int
		want               string
	}{
		{"name before floor", "POST", "/admin/orgs", map[string]any{"name": " ", "balance_floor_mwk": "1.001"}, 400,
			`{"error":{"code":"validation_error","message":"name must be 1 to 200 characters"}}`},
		{"access before floor", "POST", "/admin/orgs", map[string]any{"name": "x", "v2_access": "yes", "balance_floor_mwk": "-1"}, 400,
			`{"error":{"code":"validation_error","message":"v2 access must be onboarding_incomplete, enabled or access_suspended"}}`},
		{"assets before floor", "POST", "/admin/orgs", map[string]any{"name": "x", "assets": []map[string]any{{"asset": "EUR"}}, "balance_floor_mwk": "-1"}, 422,
			`{"error":{"code":"unsupported_asset","message":"asset \"EUR\" is not configured"}}`},
		{"floor", "POST", "/admin/orgs", map[string]any{"name": "x", "balance_floor_mwk": "1.001"}, 400, decimals},
		{"unknown organization before floor", "PUT", "/admin/orgs/nope/balance-floor", map[string]any{"floor_mwk": "-1"}, 404, notFound},
		{"floor of a known organization", "PUT", "/admin/orgs/" + org + "/balance-floor", map[string]any{"floor_mwk": "-1"}, 400, sign},
		{"limits before the organization", "PUT", "/admin/orgs/nope/payout-limits", map[string]any{"max_per_payout_mwk": "1.001", "daily_volume_mwk": "-1"}, 400, decimals},
		{"daily volume", "PUT", "/admin/orgs/nope/payout-limits", map[string]any{"max_per_payout_mwk": "1", "daily_volume_mwk": "-1", "hourly_count": -1}, 400, sign},
		{"hourly count", "PUT", "/admin/orgs/nope/payout-limits", map[string]any{"max_per_payout_mwk": "1", "hourly_count": -1}, 400,
			`{"error":{"code":"validation_error","message":"hourly_count must not be negative"}}`},
		{"limits of an unknown organization", "PUT", "/admin/orgs/nope/payout-limits", map[string]any{"max_per_payout_mwk": "1"}, 404, notFound},
		{"allowlist before the organization", "PUT", "/admin/orgs/nope/allowlist", map[string]any{"addresses": []string{"192.0.2.1", "10.0.0.0/8"}}, 400,
			`{"error":{"code":"validation_error","message":"allowlist entry \"10.0.0.0/8\" is a range; only exact addresses are allowed"}}`},
		{"allowlist of an unknown organization", "PUT", "/admin/orgs/nope/allowlist", map[string]any{"addresses": []string{"192.0.2.1"}}, 404, notFound},
	} {
		r := e.admin(t, tc.method, tc.path, tc.body)
		if r.Status != tc.status || string(r.Body) != tc.want {
			t.Errorf("%s: got %d %s\nwant %d %s", tc.name, r.Status, r.Body, tc.status, tc.want)
		}
	}

	// Limits and the floor are amounts: they render at the asset's
	// decimals, and an empty one is unset.
	o := e.admin(t, "PUT", "/admin/orgs/"+org+"/payout-limits", map[string]any{"max_per_payout_mwk": "20000", "daily_volume_mwk": "", "hourly_count": 2}).
		want(t, 200, "").obj(t)
	if l := o["payout_limits"].(map[string]any); l["max_per_payout_mwk"] != "20000.00" || l["daily_volume_mwk"] != "" || l["hourly_count"] != 2.0 {
		t.Errorf("payout_limits = %v", l)
	}
	o = e.admin(t, "PUT", "/admin/orgs/"+org+"/balance-floor", map[string]any{"floor_mwk": "0"}).want(t, 200, "").obj(t)
	if o["balance_floor_mwk"] != "0.00" {
		t.Errorf("balance_floor_mwk = %v", o["balance_floor_mwk"])
	}
	o = e.admin(t, "PUT", "/admin/orgs/"+org+"/balance-floor", map[string]any{"floor_mwk": ""}).want(t, 200, "").obj(t)
	if _, ok := o["balance_floor_mwk"]; ok {
		t.Errorf("an emptied floor is still rendered: %v", o)
	}
}
