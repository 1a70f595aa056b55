package orgs_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
)

var (
	t0     = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	assets = money.DefaultAssets()
)

func mwk(s string) money.Amount {
	a, err := money.Parse(money.MWK, s)
	if err != nil {
		panic(err)
	}
	return a
}

func addrs(entries ...string) []netip.Addr {
	out := make([]netip.Addr, len(entries))
	for i, s := range entries {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

func TestNewDefaults(t *testing.T) {
	o, err := orgs.New("o1", orgs.Params{Name: "  Acme  "}, assets, t0)
	require.NoError(t, err)
	assert.Equal(t, orgs.Organization{ID: "o1", Name: "Acme", Status: orgs.Active, V2Access: orgs.V2OnboardingIncomplete,
		Assets:    []orgs.AssetAccess{{Asset: "MWK", Operations: []string{"collection", "payout"}}},
		Allowlist: []netip.Addr{}, CreatedAt: t0}, o)
	assert.False(t, o.BalanceFloorMWK.IsSet())
	assert.Nil(t, o.PayoutLimits)

	in := []orgs.AssetAccess{{Asset: "USDT", Operations: []string{"payout", "convert", "payout"}}, {Asset: "MWK"}}
	o, err = orgs.New("o2", orgs.Params{Name: "B", V2Access: orgs.V2Enabled, Assets: in, BalanceFloorMWK: mwk("1000")}, assets, t0)
	require.NoError(t, err)
	assert.Equal(t, orgs.V2Enabled, o.V2Access)
	assert.Equal(t, []orgs.AssetAccess{{Asset: "MWK", Operations: []string{}}, {Asset: "USDT", Operations: []string{"convert", "payout"}}}, o.Assets)
	assert.Equal(t, []orgs.AssetAccess{{Asset: "USDT", Operations: []string{"payout", "convert", "payout"}}, {Asset: "MWK"}}, in,
		"the caller's list is left as it was")
	assert.Equal(t, "1000.00", o.BalanceFloorMWK.String())

	o, err = orgs.New("o3", orgs.Params{Name: "C", Assets: []orgs.AssetAccess{}}, assets, t0)
	require.NoError(t, err)
	assert.Equal(t, []orgs.AssetAccess{}, o.Assets, "an empty list enables no asset")
}

// TestNewRefusals is the table of what New refuses, each with its code and
// message; where two things are wrong, the first checked is reported.
func TestNewRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    orgs.Params
		code errcode.Code
		msg  string
	}{
		{"blank name", orgs.Params{Name: "  "}, errcode.ValidationError, "name must be 1 to 200 characters"},
		{"long name", orgs.Params{Name: strings.Repeat("x", 201)}, errcode.ValidationError, "name must be 1 to 200 characters"},
		{"name with a control character", orgs.Params{Name: "a\x00b"}, errcode.ValidationError, ""},
		{"name first", orgs.Params{Name: "", V2Access: "maybe", Assets: []orgs.AssetAccess{{Asset: "EUR"}}}, errcode.ValidationError,
			"name must be 1 to 200 characters"},
		{"bad access", orgs.Params{Name: "x", V2Access: "maybe"}, errcode.ValidationError,
			"v2 access must be onboarding_incomplete, enabled or access_suspended"},
		{"access before assets", orgs.Params{Name: "x", V2Access: "maybe", Assets: []orgs.AssetAccess{{Asset: "EUR"}}}, errcode.ValidationError,
			"v2 access must be onboarding_incomplete, enabled or access_suspended"},
		{"unconfigured asset", orgs.Params{Name: "x", Assets: []orgs.AssetAccess{{Asset: "EUR"}}}, errcode.UnsupportedAsset,
			`asset "EUR" is not configured`},
		{"asset twice", orgs.Params{Name: "x", Assets: []orgs.AssetAccess{{Asset: "MWK"}, {Asset: "MWK"}}}, errcode.ValidationError,
			"asset MWK listed twice"},
		{"bad operation", orgs.Params{Name: "x", Assets: []orgs.AssetAccess{{Asset: "MWK", Operations: []string{"mint"}}}}, errcode.ValidationError,
			`operation "mint" must be payout, convert or collection`},
		{"assets before the floor", orgs.Params{Name: "x", Assets: []orgs.AssetAccess{{Asset: "EUR"}}, BalanceFloorMWK: money.FromInt(money.USDT, 1)},
			errcode.UnsupportedAsset, `asset "EUR" is not configured`},
		{"floor of another asset", orgs.Params{Name: "x", BalanceFloorMWK: money.FromInt(money.USDT, 1)}, errcode.ValidationError,
			"the balance floor must be an MWK amount of zero or more"},
		{"negative floor", orgs.Params{Name: "x", BalanceFloorMWK: mwk("1").Neg()}, errcode.ValidationError,
			"the balance floor must be an MWK amount of zero or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := orgs.New("o", tc.p, assets, t0)
			assert.Equal(t, tc.code, errcode.Of(err), "%v", err)
			if tc.msg != "" {
				assert.Equal(t, tc.msg, errcode.Message(err))
			}
		})
	}
	_, err := orgs.New("o", orgs.Params{Name: "x", BalanceFloorMWK: money.Zero(money.MWK)}, assets, t0)
	assert.NoError(t, err, "a floor of zero is a floor")
}

