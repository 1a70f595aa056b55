package tambala_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
)

func TestOrganizations_CreateAndValidate(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	o, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: " Acme "})
	require.NoError(t, err)
	assert.Equal(t, "Acme", o.Name)
	assert.Equal(t, tambala.OrgActive, o.Status)
	assert.Equal(t, tambala.V2OnboardingIncomplete, o.V2Access)
	assert.Equal(t, []tambala.AssetAccess{{Asset: "MWK", Operations: []string{"collection", "payout"}}}, o.Assets)
	assert.Equal(t, []netip.Addr{}, o.Allowlist)
	assert.True(t, o.Enabled("MWK", "payout"))
	assert.True(t, o.Enabled("MWK", ""))
	assert.False(t, o.Enabled("MWK", "convert"))
	assert.False(t, o.Enabled("USDT", ""))

	got, err := e.Operator().Organization(ctx, o.ID)
	require.NoError(t, err)
	assert.Equal(t, o.ID, got.ID)
	_, err = e.Operator().Organization(ctx, "nope")
	assert.Equal(t, errcode.NotFound, errcode.Of(err))

	for name, n := range map[string]tambala.NewOrganization{
		"empty name":    {Name: " "},
		"long name":     {Name: strings.Repeat("x", 201)},
		"bad access":    {Name: "x", V2Access: "maybe"},
		"bad operation": {Name: "x", Assets: []tambala.AssetAccess{{Asset: "MWK", Operations: []string{"mint"}}}},
		"dup asset":     {Name: "x", Assets: []tambala.AssetAccess{{Asset: "MWK"}, {Asset: "MWK"}}},
		"bad floor":     {Name: "x", BalanceFloorMWK: money.FromUnits(money.USDT, 1234)},
	} {
		_, err := e.Operator().CreateOrganization(ctx, n)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), name)
	}
	_, err = e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "x", Assets: []tambala.AssetAccess{{Asset: "EUR"}}})
	assert.Equal(t, errcode.UnsupportedAsset, errcode.Of(err))
	list, err := e.Operator().Organizations(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1, "refused creations store nothing")
}

func TestOrganizations_Updates(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	o, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "A"})
	require.NoError(t, err)

	o, err = e.Operator().SetAssets(ctx, o.ID, []tambala.AssetAccess{{Asset: "USDT", Operations: []string{"payout", "convert", "payout"}}, {Asset: "MWK"}})
	require.NoError(t, err)
	assert.Equal(t, []tambala.AssetAccess{{Asset: "MWK", Operations: []string{}}, {Asset: "USDT", Operations: []string{"convert", "payout"}}}, o.Assets)
	o, err = e.Operator().SetV2Access(ctx, o.ID, tambala.V2Enabled)
	require.NoError(t, err)
	assert.Equal(t, tambala.V2Enabled, o.V2Access)
	_, err = e.Operator().SetV2Access(ctx, o.ID, "on")
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	got, _ := e.Operator().Organization(ctx, o.ID)
	assert.Equal(t, tambala.V2Enabled, got.V2Access, "a refused update changes nothing")

	o, err = e.Operator().SetBalanceFloor(ctx, o.ID, mustParse(money.MWK, "10"))
	require.NoError(t, err)
	assert.Equal(t, "10.00", o.BalanceFloorMWK.String())
	o, err = e.Operator().SetBalanceFloor(ctx, o.ID, money.Amount{})
	require.NoError(t, err)
	assert.False(t, o.BalanceFloorMWK.IsSet())

	_, err = e.Operator().SetOrganizationStatus(ctx, o.ID, "closed")
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	_, err = e.Operator().SetOrganizationStatus(ctx, "nope", tambala.OrgSuspended)
	assert.Equal(t, errcode.NotFound, errcode.Of(err))
}

func TestOrganizations_Allowlist(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	o, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "A"})
	require.NoError(t, err)
	o, err = e.Operator().SetAllowlist(ctx, o.ID, mustAddrs(t, "203.0.113.7", " 2001:DB8::1 ", "::ffff:203.0.113.7", "198.51.100.1"))
	require.NoError(t, err)
	assert.Equal(t, mustAddrs(t, "198.51.100.1", "2001:db8::1", "203.0.113.7"), o.Allowlist, "normalised, unmapped, sorted, deduplicated")
	assert.True(t, o.Allows(netip.MustParseAddr("::ffff:198.51.100.1")))
	assert.False(t, o.Allows(netip.MustParseAddr("198.51.100.2")))
	for _, bad := range []string{"10.0.0.0/8", "2001:db8::/32", "fe80::1%eth0", "host", "", "1.2.3.4:5"} {
		_, err := orgs.ParseAllowlist([]string{bad})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), bad)
	}
	got, _ := e.Operator().Organization(ctx, o.ID)
	assert.Len(t, got.Allowlist, 3)
	o, err = e.Operator().SetAllowlist(ctx, o.ID, nil)
	require.NoError(t, err)
	assert.Empty(t, o.Allowlist)
	assert.True(t, o.Allows(netip.Addr{}), "an empty list allows everyone")
}

func TestOrganizations_Fund(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	p, _ := orgWithKey(t, e, "A", 0)
	id := p.Org.ID
	hundred := money.FromInt(money.MWK, 100)
	require.NoError(t, e.Operator().Fund(ctx, id, hundred, "r1"))
	require.NoError(t, e.Operator().Fund(ctx, id, hundred, "r1"), "the same funding again credits once")
	assert.Equal(t, errcode.Conflict, errcode.Of(e.Operator().Fund(ctx, id, money.FromInt(money.MWK, 5), "r1")))
	require.NoError(t, e.Operator().Fund(ctx, id, hundred, "r2"))
	b, err := e.Client(p).V1().Balance(ctx)
	require.NoError(t, err)
	assert.Equal(t, "200.00", b.Available.String())

	assert.Equal(t, errcode.ValidationError, errcode.Of(e.Operator().Fund(ctx, id, money.Zero(money.MWK), "z")))
	assert.Equal(t, errcode.ValidationError, errcode.Of(e.Operator().Fund(ctx, id, hundred, "")))
	assert.Equal(t, errcode.CorridorNotEnabled, errcode.Of(e.Operator().Fund(ctx, id, money.FromInt(money.USDT, 1), "u")))
	assert.Equal(t, errcode.NotFound, errcode.Of(e.Operator().Fund(ctx, "nope", hundred, "n")))

	// The /v2 reads are refused until the organization is onboarded.
	_, err = e.Client(p).Balance(ctx, "USDT")
	assert.Equal(t, errcode.OnboardingIncomplete, errcode.Of(err))
	_, err = e.Operator().SetV2Access(ctx, id, tambala.V2Enabled)
	require.NoError(t, err)
	_, err = e.Client(p).Balance(ctx, "USDT")
	assert.Equal(t, errcode.CorridorNotEnabled, errcode.Of(err))
	bs, err := e.Client(p).Balances(ctx)
	require.NoError(t, err)
	require.Len(t, bs, 1)
	assets, err := e.Client(p).EnabledAssets(ctx)
	require.NoError(t, err)
	assert.Equal(t, []tambala.EnabledAsset{{Asset: "MWK", Decimals: 2, Operations: []string{"collection", "payout"}}}, assets)
}

// mustAddrs reads an allowlist written as text, as the admin binding does
// (orgs.ParseAllowlist).
func mustAddrs(t testing.TB, entries ...string) []netip.Addr {
	t.Helper()
	addrs, err := orgs.ParseAllowlist(entries)
	require.NoError(t, err)
	return addrs
}
