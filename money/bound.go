package money

import "github.com/tambalapay/tambala/errcode"

// MaxWholeUnits is the largest amount, in whole units of its asset, that
// any operation accepts (Max). Every amount that enters the engine is at
// most this, so a sum of them stays far below what the ledger holds; see
// docs/decisions.md, "Bounded amounts".
const MaxWholeUnits = 1_000_000_000_000

// Max returns the largest amount of asset that any operation accepts:
// MaxWholeUnits whole units.
func Max(asset Asset) Amount { return FromInt(asset, MaxWholeUnits) }

// AboveMax reports whether a is more than Max(a.Asset()).
func (a Amount) AboveMax() bool {
	if a.d == nil {
		if p, ok := pow10Of(int(a.asset.Decimals)); ok {
			if m, ok := mul64(MaxWholeUnits, p); ok {
				return a.units > m
			}
		}
	}
	return a.cmp(Max(a.asset)) > 0
}

// Exceeds reports whether |a| is at least 10^wholeDigits whole units.
func (a Amount) Exceeds(wholeDigits int) bool {
	if a.d == nil {
		// |units| < 2^63 < 10^19 minor units.
		if wholeDigits+int(a.asset.Decimals) >= 19 {
			return false
		}
		p, _ := pow10Of(wholeDigits + int(a.asset.Decimals))
		return a.units >= p || a.units <= -p
	}
	if a.d.IsZero() {
		return false
	}
	// A finite non-zero decimal's magnitude is below 10^(digits+exponent).
	return a.d.NumDigits()+int64(a.d.Exponent) > int64(wholeDigits)
}

// CheckMax is the one rule for the bound: an amount above Max is
// limit_exceeded, naming field and the maximum.
func CheckMax(field string, a Amount) error {
	if !a.AboveMax() {
		return nil
	}
	max := Max(a.asset)
	return errcode.Newf(errcode.LimitExceeded, "The amount is above the maximum: %s must be at most %s %s.", field, max, a.asset.Code)
}
