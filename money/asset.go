package money

import (
	"fmt"
	"slices"

	"github.com/tambalapay/tambala/errcode"
)

// MaxDecimals is the most decimals an asset may carry.
const MaxDecimals = 18

// AssetCode is an asset's code: 1 to 12 uppercase letters or digits
// ("MWK", "USDT"). The codes of the default assets are MWK.Code and
// USDT.Code.
type AssetCode string

// Asset is an asset code and the decimals its amounts carry on the wire.
type Asset struct {
	Code     AssetCode
	Decimals int32
}

// The assets every deployment knows by default.
var (
	MWK  = Asset{Code: "MWK", Decimals: 2}
	USDT = Asset{Code: "USDT", Decimals: 6}
)

// NewAsset validates an asset code (1 to 12 uppercase letters or digits,
// never compound) and its decimals (0 to MaxDecimals).
func NewAsset(code AssetCode, decimals int) (Asset, error) {
	if len(code) == 0 || len(code) > 12 {
		return Asset{}, fmt.Errorf("money: asset code %q must be 1 to 12 characters", code)
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return Asset{}, fmt.Errorf("money: asset code %q must be uppercase letters and digits", code)
		}
	}
	if decimals < 0 || decimals > MaxDecimals {
		return Asset{}, fmt.Errorf("money: asset %s: decimals %d out of 0..%d", code, decimals, MaxDecimals)
	}
	return Asset{Code: code, Decimals: int32(decimals)}, nil
}

func (a Asset) String() string { return string(a.Code) }

// Assets is the configured set of assets, by code.
type Assets map[AssetCode]Asset

// DefaultAssets returns MWK and USDT.
func DefaultAssets() Assets { return Assets{MWK.Code: MWK, USDT.Code: USDT} }

// Lookup returns the asset with code.
func (as Assets) Lookup(code AssetCode) (Asset, bool) {
	a, ok := as[code]
	return a, ok
}

// Codes returns the codes in ascending order.
func (as Assets) Codes() []AssetCode {
	out := make([]AssetCode, 0, len(as))
	for c := range as {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// NotConfigured refuses an asset code that is not among the configured
// assets, as a validation error: "X is not a configured asset." shown is
// the code as the caller may show it, already cut to its field's width.
func NotConfigured(shown string) error {
	return errcode.Newf(errcode.ValidationError, "%s is not a configured asset.", shown)
}
