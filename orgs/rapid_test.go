package orgs_test

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orgs"
)

// drawAssets draws an asset list: configured and unconfigured assets,
// sometimes repeated, with known and unknown operations.
func drawAssets(t *rapid.T) []orgs.AssetAccess {
	if rapid.IntRange(0, 9).Draw(t, "nil assets") == 0 {
		return nil
	}
	codes := rapid.SliceOfN(rapid.SampledFrom([]string{"MWK", "USDT", "MWK", "USDT", "ZMW"}), 0, 3).Draw(t, "codes")
	out := make([]orgs.AssetAccess, len(codes))
	for i, c := range codes {
		ops := rapid.SliceOfN(rapid.SampledFrom([]string{orgs.OpPayout, orgs.OpConvert, orgs.OpCollection, orgs.OpPayout, "mint"}), 0, 5).Draw(t, "ops")
		if len(ops) == 0 && rapid.Bool().Draw(t, "nil ops") {
			ops = nil
		}
		out[i] = orgs.AssetAccess{Asset: money.AssetCode(c), Operations: ops}
	}
	return out
}

// drawAddr draws an IPv4 address, IPv4-mapped IPv6 or IPv6, from a small
// pool so that repeats happen.
func drawAddr(t *rapid.T) netip.Addr {
	b := byte(rapid.IntRange(0, 12).Draw(t, "host"))
	v4 := netip.AddrFrom4([4]byte{192, 0, 2, b})
	switch rapid.IntRange(0, 3).Draw(t, "family") {
	case 0:
		return netip.AddrFrom16(v4.As16()) // ::ffff:192.0.2.b
	case 1:
		return netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 15: b})
	}
	return v4
}

// TestValidateProperties: whatever asset list an organization is made
// with, New either refuses it with the code the first bad entry calls for
// or makes an organization whose lists are in their one order (assets by
// code, each once; operations sorted, known, without repeats, never nil);
// and validating the result again changes nothing.
func TestValidateProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawAssets(t)
		kept := orgs.Params{Name: "x", Assets: in}
		inCopy := slices.Clone(in)
		o, err := orgs.New("o", kept, assets, t0)

		var want errcode.Code
		seen := map[string]bool{}
		for _, a := range in {
			if _, ok := assets.Lookup(a.Asset); !ok {
				want = errcode.UnsupportedAsset
				break
			}
			if seen[string(a.Asset)] || slices.Contains(a.Operations, "mint") {
				want = errcode.ValidationError
				break
			}
			seen[string(a.Asset)] = true
		}
		require.Equal(t, inCopy, in, "the caller's list is left as it was")
		if want != "" {
			require.Equal(t, want, errcode.Of(err), "%v", err)
			return
		}
		require.NoError(t, err)
		if in == nil {
			require.Equal(t, []orgs.AssetAccess{{Asset: "MWK", Operations: []string{"collection", "payout"}}}, o.Assets)
		} else {
			require.Len(t, o.Assets, len(in))
		}
		require.True(t, slices.IsSortedFunc(o.Assets, func(a, b orgs.AssetAccess) int { return strings.Compare(string(a.Asset), string(b.Asset)) }))
		for i, a := range o.Assets {
			require.NotNil(t, a.Operations)
			require.True(t, slices.IsSorted(a.Operations))
			require.Equal(t, len(a.Operations), len(slices.Compact(slices.Clone(a.Operations))), "no repeats")
			if i > 0 {
				require.NotEqual(t, o.Assets[i-1].Asset, a.Asset)
			}
			for _, op := range []string{orgs.OpPayout, orgs.OpConvert, orgs.OpCollection} {
				var asked bool
				for _, x := range in {
					asked = asked || x.Asset == a.Asset && slices.Contains(x.Operations, op)
				}
				if in != nil {
					require.Equal(t, asked, o.Enabled(a.Asset, op), "%s %s", a.Asset, op)
				}
			}
		}
		again := o.Clone()
		require.NoError(t, orgs.Validate(&again, assets))
		require.Equal(t, o, again, "validating twice is validating once")
	})
}

