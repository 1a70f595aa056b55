package money

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// Rounding names the rounding rules the reference uses. There is no default:
// every rounding call says which rule applies.
type Rounding int

const (
	// RoundDown truncates toward zero (a derived corridor-currency amount).
	RoundDown Rounding = iota + 1
	// RoundUp rounds away from zero (a derived stablecoin amount).
	RoundUp
	// RoundHalfUp rounds to nearest, ties away from zero (each fee line).
	RoundHalfUp
)

func (r Rounding) rounder() (apd.Rounder, error) {
	switch r {
	case RoundDown:
		return apd.RoundDown, nil
	case RoundUp:
		return apd.RoundUp, nil
	case RoundHalfUp:
		return apd.RoundHalfUp, nil
	}
	return "", fmt.Errorf("money: unknown rounding %d", r)
}

// wideCtx computes exact products and long quotients before the one
// rounding step. Its precision covers any product of two wire values.
var wideCtx = apd.Context{
	Precision:   2*(MaxIntegerDigits+MaxDecimals) + 10,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundDown,
	Traps:       apd.DefaultTraps,
}

// Round rounds d to asset's decimals with the given rule.
func Round(asset Asset, d *apd.Decimal, rule Rounding) (Amount, error) {
	return round(asset, d, false, rule)
}

// round rounds d to asset's decimals. truncated says d was itself truncated
// toward zero from a longer exact value (an inexact product or quotient),
// which RoundUp must honour even when d's own digits end exactly at the
// asset's decimals.
//
// RoundUp is done here rather than by apd: Quantize drops every digit of a
// value below a tenth of a unit (0.0001 to 2 decimals) and returns zero
// whatever the rounding mode, so RoundUp truncates and then steps one unit
// away from zero whenever a digit was dropped. RoundDown and RoundHalfUp are
// right on that path (such a value is below half a unit), and right on a
// truncated d (truncation never crosses a multiple of the unit or a tie).
func round(asset Asset, d *apd.Decimal, truncated bool, rule Rounding) (Amount, error) {
	rd, err := rule.rounder()
	if err != nil {
		return Amount{}, err
	}
	ctx := wideCtx
	ctx.Rounding = rd
	if rule == RoundUp {
		ctx.Rounding = apd.RoundDown
	}
	// out stays on the stack: the result copies it only when it does not
	// fit the integer form (fromQuantizedCopy); a fee line always fits.
	var outd apd.Decimal
	out := &outd
	cond, err := ctx.Quantize(out, d, -asset.Decimals)
	if err != nil {
		return Amount{}, err
	}
	if rule == RoundUp && (truncated || cond.Inexact()) && d.Sign() != 0 {
		// One digit wider than wideCtx, so the step is exact on whatever
		// Quantize returned (a product of wire values has up to 78 digits
		// at 18 decimals, beyond exactCtx).
		step := wideCtx
		step.Precision++
		step.Traps |= apd.Inexact | apd.Rounded
		ulp := apd.New(int64(d.Sign()), -asset.Decimals)
		if _, err := step.Add(out, out, ulp); err != nil {
			return Amount{}, err
		}
	}
	if out.IsZero() {
		out.Negative = false // a negative value rounded to zero is zero, never "-0.00"
	}
	return fromQuantizedCopy(asset, out), nil
}

// Mul returns a × r rounded to asset's decimals with rule: a stablecoin
// amount times a rate gives a corridor-currency amount; an amount times a fee
// percentage gives a fee line.
func Mul(a Amount, r Rate, asset Asset, rule Rounding) (Amount, error) {
	if r.d == nil {
		return Amount{}, fmt.Errorf("money: zero rate")
	}
	var ad apd.Decimal // a as a decimal, on the stack: Mul keeps neither
	p := new(apd.Decimal)
	cond, err := wideCtx.Mul(p, a.decIn(&ad), r.d)
	if err != nil {
		return Amount{}, err
	}
	// Exact for wire-bounded inputs; a longer rate (RateFromDecimal) is
	// truncated here, which RoundUp must know.
	return round(asset, p, cond.Inexact(), rule)
}

// Quo returns a ÷ r rounded to asset's decimals with rule: a
// corridor-currency amount divided by a rate gives a stablecoin amount.
func Quo(a Amount, r Rate, asset Asset, rule Rounding) (Amount, error) {
	if r.d == nil {
		return Amount{}, fmt.Errorf("money: zero rate")
	}
	q := new(apd.Decimal)
	cond, err := wideCtx.Quo(q, a.dec(), r.d)
	if err != nil {
		return Amount{}, err
	}
	return round(asset, q, cond.Inexact(), rule)
}
