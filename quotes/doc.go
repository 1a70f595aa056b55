// Package quotes holds the pure rules of /v2 quotes, for desk orders and
// conversions: asset classes and codes, corridors, pair classification,
// the derivation and rounding of a quote's amounts, limits, and the quote
// record itself (expiry, single use). No I/O, no context, no clock, no
// randomness: callers pass the organization's view, the corridor table,
// times and ids in. A quote's and the corridors' renderings are
// internal/render's, their stored forms internal/codec's, and a body's
// decoding the transport's.
//
// # The rounding rule
//
// A rate R is corridor currency (C, a fiat asset) per one stablecoin (S).
// The caller fixes exactly one side; that side is never rounded (it must
// already fit its asset's decimals, else validation_error) and must be
// above zero. The other side is derived with one rounding, to its asset's
// decimals (Price):
//
//	direction             fixed        derived      formula   rounding
//	to-bank  (S→C)        from (S)     to (C)       from × R  down
//	to-bank  (S→C)        to (C)       from (S)     to ÷ R    up
//	from-bank (C→S)       from (C)     to (S)       from ÷ R  up
//	from-bank (C→S)       to (S)       from (C)     to × R    down
//
// In words: a derived corridor-currency amount is rounded down and a
// derived stablecoin amount up. On the to-bank (off-ramp) side that never
// favours the caller; on the from-bank (on-ramp) side it favours the caller
// by less than one minor unit: one rule, whatever the direction. A derived
// side that rounds to zero is amount_below_minimum. So 123.456789 USDT at
// 1750.5 gives 216111.10 MWK (216111.1011... rounded down) and 100000.00
// MWK at 1800 gives 55.555556 USDT (55.5555555... rounded up).
//
// # Who checks what
//
// The checks of a desk order quote (the engine's Client.QuoteOrder) run in
// this order (the package's comments name them by these numbers; see
// docs/decisions.md, "/v2 desk (orders, quotes, corridors)"); the package
// does those that need no storage and no organization:
//
//  1. shape (validation_error): Request.CheckShape (after the transport's
//     JSON types for a body), Request.Check for any Request;
//  2. asset codes (unsupported_asset): Request.Check (CheckCode);
//  3. both assets in the organization's list (corridor_not_enabled): the
//     engine;
//  4. the pair (unsupported_pair): PairOf (Classify), then
//     FindCorridor for a fiat asset without a corridor;
//  5. the operation enabled (corridor_not_enabled): the engine (it gets
//     the direction and the fiat asset from the Pair);
//  6. to 8. the amount (validation_error), the desk and the corridor
//     (service_maintenance, rate_unavailable), derivation, rounding and
//     limits (amount_below_minimum, limit_exceeded): NewOrder, which
//     repeats 1 and 2 first so that a Go host that skips them gets the
//     same answers.
//
// Conversion quotes take the same steps with NewConversion:
// the engine checks `convert` on both assets and asks its pricer for the
// rate (default: Corridor.Rate of the direction), and the limits are those
// of (from asset, convert), checked on the from side.
//
// Using a quote (the engine's Client.CreateOrder, Client.CreateConversion)
// is Quote.Use: the wrong kind is not_found (the same error as an unknown
// quote, see NotFound), a used quote quote_used, an expired one
// quote_expired, in that order. Expiry is at millisecond precision: a quote
// is expired when now > expires_at, so it is still usable at exactly
// expires_at.
package quotes