// base is an organization with MWK payouts enabled.
func base() orgs.Organization {
	o, err := orgs.New("o1", orgs.Params{Name: "Acme", Assets: []orgs.AssetAccess{{Asset: "MWK", Operations: []string{"payout"}}}}, assets, t0)
	if err != nil {
		panic(err)
	}
	return o
}

// TestApply is the table of every change: what it makes of an
// organization, or its refusal with the organization unchanged.
func TestApply(t *testing.T) {
	limits := orgs.PayoutLimits{MaxPerPayoutMWK: mwk("20000"), HourlyCount: 3}
	for _, tc := range []struct {
		name   string
		change orgs.Change
		check  func(t *testing.T, o orgs.Organization)
		code   errcode.Code
		msg    string
		early  bool // refused by Check, before any organization is read
	}{
		{"suspend", orgs.SetStatus{Status: orgs.Suspended}, func(t *testing.T, o orgs.Organization) {
			assert.Equal(t, orgs.Suspended, o.Status)
		}, "", "", false},
		{"unknown status", orgs.SetStatus{Status: "closed"}, nil, errcode.ValidationError, "status must be active or suspended", false},
		{"enable v2", orgs.SetV2Access{Access: orgs.V2Enabled}, func(t *testing.T, o orgs.Organization) {
			assert.Equal(t, orgs.V2Enabled, o.V2Access)
		}, "", "", false},
		{"unknown access", orgs.SetV2Access{Access: "on"}, nil, errcode.ValidationError,
			"v2 access must be onboarding_incomplete, enabled or access_suspended", false},
		{"assets sorted", orgs.SetAssets{Assets: []orgs.AssetAccess{{Asset: "USDT", Operations: []string{"convert"}}, {Asset: "MWK", Operations: []string{"payout", "collection"}}}},
			func(t *testing.T, o orgs.Organization) {
				assert.Equal(t, []orgs.AssetAccess{{Asset: "MWK", Operations: []string{"collection", "payout"}}, {Asset: "USDT", Operations: []string{"convert"}}}, o.Assets)
			}, "", "", false},
		{"no assets", orgs.SetAssets{}, func(t *testing.T, o orgs.Organization) {
			assert.Equal(t, []orgs.AssetAccess{}, o.Assets)
			assert.False(t, o.Enabled("MWK", ""))
		}, "", "", false},
		{"unconfigured asset", orgs.SetAssets{Assets: []orgs.AssetAccess{{Asset: "ZMW"}}}, nil, errcode.UnsupportedAsset, `asset "ZMW" is not configured`, false},
		{"floor", orgs.SetBalanceFloor{Floor: mwk("10")}, func(t *testing.T, o orgs.Organization) {
			assert.Equal(t, "10.00", o.BalanceFloorMWK.String())
		}, "", "", false},
		{"floor removed", orgs.SetBalanceFloor{}, func(t *testing.T, o orgs.Organization) {
			assert.False(t, o.BalanceFloorMWK.IsSet())
		}, "", "", false},
		{"floor in USDT", orgs.SetBalanceFloor{Floor: money.FromInt(money.USDT, 1)}, nil, errcode.ValidationError,
			"the balance floor must be an MWK amount of zero or more", false},
		{"allowlist", orgs.SetAllowlist{Addrs: addrs("203.0.113.7", "2001:db8::1", "::ffff:203.0.113.7", "198.51.100.1", "10.0.0.1")},
			func(t *testing.T, o orgs.Organization) {
				assert.Equal(t, addrs("10.0.0.1", "198.51.100.1", "2001:db8::1", "203.0.113.7"), o.Allowlist,
					"unmapped, sorted by text, without repeats")
			}, "", "", false},
		{"allowlist emptied", orgs.SetAllowlist{}, func(t *testing.T, o orgs.Organization) {
			assert.Equal(t, []netip.Addr{}, o.Allowlist)
		}, "", "", false},
		{"allowlist with a zone", orgs.SetAllowlist{Addrs: addrs("fe80::1%eth0")}, nil, errcode.ValidationError,
			`allowlist entry "fe80::1%eth0" is not an IPv4 or IPv6 address`, true},
		{"allowlist with no address", orgs.SetAllowlist{Addrs: []netip.Addr{{}}}, nil, errcode.ValidationError,
			`allowlist entry "invalid IP" is not an IPv4 or IPv6 address`, true},
		{"payout limits", orgs.SetPayoutLimits{Limits: limits}, func(t *testing.T, o orgs.Organization) {
			require.NotNil(t, o.PayoutLimits)
			assert.Equal(t, limits, *o.PayoutLimits)
		}, "", "", false},
		{"payout limits all unset", orgs.SetPayoutLimits{}, func(t *testing.T, o orgs.Organization) {
			require.NotNil(t, o.PayoutLimits, "set, with every field unset")
			assert.Equal(t, orgs.DefaultPayoutLimits(), o.PayoutLimitsInForce())
		}, "", "", false},
		{"negative hourly count", orgs.SetPayoutLimits{Limits: orgs.PayoutLimits{HourlyCount: -1}}, nil, errcode.ValidationError,
			"hourly_count must not be negative", true},
		{"maximum in USDT", orgs.SetPayoutLimits{Limits: orgs.PayoutLimits{MaxPerPayoutMWK: money.FromInt(money.USDT, 1)}}, nil,
			errcode.ValidationError, "max_per_payout_mwk must be an MWK amount of zero or more", true},
		{"negative daily volume", orgs.SetPayoutLimits{Limits: orgs.PayoutLimits{DailyVolumeMWK: mwk("5").Neg()}}, nil,
			errcode.ValidationError, "daily_volume_mwk must be an MWK amount of zero or more", true},
		{"no change", nil, nil, errcode.ValidationError, "no change given", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			before := o.Clone()
			got, err := orgs.Apply(o, tc.change, assets)
			assert.Equal(t, before, o, "Apply never changes its argument")
			if tc.code != "" {
				assert.Equal(t, tc.code, errcode.Of(err), "%v", err)
				assert.Equal(t, tc.msg, errcode.Message(err))
				assert.Equal(t, o, got, "a refused change leaves the organization as it was")
				if tc.change != nil {
					assert.Equal(t, tc.early, tc.change.Check() != nil, "refused before the organization is read")
				}
				return
			}
			require.NoError(t, err)
			require.NoError(t, tc.change.Check())
			tc.check(t, got)
			again, err := orgs.Apply(got, tc.change, assets)
			require.NoError(t, err)
			assert.Equal(t, got, again, "making a change twice is making it once")
		})
	}
}

