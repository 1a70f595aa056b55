package quotes

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/strictjson"
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
	// orders (C → S); each is corridor currency per one stablecoin. nil
	// closes that direction.
	RateOffRamp, RateOnRamp *money.Rate
	// Min is the smallest order, in Asset, compared with the quote's
	// corridor-currency side.
	Min money.Amount
	// Max is the largest order, in Asset; nil for none. Never rendered to
	// organizations.
	Max *money.Amount
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
		rate  *money.Rate
	}{{"rate_off_ramp", c.RateOffRamp}, {"rate_on_ramp", c.RateOnRamp}} {
		if r.rate == nil {
			continue
		}
		if err := checkRate(r.field, *r.rate); err != nil {
			return err
		}
	}
	if c.Min.Asset() != c.Asset {
		return errcode.Newf(errcode.ValidationError, "min must be an amount of %s at %d decimals.", code, c.Asset.Decimals)
	}
	if c.Min.Sign() < 0 {
		return errcode.Newf(errcode.ValidationError, "min must not be negative.")
	}
	if c.Max != nil {
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
	if r == nil {
		return money.Rate{}, errcode.Newf(errcode.RateUnavailable, "No %s %s rate is available.", c.Asset.Code, name)
	}
	return *r, nil
}

// Limits returns the corridor's minimum and maximum, for the quote's
// corridor-currency side.
func (c Corridor) Limits() Limits {
	m := c.Min
	return Limits{Min: &m, Max: c.Max}
}

// FindCorridor returns the corridor of the fiat asset code among
// corridors; a fiat asset without one is unsupported_pair (part of
// step 4, the pair).
func FindCorridor(fiat string, corridors []Corridor) (Corridor, error) {
	for _, c := range corridors {
		if c.Asset.Code == fiat {
			return c, nil
		}
	}
	return Corridor{}, errcode.Newf(errcode.UnsupportedPair, "%s has no corridor: a pair must be one corridor currency and one stablecoin.", showCode(fiat))
}

// Visible returns the corridors an organization sees: those whose
// currency enabled reports in its asset list, sorted by code.
func Visible(all []Corridor, enabled func(code string) bool) []Corridor {
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
	slices.SortStableFunc(cs, func(a, b Corridor) int { return strings.Compare(a.Asset.Code, b.Asset.Code) })
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

type renderedCorridor struct {
	Asset       string       `json:"asset"`
	RateOffRamp *money.Rate  `json:"rate_off_ramp"`
	RateOnRamp  *money.Rate  `json:"rate_on_ramp"`
	Min         money.Amount `json:"min"`
	Open        bool         `json:"open"`
}

type renderedAdminCorridor struct {
	Asset       string        `json:"asset"`
	RateOffRamp *money.Rate   `json:"rate_off_ramp"`
	RateOnRamp  *money.Rate   `json:"rate_on_ramp"`
	Min         money.Amount  `json:"min"`
	Max         *money.Amount `json:"max"`
	Open        bool          `json:"open"`
}

// RenderCorridors is the JSON of an organization's corridors
// (Client.Corridors):
// {"corridors":[{"asset","rate_off_ramp","rate_on_ramp","min","open"}]},
// sorted by code, rates trimmed strings or null, min at the asset's
// decimals; max is never rendered. Pass the organization's visible
// corridors (Visible).
func RenderCorridors(visible []Corridor) []byte {
	cs := slices.Clone(visible)
	sortByCode(cs)
	out := struct {
		Corridors []renderedCorridor `json:"corridors"`
	}{Corridors: make([]renderedCorridor, 0, len(cs))}
	for _, c := range cs {
		out.Corridors = append(out.Corridors, renderedCorridor{
			Asset: c.Asset.Code, RateOffRamp: c.RateOffRamp, RateOnRamp: c.RateOnRamp, Min: c.Min, Open: c.Open,
		})
	}
	return mustMarshal(out)
}

// RenderAdminCorridors is the operator's view (Operator.AllCorridors):
// the organization's fields plus max (null when unset), sorted by code.
func RenderAdminCorridors(all []Corridor) []byte {
	cs := slices.Clone(all)
	sortByCode(cs)
	out := struct {
		Corridors []renderedAdminCorridor `json:"corridors"`
	}{Corridors: make([]renderedAdminCorridor, 0, len(cs))}
	for _, c := range cs {
		out.Corridors = append(out.Corridors, renderedAdminCorridor{
			Asset: c.Asset.Code, RateOffRamp: c.RateOffRamp, RateOnRamp: c.RateOnRamp, Min: c.Min, Max: c.Max, Open: c.Open,
		})
	}
	return mustMarshal(out)
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("quotes: rendering cannot fail: " + err.Error())
	}
	return b
}

// DecodeCorridorUpdate reads the JSON of an operator's corridor update for
// asset (for Operator.SetCorridor), with the strict decoding of every
// request body: {"rate_off_ramp": string|null, "rate_on_ramp": string|null,
// "min": string, "open": bool, "max"?: string|null}. Both rates must be
// present (null closes the direction); amounts and rates are JSON strings.
// It checks the shape (validation_error); Validate checks the values
// against the configuration.
func DecodeCorridorUpdate(asset money.Asset, body []byte) (Corridor, error) {
	var w struct {
		RateOffRamp json.RawMessage `json:"rate_off_ramp"`
		RateOnRamp  json.RawMessage `json:"rate_on_ramp"`
		Min         json.RawMessage `json:"min"`
		Max         json.RawMessage `json:"max"`
		Open        *bool           `json:"open"`
	}
	if err := strictjson.Unmarshal(body, &w); err != nil {
		return Corridor{}, err
	}
	c := Corridor{Asset: asset}
	var err error
	if c.RateOffRamp, err = decodeRate("rate_off_ramp", w.RateOffRamp); err != nil {
		return Corridor{}, err
	}
	if c.RateOnRamp, err = decodeRate("rate_on_ramp", w.RateOnRamp); err != nil {
		return Corridor{}, err
	}
	s, present, err := jsonString("min", w.Min)
	if err != nil {
		return Corridor{}, err
	}
	if !present {
		return Corridor{}, missing("min")
	}
	if c.Min, err = money.Parse(asset, s); err != nil {
		return Corridor{}, fieldErr("min", err)
	}
	if s, present, err = jsonString("max", w.Max); err != nil {
		return Corridor{}, err
	} else if present {
		m, err := money.Parse(asset, s)
		if err != nil {
			return Corridor{}, fieldErr("max", err)
		}
		c.Max = &m
	}
	if w.Open == nil {
		return Corridor{}, missing("open")
	}
	c.Open = *w.Open
	return c, nil
}

func decodeRate(field string, raw json.RawMessage) (*money.Rate, error) {
	if len(raw) == 0 {
		return nil, errcode.Newf(errcode.ValidationError, "%s is required: a decimal string, or null to close the direction.", field)
	}
	s, present, err := jsonString(field, raw)
	if err != nil || !present {
		return nil, err
	}
	r, err := money.ParseRate(s)
	if err != nil {
		return nil, fieldErr(field, err)
	}
	return &r, nil
}

// jsonString reads a raw JSON value that must be a string; absent and null
// are not present.
func jsonString(field string, raw json.RawMessage) (s string, present bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	if raw[0] != '"' {
		return "", false, errcode.Newf(errcode.ValidationError, "%s must be a JSON string (send \"100.50\", not 100.50).", field)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, errcode.Newf(errcode.ValidationError, "%s must be a JSON string.", field)
	}
	return s, true, nil
}

func missing(field string) error {
	return errcode.Newf(errcode.ValidationError, "%s is required.", field)
}
