package quotes

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Corridor is the desk's offer for one corridor currency: a
// rate per direction, a minimum per order and whether it is open. Rates
// have no time-to-live: they hold until the operator replaces them. One
// rate per direction serves every stablecoin at par.
type Corridor struct {
	// Asset is the corridor currency; it must be configured as Fiat.
	Asset money.Asset
	// RateOffRamp prices to-bank orders (S → C), RateOnRamp from-bank
	// orders (C → S); each is corridor currency per one stablecoin. The
	// zero Rate closes that direction.
	RateOffRamp, RateOnRamp money.Rate
	// Min is the smallest order, in Asset, compared with the quote's
	// corridor-currency side.
	Min money.Amount
	// Max is the largest order, in Asset; the zero Amount for none. Never
	// rendered to organizations.
	Max money.Amount
	// Open false closes both directions.
	Open bool
}

// Validate checks a corridor the operator sets: Asset a
// well-formed code configured as Fiat in classes; each rate nil or
// positive with at most money.MaxRateDecimals decimals (and at most
// money.MaxIntegerDigits integer digits); Min an amount of Asset, at its
// decimals, not negative; Max, if set, an amount of Asset above zero and
// at least Min. Every failure is validation_error.
func (c Corridor) Validate(classes Classes) error {
	code := c.Asset.Code
	if _, err := money.NewAsset(code, int(c.Asset.Decimals)); err != nil {
		return errcode.Newf(errcode.ValidationError, "asset %s is not a valid asset.", quoteCode(code))
	}
	if cl, _ := classes.Lookup(code); cl != Fiat {
		return errcode.Newf(errcode.ValidationError, "%s is not configured as a fiat asset; only a fiat asset has a corridor.", code)
	}
	for _, r := range []struct {
		field string
		rate  money.Rate
	}{{"rate_off_ramp", c.RateOffRamp}, {"rate_on_ramp", c.RateOnRamp}} {
		if r.rate.IsZero() {
			continue
		}
		if err := checkRate(r.field, r.rate); err != nil {
			return err
		}
	}
	if c.Min.Asset() != c.Asset {
		return errcode.Newf(errcode.ValidationError, "min must be an amount of %s at %d decimals.", code, c.Asset.Decimals)
	}
	if c.Min.Sign() < 0 {
		return errcode.Newf(errcode.ValidationError, "min must not be negative.")
	}
	if c.Max.IsSet() {
		switch {
		case c.Max.Asset() != c.Asset:
			return errcode.Newf(errcode.ValidationError, "max must be an amount of %s at %d decimals.", code, c.Asset.Decimals)
		case c.Max.Sign() <= 0:
			return errcode.Newf(errcode.ValidationError, "max must be greater than zero.")
		case c.Max.Cmp(c.Min) < 0:
			return errcode.Newf(errcode.ValidationError, "max must be at least min.")
		}
	}
	return nil
}

// checkRate accepts exactly the rates money.ParseRate accepts: positive,
// at most MaxRateDecimals decimals and MaxIntegerDigits integer digits.
func checkRate(field string, r money.Rate) error {
	if r.IsZero() || r.Decimal().Sign() <= 0 {
		return errcode.Newf(errcode.ValidationError, "%s must be a positive decimal.", field)
	}
	if _, err := money.ParseRate(r.String()); err != nil {
		return fieldErr(field, err)
	}
	return nil
}

// Rate returns the corridor's rate for dir: rate_unavailable (no
// Retry-After) when the corridor is closed or that direction's rate is
// null. It is also the default conversion pricer's rate: a
// closed corridor's rate is stale.
func (c Corridor) Rate(dir Direction) (money.Rate, error) {
	if !c.Open {
		return money.Rate{}, errcode.Newf(errcode.RateUnavailable, "The %s corridor is closed.", c.Asset.Code)
	}
	r, name := c.RateOffRamp, "off-ramp"
	if dir == FromBank {
		r, name = c.RateOnRamp, "on-ramp"
	} else if dir != ToBank {
		return money.Rate{}, fmt.Errorf("quotes: unknown direction %q", dir)
	}
	if r.IsZero() {
		return money.Rate{}, errcode.Newf(errcode.RateUnavailable, "No %s %s rate is available.", c.Asset.Code, name)
	}
	return r, nil
}

// Limits returns the corridor's minimum and maximum, for the quote's
// corridor-currency side.
func (c Corridor) Limits() Limits {
	return Limits{Min: c.Min, Max: c.Max}
}

// FindCorridor returns the corridor of the fiat asset code among
// corridors; a fiat asset without one is unsupported_pair (part of
// step 4, the pair).
func FindCorridor(fiat money.AssetCode, corridors []Corridor) (Corridor, error) {
	for _, c := range corridors {
		if c.Asset.Code == fiat {
			return c, nil
		}
	}
	return Corridor{}, errcode.Newf(errcode.UnsupportedPair, "%s has no corridor: a pair must be one corridor currency and one stablecoin.", showCode(fiat))
}

// Visible returns the corridors an organization sees: those whose
// currency enabled reports in its asset list, sorted by code.
func Visible(all []Corridor, enabled func(code money.AssetCode) bool) []Corridor {
	out := make([]Corridor, 0, len(all))
	for _, c := range all {
		if enabled(c.Asset.Code) {
			out = append(out, c)
		}
	}
	sortByCode(out)
	return out
}

func sortByCode(cs []Corridor) {
	slices.SortStableFunc(cs, func(a, b Corridor) int { return cmp.Compare(a.Asset.Code, b.Asset.Code) })
}

// SortedByCode returns a copy of cs sorted by asset code, the order in
// which every list of corridors is shown (Visible's).
func SortedByCode(cs []Corridor) []Corridor {
	out := slices.Clone(cs)
	sortByCode(out)
	return out
}

// DeskClosed reports whether the desk is closed for an organization whose
// visible corridors are visible: every one has Open false, or there
// are none. Desk orders and their quotes (Client.CreateOrder,
// Client.QuoteOrder) are then service_maintenance.
func DeskClosed(visible []Corridor) bool {
	for _, c := range visible {
		if c.Open {
			return false
		}
	}
	return true
}

// errDeskClosed is the service_maintenance error of a closed desk.
func errDeskClosed() error {
	return errcode.Newf(errcode.ServiceMaintenance, "The desk is closed: every corridor is closed. Retry later.")
}

// CheckDeskOpen is DeskClosed as the error order creation answers (after
// enablement, before client_ref's uniqueness): service_maintenance, or
// nil.
func CheckDeskOpen(visible []Corridor) error {
	if DeskClosed(visible) {
		return errDeskClosed()
	}
	return nil
}

func missing(field string) error {
	return errcode.Newf(errcode.ValidationError, "%s is required.", field)
}
