package quotes

import (
	"fmt"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Class is what an asset is to the desk.
type Class string

const (
	// Fiat is a corridor currency (MWK): the bank side of an order.
	Fiat Class = "fiat"
	// Stablecoin is a coin held on the ledger (USDT): the side that decides
	// the direction.
	Stablecoin Class = "stablecoin"
)

// Valid reports whether c is Fiat or Stablecoin.
func (c Class) Valid() bool { return c == Fiat || c == Stablecoin }

// Classes maps an asset code to its class. The engine keeps this table
// beside its asset configuration (money.Asset is unchanged). A class must
// not change once an asset has balances; that is the engine's to
// enforce.
type Classes map[money.AssetCode]Class

// DefaultClasses returns MWK fiat and USDT stablecoin.
func DefaultClasses() Classes {
	return Classes{money.MWK.Code: Fiat, money.USDT.Code: Stablecoin}
}

// Lookup returns the class of code; ok is false for an unknown code or an
// invalid class.
func (cs Classes) Lookup(code money.AssetCode) (Class, bool) {
	c, ok := cs[code]
	return c, ok && c.Valid()
}

// MaxCodeLength is the longest asset code.
const MaxCodeLength = 12

// CheckCode checks the form of an asset code sent by a caller: 1 to 12
// uppercase letters or digits, never compound (^[A-Z0-9]{1,12}$). Anything
// else (usdt, USDT-TRC20, "") is unsupported_asset, and the message
// names the code (truncated). Whether the organization may use the asset
// is the engine's check (corridor_not_enabled).
func CheckCode(code money.AssetCode) error {
	ok := len(code) >= 1 && len(code) <= MaxCodeLength
	for i := 0; ok && i < len(code); i++ {
		c := code[i]
		ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
	}
	if ok {
		return nil
	}
	return errcode.Newf(errcode.UnsupportedAsset,
		"Asset code %s is not supported: an asset code is 1 to 12 uppercase letters or digits, never joined to a network name.",
		quoteCode(code))
}

// quoteCode quotes a caller's code for a message, cut to a bounded length
// (%q escapes control characters and invalid UTF-8).
func quoteCode(code money.AssetCode) string {
	const limit = 24
	if len(code) > limit {
		cut := limit
		// Never split a UTF-8 sequence: back up to the start of a rune.
		for cut > 0 && code[cut]&0xC0 == 0x80 {
			cut--
		}
		return fmt.Sprintf("%q...", code[:cut])
	}
	return fmt.Sprintf("%q", code)
}

// Direction is the way an order or a conversion moves between a
// stablecoin S and a corridor currency C.
type Direction string

const (
	// ToBank is the off-ramp: S → C, priced with rate_off_ramp.
	ToBank Direction = "to_bank"
	// FromBank is the on-ramp: C → S, priced with rate_on_ramp.
	FromBank Direction = "from_bank"
)

// Valid reports whether d is ToBank or FromBank.
func (d Direction) Valid() bool { return d == ToBank || d == FromBank }

// Classify decides a pair by the classes of its codes: one stablecoin and
// one fiat asset, the stablecoin side deciding the direction (S→C is
// ToBank, C→S FromBank). The same asset twice, two fiat assets, two
// stablecoins, or a code without a class is unsupported_pair. A fiat
// asset without a corridor is unsupported_pair too: FindCorridor applies
// that with the corridor table.
func Classify(from, to money.AssetCode, classes Classes) (dir Direction, fiat, stablecoin money.AssetCode, err error) {
	fc, fok := classes.Lookup(from)
	tc, tok := classes.Lookup(to)
	switch {
	case from == to:
		return "", "", "", unsupportedPair(from, to, "the two assets must differ")
	case !fok || !tok:
		return "", "", "", unsupportedPair(from, to, "a pair must be one corridor currency and one stablecoin")
	case fc == Stablecoin && tc == Fiat:
		return ToBank, to, from, nil
	case fc == Fiat && tc == Stablecoin:
		return FromBank, from, to, nil
	case fc == Fiat:
		return "", "", "", unsupportedPair(from, to, "both are corridor currencies; a pair must be one corridor currency and one stablecoin")
	default:
		return "", "", "", unsupportedPair(from, to, "both are stablecoins; a pair must be one corridor currency and one stablecoin")
	}
}

func unsupportedPair(from, to money.AssetCode, why string) error {
	return errcode.Newf(errcode.UnsupportedPair, "%s to %s is not a supported pair: %s.", showCode(from), showCode(to), why)
}

// showCode is a code as messages show it: as is when well-formed, else
// quoted and truncated.
func showCode(code money.AssetCode) string {
	if CheckCode(code) == nil {
		return string(code)
	}
	return quoteCode(code)
}

// Pair is a classified pair of configured assets.
type Pair struct {
	Direction Direction
	From, To  money.Asset
}

// PairOf classifies from and to (Classify) and keeps the assets, with
// their decimals, for pricing.
func PairOf(from, to money.Asset, classes Classes) (Pair, error) {
	dir, _, _, err := Classify(from.Code, to.Code, classes)
	if err != nil {
		return Pair{}, err
	}
	return Pair{Direction: dir, From: from, To: to}, nil
}

// Fiat returns the corridor currency of the pair.
func (p Pair) Fiat() money.Asset {
	if p.Direction == ToBank {
		return p.To
	}
	return p.From
}

// Stablecoin returns the stablecoin of the pair.
func (p Pair) Stablecoin() money.Asset {
	if p.Direction == ToBank {
		return p.From
	}
	return p.To
}
