package orgs_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
)

// An organization made with MWK payouts and USDT conversions, then given
// an allowlist written as text and a lower per-payout maximum. A change
// that would leave it invalid is refused and changes nothing.
func Example() {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	o, err := orgs.New("org-1", orgs.Params{
		Name:     " Acme Payments ",
		V2Access: orgs.V2Enabled,
		Assets: []orgs.AssetAccess{
			{Asset: "USDT", Operations: []string{orgs.OpConvert}},
			{Asset: "MWK", Operations: []string{orgs.OpPayout, orgs.OpCollection, orgs.OpPayout}},
		},
		BalanceFloorMWK: money.FromInt(money.MWK, 1000),
	}, money.DefaultAssets(), now)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q %s %s floor %s\n", o.Name, o.Status, o.V2Access, o.BalanceFloorMWK)
	fmt.Println(o.Assets)
	fmt.Println(o.Enabled("MWK", orgs.OpPayout), o.Enabled("USDT", orgs.OpPayout))

	addrs, err := orgs.ParseAllowlist([]string{"203.0.113.7", " ::ffff:198.51.100.1 "})
	if err != nil {
		panic(err)
	}
	o, err = orgs.Apply(o, orgs.SetAllowlist{Addrs: addrs}, money.DefaultAssets())
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Allowlist, o.Allows(netip.MustParseAddr("198.51.100.1")), o.Allows(netip.MustParseAddr("192.0.2.1")))

	o, err = orgs.Apply(o, orgs.SetPayoutLimits{Limits: orgs.PayoutLimits{MaxPerPayoutMWK: money.FromInt(money.MWK, 20_000)}}, money.DefaultAssets())
	if err != nil {
		panic(err)
	}
	l := o.PayoutLimitsInForce()
	fmt.Println(l.MaxPerPayoutMWK, l.DailyVolumeMWK, l.HourlyCount)

	_, err = orgs.Apply(o, orgs.SetStatus{Status: "closed"}, money.DefaultAssets())
	fmt.Println(errcode.Of(err), errcode.Message(err))
	_, err = orgs.ParseAllowlist([]string{"10.0.0.0/8"})
	fmt.Println(errcode.Of(err), errcode.Message(err))
	// Output:
	// "Acme Payments" active enabled floor 1000.00
	// [{MWK [collection payout]} {USDT [convert]}]
	// true false
	// [198.51.100.1 203.0.113.7] true false
	// 20000.00 50000000.00 1000
	// validation_error status must be active or suspended
	// validation_error allowlist entry "10.0.0.0/8" is a range; only exact addresses are allowed
}
