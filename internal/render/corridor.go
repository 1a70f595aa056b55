package render

import (
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
)

type corridor struct {
	Asset       string       `json:"asset"`
	RateOffRamp *money.Rate  `json:"rate_off_ramp"`
	RateOnRamp  *money.Rate  `json:"rate_on_ramp"`
	Min         money.Amount `json:"min"`
	Open        bool         `json:"open"`
}

type adminCorridor struct {
	Asset       string        `json:"asset"`
	RateOffRamp *money.Rate   `json:"rate_off_ramp"`
	RateOnRamp  *money.Rate   `json:"rate_on_ramp"`
	Min         money.Amount  `json:"min"`
	Max         *money.Amount `json:"max"`
	Open        bool          `json:"open"`
}

// Corridors is the JSON of an organization's corridors
// (Client.Corridors):
// {"corridors":[{"asset","rate_off_ramp","rate_on_ramp","min","open"}]},
// sorted by code, rates trimmed strings or null, min at the asset's
// decimals; max is never rendered. Pass the organization's visible
// corridors (quotes.Visible).
func Corridors(visible []quotes.Corridor) []byte {
	cs := quotes.SortedByCode(visible)
	out := struct {
		Corridors []corridor `json:"corridors"`
	}{Corridors: make([]corridor, 0, len(cs))}
	for _, c := range cs {
		out.Corridors = append(out.Corridors, corridor{
			Asset: string(c.Asset.Code), RateOffRamp: optionalRate(c.RateOffRamp), RateOnRamp: optionalRate(c.RateOnRamp), Min: c.Min, Open: c.Open,
		})
	}
	return mustMarshal(out)
}

// AdminCorridors is the operator's view (Desk.Corridors): the
// organization's fields plus max (null when unset), sorted by code.
func AdminCorridors(all []quotes.Corridor) []byte {
	cs := quotes.SortedByCode(all)
	out := struct {
		Corridors []adminCorridor `json:"corridors"`
	}{Corridors: make([]adminCorridor, 0, len(cs))}
	for _, c := range cs {
		out.Corridors = append(out.Corridors, adminCorridor{
			Asset: string(c.Asset.Code), RateOffRamp: optionalRate(c.RateOffRamp), RateOnRamp: optionalRate(c.RateOnRamp), Min: c.Min,
			Max: optionalAmount(c.Max), Open: c.Open,
		})
	}
	return mustMarshal(out)
}

// optionalRate renders the zero Rate (none) as null.
func optionalRate(r money.Rate) *money.Rate {
	if r.IsZero() {
		return nil
	}
	return &r
}

// optionalAmount renders the zero Amount (none) as null.
func optionalAmount(a money.Amount) *money.Amount {
	if !a.IsSet() {
		return nil
	}
	return &a
}
