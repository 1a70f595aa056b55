package httpapi

import (
	"encoding/json"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/wire"
)

// decodeCorridorUpdate reads the JSON of an operator's corridor update
// for asset (for Desk.SetCorridor), with the strict decoding of every
// request body: {"rate_off_ramp": string|null, "rate_on_ramp": string|null,
// "min": string, "open": bool, "max"?: string|null}. Both rates must be
// present (null closes the direction); amounts and rates are JSON strings.
// It checks the shape (validation_error); quotes.Corridor.Validate checks
// the values against the configuration.
func decodeCorridorUpdate(asset money.Asset, body []byte) (quotes.Corridor, error) {
	var w wire.CorridorUpdate
	if err := decodeJSON(body, &w); err != nil {
		return quotes.Corridor{}, err
	}
	c := quotes.Corridor{Asset: asset}
	var err error
	if c.RateOffRamp, err = decodeRate("rate_off_ramp", w.RateOffRamp); err != nil {
		return quotes.Corridor{}, err
	}
	if c.RateOnRamp, err = decodeRate("rate_on_ramp", w.RateOnRamp); err != nil {
		return quotes.Corridor{}, err
	}
	s, present, err := jsonString("min", w.Min)
	if err != nil {
		return quotes.Corridor{}, err
	}
	if !present {
		return quotes.Corridor{}, required("min")
	}
	if c.Min, err = money.Parse(asset, s); err != nil {
		return quotes.Corridor{}, fieldError("min", err)
	}
	if s, present, err = jsonString("max", w.Max); err != nil {
		return quotes.Corridor{}, err
	} else if present {
		if c.Max, err = money.Parse(asset, s); err != nil {
			return quotes.Corridor{}, fieldError("max", err)
		}
	}
	if w.Open == nil {
		return quotes.Corridor{}, required("open")
	}
	c.Open = *w.Open
	return c, nil
}

// decodeRate reads a corridor's rate: required, a decimal string
// (money.ParseRate) or null for none (the zero Rate).
func decodeRate(field string, raw json.RawMessage) (money.Rate, error) {
	if len(raw) == 0 {
		return money.Rate{}, errcode.Newf(errcode.ValidationError, "%s is required: a decimal string, or null to close the direction.", field)
	}
	s, present, err := jsonString(field, raw)
	if err != nil || !present {
		return money.Rate{}, err
	}
	r, err := money.ParseRate(s)
	if err != nil {
		return money.Rate{}, fieldError(field, err)
	}
	return r, nil
}
