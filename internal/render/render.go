// Package render holds the wire renderings of the engine's resources: the
// one JSON of each, which the engine's events carry as data and the HTTP
// binding answers reads with, so that an event's data and the read it
// mirrors are the same bytes. The domain packages (payouts, orders,
// quotes, conversions) and the engine's own types hold no JSON; they
// render here, one file a resource: Payout (and the institutions), Order,
// Quote, Corridors and AdminCorridors, Conversion, BalanceV1, Collection,
// CollectionV2, Trade, PayoutV2, Organization and the rest. It is below
// the engine, so each rendering takes the type of the package below the
// engine that owns the resource (collections.Collection, orgs.Organization,
// apikeys.Key, webhooks.DeliveryView, audit.Entry, ...: the engine's
// types of the same names are aliases of them), plus a small explicit
// parameter where the rendering needs what the type does not carry (a
// secret shown once, a token). Every timestamp renders through Time.
package render

import (
	"encoding/json"
	"time"

	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/payouts"
)

// Time renders t as every timestamp of the wire: UTC, millisecond
// precision (payouts.FormatTime, which the engine's records use too).
func Time(t time.Time) string { return payouts.FormatTime(t) }

// Failure is the rendering of why a payout, an order or a conversion
// failed: {"code","message"}.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// mustMarshal marshals a rendering, which cannot fail: every value
// rendered is made of strings, numbers, amounts and rates.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("render: rendering cannot fail: " + err.Error())
	}
	return b
}

// BalanceV1 is the one rendering of a /v1 balance (the engine's
// ClientV1.Balance), reused as the balance.low event's data.
func BalanceV1(b ledger.Balance) []byte {
	out, _ := json.Marshal(struct {
		Available money.Amount `json:"available"`
		Held      money.Amount `json:"held"`
		Shortfall money.Amount `json:"shortfall"`
		Currency  string       `json:"currency"`
	}{b.Available, b.Held, b.Shortfall, string(money.MWK.Code)})
	return out
}