// TestApplyValidatesTheWhole: a change to one field still fails on
// another that is no longer valid (an asset the engine no longer
// configures).
func TestApplyValidatesTheWhole(t *testing.T) {
	o := base()
	o.Assets = append(o.Assets, orgs.AssetAccess{Asset: "ZMW", Operations: []string{}})
	_, err := orgs.Apply(o, orgs.SetStatus{Status: orgs.Suspended}, assets)
	assert.Equal(t, errcode.UnsupportedAsset, errcode.Of(err))
}

func TestParseAllowlist(t *testing.T) {
	got, err := orgs.ParseAllowlist([]string{"203.0.113.7", " 2001:DB8::1 ", "::ffff:203.0.113.7"})
	require.NoError(t, err)
	assert.Equal(t, addrs("203.0.113.7", "2001:db8::1", "::ffff:203.0.113.7"), got, "as written, trimmed")
	got, err = orgs.ParseAllowlist(nil)
	require.NoError(t, err)
	assert.Equal(t, []netip.Addr{}, got)
	for _, tc := range []struct{ in, msg string }{
		{"10.0.0.0/8", `allowlist entry "10.0.0.0/8" is a range; only exact addresses are allowed`},
		{"2001:db8::/32", `allowlist entry "2001:db8::/32" is a range; only exact addresses are allowed`},
		{"fe80::1%eth0", `allowlist entry "fe80::1%eth0" is not an IPv4 or IPv6 address`},
		{"host", `allowlist entry "host" is not an IPv4 or IPv6 address`},
		{"", `allowlist entry "" is not an IPv4 or IPv6 address`},
		{" ", `allowlist entry " " is not an IPv4 or IPv6 address`},
		{"1.2.3.4:5", `allowlist entry "1.2.3.4:5" is not an IPv4 or IPv6 address`},
	} {
		_, err := orgs.ParseAllowlist([]string{"192.0.2.1", tc.in})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), tc.in)
		assert.Equal(t, tc.msg, errcode.Message(err), tc.in)
	}
}

