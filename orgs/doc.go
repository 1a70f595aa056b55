// Package orgs holds the pure rules of an organization, the operator's
// customer: what a new organization must be (New), its status and its
// access to the multi-asset API, the assets and operations enabled for it
// (Enabled), its IP allowlist (ParseAllowlist, Allows), its balance floor,
// its /v1 payout limits (PayoutLimits, PayoutLimitsInForce) and the checks
// of a funding from the operator's float (CheckFunding, CheckFundable). It
// is the home of every rule about an organization and whoever acts for it.
//
// No I/O, no clock, no randomness: the engine passes ids, times and the
// configured assets in, stores what comes out (its stored form is
// internal/codec's, its rendering internal/render's) and posts the
// ledger's movements itself.
//
// # Making and changing an organization
//
// New makes an organization from Params: the name trimmed and checked
// (validation_error), then Validate. Apply makes one of the operator's
// changes (SetStatus, SetV2Access, SetAssets, SetBalanceFloor,
// SetAllowlist, SetPayoutLimits) and validates the result the same way, so
// that an organization that comes out of either is whole: its access and
// status known values, each asset configured (unsupported_asset) and
// listed once with known operations (sorted, without repeats), assets
// sorted by code, the floor and limits MWK amounts of zero or more, the
// allowlist exact addresses, unmapped, sorted and without repeats.
//
// A change's own figures that need no organization (the allowlist's
// addresses, the payout limits) are checked by Change.Check, which the
// engine calls before it reads the organization; everything else is
// checked on the organization, after it is read, so an unknown
// organization is not_found first.
//
// # Unset values
//
// The zero money.Amount (of no asset) is unset: a balance floor or a payout
// limit that is not set. money.Zero(money.MWK) is a floor or limit of
// zero, which is set. IsSet tells them apart.
package orgs
