package codec

import (
	"fmt"

	"github.com/tambalapay/tambala/internal/binrec"
	"github.com/tambalapay/tambala/quotes"
)

const (
	flagOpen = 1 << iota
	flagOffRamp
	flagOnRamp
	flagMax
)

// EncodeCorridor is the stored form of a corridor (the layout is in
// quote.go); DecodeCorridor reads it back exactly.
func EncodeCorridor(c quotes.Corridor) []byte {
	b := make([]byte, 0, 64)
	b = append(b, storedV1)
	b = appendString(b, string(c.Asset.Code))
	b = append(b, byte(c.Asset.Decimals))
	var flags byte
	if c.Open {
		flags |= flagOpen
	}
	if !c.RateOffRamp.IsZero() {
		flags |= flagOffRamp
	}
	if !c.RateOnRamp.IsZero() {
		flags |= flagOnRamp
	}
	if c.Max.IsSet() {
		flags |= flagMax
	}
	b = append(b, flags)
	if !c.RateOffRamp.IsZero() {
		b = appendRate(b, c.RateOffRamp)
	}
	if !c.RateOnRamp.IsZero() {
		b = appendRate(b, c.RateOnRamp)
	}
	b = appendUnits(b, c.Min)
	if c.Max.IsSet() {
		b = appendUnits(b, c.Max)
	}
	return b
}

// DecodeCorridor reads a corridor written by EncodeCorridor.
func DecodeCorridor(b []byte) (quotes.Corridor, error) {
	r := reader{binrec.Reader{B: b}}
	if v := r.Byte(); r.Err == nil && v != storedV1 {
		return quotes.Corridor{}, fmt.Errorf("quotes: stored corridor has version %d", v)
	}
	var c quotes.Corridor
	c.Asset = r.asset()
	flags := r.Byte()
	if flags&^(flagOpen|flagOffRamp|flagOnRamp|flagMax) != 0 {
		r.FailWith(fmt.Errorf("flags %#x", flags))
	}
	c.Open = flags&flagOpen != 0
	if flags&flagOffRamp != 0 {
		c.RateOffRamp = r.rate()
	}
	if flags&flagOnRamp != 0 {
		c.RateOnRamp = r.rate()
	}
	c.Min = r.units(c.Asset)
	if flags&flagMax != 0 {
		c.Max = r.units(c.Asset)
	}
	if err := r.done(); err != nil {
		return quotes.Corridor{}, fmt.Errorf("quotes: bad stored corridor: %w", err)
	}
	return c, nil
}