func TestEnabledAndAllows(t *testing.T) {
	o := base()
	assert.True(t, o.Enabled("MWK", "payout"))
	assert.True(t, o.Enabled("MWK", ""))
	assert.False(t, o.Enabled("MWK", "collection"))
	assert.False(t, o.Enabled("USDT", ""))

	assert.True(t, o.Allows(netip.Addr{}), "an empty list allows every address")
	o, err := orgs.Apply(o, orgs.SetAllowlist{Addrs: addrs("203.0.113.7", "2001:db8::1")}, assets)
	require.NoError(t, err)
	for addr, ok := range map[string]bool{
		"203.0.113.7": true, "::ffff:203.0.113.7": true, "2001:db8::1": true, "2001:db8::1%eth0": true,
		"203.0.113.8": false, "::1": false,
	} {
		assert.Equal(t, ok, o.Allows(netip.MustParseAddr(addr)), addr)
	}
	assert.False(t, o.Allows(netip.Addr{}))
}

func TestPayoutLimitsInForce(t *testing.T) {
	d := orgs.DefaultPayoutLimits()
	assert.Equal(t, "5000000.00", d.MaxPerPayoutMWK.String())
	assert.Equal(t, "50000000.00", d.DailyVolumeMWK.String())
	assert.Equal(t, 1000, d.HourlyCount)
	for _, tc := range []struct {
		name string
		set  *orgs.PayoutLimits
		want orgs.PayoutLimits
	}{
		{"none set", nil, d},
		{"all unset", &orgs.PayoutLimits{}, d},
		{"maximum", &orgs.PayoutLimits{MaxPerPayoutMWK: mwk("20000")}, orgs.PayoutLimits{MaxPerPayoutMWK: mwk("20000"), DailyVolumeMWK: d.DailyVolumeMWK, HourlyCount: 1000}},
		{"a zero maximum is set", &orgs.PayoutLimits{MaxPerPayoutMWK: money.Zero(money.MWK)}, orgs.PayoutLimits{MaxPerPayoutMWK: money.Zero(money.MWK), DailyVolumeMWK: d.DailyVolumeMWK, HourlyCount: 1000}},
		{"volume and count", &orgs.PayoutLimits{DailyVolumeMWK: mwk("1"), HourlyCount: 2}, orgs.PayoutLimits{MaxPerPayoutMWK: d.MaxPerPayoutMWK, DailyVolumeMWK: mwk("1"), HourlyCount: 2}},
	} {
		o := orgs.Organization{PayoutLimits: tc.set}
		assert.Equal(t, tc.want, o.PayoutLimitsInForce(), tc.name)
	}
}

func TestFunding(t *testing.T) {
	hundred := money.FromInt(money.MWK, 100)
	for _, tc := range []struct {
		name   string
		amount money.Amount
		ref    string
		code   errcode.Code
		msg    string
	}{
		{"ok", hundred, "r1", "", ""},
		{"zero", money.Zero(money.MWK), "r1", errcode.ValidationError, "amount must be positive"},
		{"negative", hundred.Neg(), "r1", errcode.ValidationError, "amount must be positive"},
		{"above the maximum", money.FromInt(money.MWK, money.MaxWholeUnits+1), "r1", errcode.LimitExceeded, ""},
		{"no ref", hundred, "", errcode.ValidationError, "ref is required"},
		{"amount before ref", money.Zero(money.MWK), "", errcode.ValidationError, "amount must be positive"},
	} {
		err := orgs.CheckFunding(tc.amount, tc.ref)
		if tc.code == "" {
			assert.NoError(t, err, tc.name)
			continue
		}
		assert.Equal(t, tc.code, errcode.Of(err), tc.name)
		if tc.msg != "" {
			assert.Equal(t, tc.msg, errcode.Message(err), tc.name)
		}
	}
	o := base()
	assert.NoError(t, o.CheckFundable("MWK"))
	err := o.CheckFundable("USDT")
	assert.Equal(t, errcode.CorridorNotEnabled, errcode.Of(err))
	assert.Equal(t, "USDT is not enabled for this organization", errcode.Message(err))
	assert.Equal(t, "fund:o1:MWK:r1", orgs.FundingEntryID("o1", "MWK", "r1"))
}

func TestClone(t *testing.T) {
	o, err := orgs.Apply(base(), orgs.SetAllowlist{Addrs: addrs("192.0.2.1")}, assets)
	require.NoError(t, err)
	o, err = orgs.Apply(o, orgs.SetPayoutLimits{Limits: orgs.PayoutLimits{HourlyCount: 1}}, assets)
	require.NoError(t, err)
	c := o.Clone()
	require.Equal(t, o, c)
	c.Allowlist[0] = netip.MustParseAddr("192.0.2.2")
	c.Assets[0].Operations[0] = "convert"
	c.PayoutLimits.HourlyCount = 9
	assert.Equal(t, addrs("192.0.2.1"), o.Allowlist)
	assert.Equal(t, []string{"payout"}, o.Assets[0].Operations)
	assert.Equal(t, 1, o.PayoutLimits.HourlyCount)
}