// TestAllowlistProperties: whatever addresses are set, the allowlist holds
// each one once, unmapped, sorted by text; exactly those addresses pass
// (mapped or not), and setting the result again changes nothing.
func TestAllowlistProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := rapid.SliceOfN(rapid.Custom(drawAddr), 0, 8).Draw(t, "addrs")
		inCopy := slices.Clone(in)
		o, err := orgs.Apply(base(), orgs.SetAllowlist{Addrs: in}, assets)
		require.NoError(t, err)
		require.Equal(t, inCopy, in)
		require.NotNil(t, o.Allowlist)
		require.True(t, slices.IsSortedFunc(o.Allowlist, func(a, b netip.Addr) int { return strings.Compare(a.String(), b.String()) }))
		want := map[netip.Addr]bool{}
		for _, a := range in {
			want[a.Unmap()] = true
		}
		require.Len(t, o.Allowlist, len(want), "each address once")
		for _, a := range o.Allowlist {
			require.True(t, want[a])
			require.False(t, a.Is4In6())
		}
		probe := drawAddr(t)
		require.Equal(t, len(in) == 0 || want[probe.Unmap()], o.Allows(probe), "%s", probe)

		again, err := orgs.Apply(o, orgs.SetAllowlist{Addrs: o.Allowlist}, assets)
		require.NoError(t, err)
		require.Equal(t, o, again)

		texts := make([]string, len(in))
		for i, a := range in {
			texts[i] = " " + a.String() + " "
		}
		parsed, err := orgs.ParseAllowlist(texts)
		require.NoError(t, err)
		fromText, err := orgs.Apply(base(), orgs.SetAllowlist{Addrs: parsed}, assets)
		require.NoError(t, err)
		require.Equal(t, o.Allowlist, fromText.Allowlist, "text reads as the addresses it writes")
	})
}

// TestLimitsProperties: the limits in force take each field the
// organization set and the default's otherwise, and Apply refuses exactly
// the limits Check refuses, before reading anything.
func TestLimitsProperties(t *testing.T) {
	amount := rapid.Custom(func(t *rapid.T) money.Amount {
		switch rapid.IntRange(0, 4).Draw(t, "kind") {
		case 0:
			return money.Amount{}
		case 1:
			return money.FromUnits(money.USDT, rapid.Int64Range(0, 1e9).Draw(t, "usdt"))
		case 2:
			return money.FromUnits(money.MWK, -rapid.Int64Range(1, 1e9).Draw(t, "negative"))
		}
		return money.FromUnits(money.MWK, rapid.Int64Range(0, 1e15).Draw(t, "mwk"))
	})
	rapid.Check(t, func(t *rapid.T) {
		l := orgs.PayoutLimits{MaxPerPayoutMWK: amount.Draw(t, "max"), DailyVolumeMWK: amount.Draw(t, "daily"),
			HourlyCount: rapid.IntRange(-2, 5000).Draw(t, "hourly")}
		ok := func(a money.Amount) bool { return !a.IsSet() || a.Asset() == money.MWK && a.Sign() >= 0 }
		valid := ok(l.MaxPerPayoutMWK) && ok(l.DailyVolumeMWK) && l.HourlyCount >= 0
		o, err := orgs.Apply(base(), orgs.SetPayoutLimits{Limits: l}, assets)
		require.Equal(t, valid, l.Check() == nil)
		if !valid {
			require.Equal(t, errcode.ValidationError, errcode.Of(err))
			return
		}
		require.NoError(t, err)
		got, d := o.PayoutLimitsInForce(), orgs.DefaultPayoutLimits()
		pick := func(set, def money.Amount) money.Amount {
			if set.IsSet() {
				return set
			}
			return def
		}
		require.Equal(t, pick(l.MaxPerPayoutMWK, d.MaxPerPayoutMWK), got.MaxPerPayoutMWK)
		require.Equal(t, pick(l.DailyVolumeMWK, d.DailyVolumeMWK), got.DailyVolumeMWK)
		if l.HourlyCount > 0 {
			require.Equal(t, l.HourlyCount, got.HourlyCount)
		} else {
			require.Equal(t, d.HourlyCount, got.HourlyCount)
		}
	})
}
