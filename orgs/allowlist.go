package orgs

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/tambalapay/tambala/errcode"
)

// ParseAllowlist reads an allowlist written as text, one address per
// entry: each entry is trimmed and must be an exact IPv4 or IPv6 address
// without a zone. A range ("10.0.0.0/8") or anything else is
// validation_error naming the entry. The addresses come back as written
// (SetAllowlist puts them in their one order).
func ParseAllowlist(entries []string) ([]netip.Addr, error) {
	out := make([]netip.Addr, 0, len(entries))
	for _, s := range entries {
		if strings.Contains(s, "/") {
			return nil, errcode.Newf(errcode.ValidationError, "allowlist entry %q is a range; only exact addresses are allowed", s)
		}
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil || a.Zone() != "" {
			return nil, errcode.Newf(errcode.ValidationError, "allowlist entry %q is not an IPv4 or IPv6 address", s)
		}
		out = append(out, a)
	}
	return out, nil
}

// checkAddrs checks that every address of an allowlist is a valid address
// without a zone (validation_error).
func checkAddrs(addrs []netip.Addr) error {
	for _, a := range addrs {
		if !a.IsValid() || a.Zone() != "" {
			return errcode.Newf(errcode.ValidationError, "allowlist entry %q is not an IPv4 or IPv6 address", a.String())
		}
	}
	return nil
}

// canonicalAllowlist returns addrs unmapped, sorted by their text and
// without repeats, in a new slice (never nil).
func canonicalAllowlist(addrs []netip.Addr) []netip.Addr {
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		out = append(out, a.Unmap())
	}
	slices.SortFunc(out, func(a, b netip.Addr) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(out)
}
