package tambala

import (
	"context"
	"time"

	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"go.opentelemetry.io/otel/trace"
)

// Client is the face of the engine one organization calls: its payouts,
// balances, desk orders, conversions, collections and reference lists.
// Every call acts for the Principal the Client was made with and checks,
// inside its own transaction, the rules that Principal is under (the
// organization active, the API not paused, /v2 access, the asset and
// operation enabled), so a suspension or a pause committed after the
// Principal was made is obeyed.
//
// A Client is a small value: make one per request with Engine.Client.
// It is safe for concurrent use.
type Client struct {
	e *Engine
	p Principal
}

// Client returns the face of the engine for the organization p acts for.
// p comes from Authenticate or Act; a Principal built by hand makes every
// call fail as unauthorized.
func (e *Engine) Client(p Principal) *Client { return &Client{e: e, p: p} }

// Principal returns the Principal the Client acts for.
func (c *Client) Principal() Principal { return c.p }

// Admit checks the rules every call to api is under, against the state
// committed now: the organization is active (forbidden), api is not paused
// (service_maintenance, service_incident) and, for /v2, the organization's
// multi-asset access is enabled (onboarding_incomplete, access_suspended).
// Every use case checks the same rules itself, inside its transaction; a
// transport calls Admit first only so that these answers come before it
// decodes a request, in the order the reference gives.
func (g Gate) Admit(ctx context.Context, c *Client, api API) (err error) {
	ctx, span := c.span(ctx, "tambala.Admit")
	defer span.end(&err)
	return c.e.admitNow(ctx, c.p, api)
}

// Balance reads the caller's balance in one enabled asset (a /v2 call).
func (c *Client) Balance(ctx context.Context, code money.AssetCode) (_ ledger.Balance, err error) {
	ctx, span := c.span(ctx, "tambala.Balance")
	defer span.end(&err)
	return c.e.balanceOf(ctx, c.p, code)
}

// balanceV1OfClient is ClientV1.Balance.
func (c *Client) balanceV1OfClient(ctx context.Context) (_ ledger.Balance, err error) {
	ctx, span := c.span(ctx, "tambala.BalanceV1")
	defer span.end(&err)
	return c.e.balanceV1(ctx, c.p)
}

// Balances reads the caller's balance in every enabled asset, by code (a
// /v2 call).
func (c *Client) Balances(ctx context.Context) (_ []ledger.Balance, err error) {
	ctx, span := c.span(ctx, "tambala.Balances")
	defer span.end(&err)
	return c.e.balances(ctx, c.p)
}

// banksOfClient is ClientV1.Banks.
func (c *Client) banksOfClient(ctx context.Context) (_ []Bank, err error) {
	ctx, span := c.span(ctx, "tambala.Banks")
	defer span.end(&err)
	return c.e.banks(ctx, c.p)
}

// collectionOfClient is ClientV1.Collection.
func (c *Client) collectionOfClient(ctx context.Context, id string) (_ Collection, err error) {
	ctx, span := c.span(ctx, "tambala.Collection")
	defer span.end(&err)
	return c.e.collectionByID(ctx, c.p, id)
}

// Collection returns one of the caller's /v2 collections.
func (c *Client) Collection(ctx context.Context, id string) (_ CollectionV2, err error) {
	ctx, span := c.span(ctx, "tambala.CollectionV2")
	defer span.end(&err)
	return c.e.collectionV2(ctx, c.p, id)
}

// collectionsOfClient is ClientV1.Collections.
func (c *Client) collectionsOfClient(ctx context.Context, page PageRequest) (_ Page[Collection], err error) {
	ctx, span := c.span(ctx, "tambala.Collections")
	defer span.end(&err)
	return c.e.collections(ctx, c.p, page)
}

// Collections lists the caller's /v2 collections (deposits, order
// refunds, simulated), newest first.
func (c *Client) Collections(ctx context.Context, page PageRequest, f CollectionV2Filter) (_ Page[CollectionV2], err error) {
	ctx, span := c.span(ctx, "tambala.CollectionsV2")
	defer span.end(&err)
	return c.e.collectionsV2(ctx, c.p, page, f)
}

// Conversion returns one of the caller's conversions (a /v2 call);
// unknown, foreign and malformed ids are not_found.
func (c *Client) Conversion(ctx context.Context, id string) (_ Conversion, err error) {
	ctx, span := c.span(ctx, "tambala.Conversion")
	defer span.end(&err)
	return c.e.conversion(ctx, c.p, id)
}

// Conversions lists the caller's conversions newest first, a page at a
// time (a /v2 call).
func (c *Client) Conversions(ctx context.Context, page PageRequest, f ConversionFilter) (_ Page[Conversion], err error) {
	ctx, span := c.span(ctx, "tambala.Conversions")
	defer span.end(&err)
	return c.e.conversions(ctx, c.p, page, f)
}

// Corridors lists the desk corridors the caller sees, by code (a /v2
// call).
func (c *Client) Corridors(ctx context.Context) (_ []quotes.Corridor, err error) {
	ctx, span := c.span(ctx, "tambala.Corridors")
	defer span.end(&err)
	return c.e.corridors(ctx, c.p)
}

// CreateConversion executes a conversion quote (a /v2 call) in one
// transaction: idempotency; the quote (unknown, foreign, malformed or an
// order quote: not_found; used: quote_used; expired: quote_expired); both
// assets still enabled with convert (corridor_not_enabled); the hold of
// from_amount (insufficient_funds). The conversion starts processing and is
// due for the worker at once. A zero idem.Fingerprint is n.Fingerprint().
func (c *Client) CreateConversion(ctx context.Context, n NewConversion, idem Idempotency) (_ Created[Conversion], err error) {
	ctx, span := c.span(ctx, "tambala.CreateConversion")
	defer span.end(&err)
	return c.e.createConversion(ctx, c.p, n, idem)
}

// CreateOrder executes a quote as a desk order (a /v2 call), in one
// transaction and in this order: idempotency; client_ref's format (the
// body's shape); the quote (not_found, quote_used, quote_expired); the
// beneficiary (required to-bank, not allowed from-bank, then its fields);
// the assets and operation still enabled; the desk open; client_ref
// unused in the organization; to-bank, the hold of from_amount
// (insufficient_funds); see
// docs/decisions.md, "/v2 desk (orders, quotes, corridors)".
// A to-bank order starts accepted, a from-bank one awaiting_instructions.
// A zero idem.Fingerprint is n.Fingerprint().
func (c *Client) CreateOrder(ctx context.Context, n NewOrder, idem Idempotency) (_ Created[orders.Order], err error) {
	ctx, span := c.span(ctx, "tambala.CreateOrder")
	defer span.end(&err)
	return c.e.createOrder(ctx, c.p, n, idem)
}

// createPayoutOfClient is ClientV1.CreatePayout.
func (c *Client) createPayoutOfClient(ctx context.Context, req payouts.Request, idem Idempotency) (_ Created[payouts.Payout], err error) {
	ctx, span := c.span(ctx, "tambala.CreatePayout")
	defer span.end(&err)
	return c.e.createPayout(ctx, c.p, req, idem)
}

// CreatePayout accepts a /v2 payout, in one transaction: idempotency; the
// assets (asset with payout, source asset in the list); the amount; the
// destination (bank or momo in MWK with /v1's rules, wallet in a stablecoin
// on a network carrying it); the per-(asset, payout) limits; the rail
// switch; the fee; on an FX payout the pair and the rate; the hold of
// principal and fee in the source asset (insufficient_funds). The payout
// starts held. A zero idem.Fingerprint is req.Fingerprint().
func (c *Client) CreatePayout(ctx context.Context, req PayoutV2Request, idem Idempotency) (_ Created[PayoutV2], err error) {
	ctx, span := c.span(ctx, "tambala.CreatePayoutV2")
	defer span.end(&err)
	return c.e.createPayoutV2(ctx, c.p, req, idem)
}

// DepositAddresses lists the caller's deposit addresses, one per network (a
// /v2 call). An address is issued on its first read and stored; any address
// the issuer can't give (or no issuer at all) makes the whole call
// service_unavailable, never a partial list.
func (c *Client) DepositAddresses(ctx context.Context) (_ []DepositAddress, err error) {
	ctx, span := c.span(ctx, "tambala.DepositAddresses")
	defer span.end(&err)
	return c.e.depositAddresses(ctx, c.p)
}

// EnabledAssets lists the assets enabled for the caller, by code (a /v2
// call).
func (c *Client) EnabledAssets(ctx context.Context) (_ []EnabledAsset, err error) {
	ctx, span := c.span(ctx, "tambala.EnabledAssets")
	defer span.end(&err)
	return c.e.enabledAssets(ctx, c.p)
}

// Institutions returns the payable institutions and when they were synced.
func (c *Client) Institutions(ctx context.Context) (_ []payouts.Institution, _ time.Time, err error) {
	ctx, span := c.span(ctx, "tambala.Institutions")
	defer span.end(&err)
	return c.e.listInstitutions(ctx, c.p)
}

// mobileOperatorsOfClient is ClientV1.MobileOperators.
func (c *Client) mobileOperatorsOfClient(ctx context.Context) (_ []MobileOperator, _ time.Time, err error) {
	ctx, span := c.span(ctx, "tambala.MobileOperators")
	defer span.end(&err)
	return c.e.operators(ctx, c.p)
}

// Order returns one of the caller's desk orders (a /v2 call).
func (c *Client) Order(ctx context.Context, id string) (_ orders.Order, err error) {
	ctx, span := c.span(ctx, "tambala.Order")
	defer span.end(&err)
	return c.e.order(ctx, c.p, id)
}

// Orders lists the caller's desk orders newest first, a page at a time
// (a /v2 call).
func (c *Client) Orders(ctx context.Context, page PageRequest, f OrderFilter) (_ Page[orders.Order], err error) {
	ctx, span := c.span(ctx, "tambala.Orders")
	defer span.end(&err)
	return c.e.orders(ctx, c.p, page, f)
}

// payoutOfClient is ClientV1.Payout.
func (c *Client) payoutOfClient(ctx context.Context, id string) (_ payouts.Payout, err error) {
	ctx, span := c.span(ctx, "tambala.Payout")
	defer span.end(&err)
	return c.e.payout(ctx, c.p, id)
}

// Payout returns one of the caller's /v2 payouts; a /v1 payout, a
// foreign, unknown or malformed id is not_found alike.
func (c *Client) Payout(ctx context.Context, id string) (_ PayoutV2, err error) {
	ctx, span := c.span(ctx, "tambala.PayoutV2")
	defer span.end(&err)
	return c.e.payoutV2(ctx, c.p, id)
}

// payoutsOfClient is ClientV1.Payouts.
func (c *Client) payoutsOfClient(ctx context.Context, page PageRequest, f PayoutFilter) (_ Page[payouts.Payout], err error) {
	ctx, span := c.span(ctx, "tambala.Payouts")
	defer span.end(&err)
	return c.e.payouts(ctx, c.p, page, f)
}

// Payouts lists the caller's /v2 payouts newest first, a page at a
// time.
func (c *Client) Payouts(ctx context.Context, page PageRequest, f PayoutFilter) (_ Page[PayoutV2], err error) {
	ctx, span := c.span(ctx, "tambala.PayoutsV2")
	defer span.end(&err)
	return c.e.listPayoutsV2(ctx, c.p, page, f)
}

// ProofLink signs a link to the newest funding proof of one of the caller's
// orders (a /v2 call), valid for OrderOptions.ProofLinkTTL; a rejected
// proof has one too. An order without a proof, or a to-bank order, is
// not_found.
func (c *Client) ProofLink(ctx context.Context, orderID string) (_ ProofLink, err error) {
	ctx, span := c.span(ctx, "tambala.ProofLink")
	defer span.end(&err)
	return c.e.proofLinkFor(ctx, c.p, orderID)
}

// QuoteConversion issues a conversion quote (a /v2 call): the request's
// shape (validation_error) and codes (unsupported_asset); both assets in
// the organization's list with convert (corridor_not_enabled); the pair
// rule (unsupported_pair); the fixed amount (validation_error); a rate
// from the ConversionPricer (none: rate_unavailable); the rounding of
// quotes.Price; the (from asset, convert) limits on the from side
// (amount_below_minimum, limit_exceeded). A pricer given in
// Options.ConversionPricer is asked before the transaction, outside it;
// the default one's corridor rate is read in the transaction. The answer
// is used only once every earlier check has passed. Nothing is held.
func (c *Client) QuoteConversion(ctx context.Context, req quotes.Request) (_ quotes.Quote, err error) {
	ctx, span := c.span(ctx, "tambala.QuoteConversion")
	defer span.end(&err)
	return c.e.quoteConversion(ctx, c.p, req)
}

// quoteFeeOfClient is ClientV1.QuoteFee.
func (c *Client) quoteFeeOfClient(ctx context.Context, dir payouts.Direction, rail payouts.Rail, amount money.Amount) (_ payouts.FeeQuote, err error) {
	ctx, span := c.span(ctx, "tambala.QuoteFee")
	defer span.end(&err)
	return c.e.quoteFee(ctx, c.p, dir, rail, amount)
}

// QuoteOrder issues a desk order quote (a /v2 call). Checks,
// in order: the shape, the codes, both assets enabled, the pair, the
// direction's operation, the fixed amount, the desk and the corridor's
// rate (see docs/decisions.md, "/v2 desk (orders, quotes, corridors)");
// then the derived side, rounded as the quotes package's table says and
// held to the corridor's limits. The quote is frozen and stored for
// QuoteTTL (and kept a day after, so a late use is quote_expired).
// Amounts are decimal text in req because their asset decides their
// decimals; they are parsed once the asset is known. Nothing is held.
func (c *Client) QuoteOrder(ctx context.Context, req quotes.Request) (_ quotes.Quote, err error) {
	ctx, span := c.span(ctx, "tambala.QuoteOrder")
	defer span.end(&err)
	return c.e.quoteOrder(ctx, c.p, req)
}

// RefuseCreate answers a create whose request the transport could not
// decode into the typed request (malformed JSON, a field of the wrong
// type), in the order the engine answers every create, so that the
// idempotency rules come first: the Principal's rules; a missing key;
// the key in flight (conflict); the key already decided by another
// operation or with another fingerprint (conflict, even though this
// request is invalid). Otherwise
// it returns reason. It stores nothing.
func (g Gate) RefuseCreate(ctx context.Context, c *Client, op Operation, idem Idempotency, reason error) (err error) {
	ctx, span := c.span(ctx, "tambala.RefuseCreate")
	defer span.end(&err)
	return c.e.refuseCreate(ctx, c.p, op, idem, reason)
}

// simulateCollectionOfClient is ClientV1.SimulateCollection.
func (c *Client) simulateCollectionOfClient(ctx context.Context, sc SimulatedCollection) (_ Collection, err error) {
	ctx, span := c.span(ctx, "tambala.SimulateCollection")
	defer span.end(&err)
	return c.e.simulateCollection(ctx, c.p, sc)
}

// SimulateCollection credits the caller with a made-up /v2 collection
// (sandbox only). Checks in order: sandbox_only; asset and amount present
// (validation_error); /v2 admission; asset well-formed (unsupported_asset)
// and enabled with collection (corridor_not_enabled); a network on a fiat
// asset (validation_error); the network known and carrying the asset
// (unsupported_network); the amount's decimals and sign (validation_error).
// Not idempotent.
func (c *Client) SimulateCollection(ctx context.Context, sc SimulatedCollectionV2) (_ CollectionV2, err error) {
	ctx, span := c.span(ctx, "tambala.SimulateCollectionV2")
	defer span.end(&err)
	return c.e.simulateCollectionV2(ctx, c.p, sc)
}

// Trades lists the caller's trades, newest first.
func (c *Client) Trades(ctx context.Context, page PageRequest) (_ Page[Trade], err error) {
	ctx, span := c.span(ctx, "tambala.Trades")
	defer span.end(&err)
	return c.e.trades(ctx, c.p, page)
}

// UploadProof records a funding proof of one of the caller's from-bank
// orders (a /v2 call), checking in this order: the media type
// (unsupported_media_type); the order (not_found); the order expecting a
// proof (proof_not_expected; the newest proof uploaded again while it is
// under review answers the order unchanged); the content (payload_too_large
// over MaxProofBytes, validation_error when empty, unsupported_media_type
// when its first bytes are not of its type). The bytes go to the
// ProofStore, then one transaction records the proof and moves the order to
// proof_submitted (re-checking that it still expects one). No event: the
// upload is the caller's own action.
func (c *Client) UploadProof(ctx context.Context, orderID string, up ProofUpload) (_ orders.Order, err error) {
	ctx, span := c.span(ctx, "tambala.UploadProof")
	defer span.end(&err)
	return c.e.uploadProof(ctx, c.p, orderID, up)
}

func (c *Client) span(ctx context.Context, name string) (context.Context, span) {
	if c.e.tracer == nil {
		return ctx, span{}
	}
	ctx, s := c.e.startSpan(ctx, name, trace.SpanKindInternal)
	s.set(attrOrg.String(c.p.Org.ID))
	return ctx, s
}

// ClientV1 is the organization's /v1 API: MWK payouts to banks and
// mobile-money wallets, MWK collections, the MWK balance, the fee quote
// and the reference lists of banks and mobile operators. Client.V1
// returns it; every call is the organization's, as Client's are.
type ClientV1 struct{ x *Client }

// V1 is the organization's /v1 API.
func (c *Client) V1() ClientV1 { return ClientV1{c} }

// Balance reads the caller's MWK balance under the /v1 rules.
func (u ClientV1) Balance(ctx context.Context) (ledger.Balance, error) {
	return u.x.balanceV1OfClient(ctx)
}

// Banks lists the bank institutions under stable UUIDs.
func (u ClientV1) Banks(ctx context.Context) ([]Bank, error) {
	return u.x.banksOfClient(ctx)
}

// Collection returns one of the caller's collections.
func (u ClientV1) Collection(ctx context.Context, id string) (Collection, error) {
	return u.x.collectionOfClient(ctx, id)
}

// Collections lists the caller's collections, newest first.
func (u ClientV1) Collections(ctx context.Context, page PageRequest) (Page[Collection], error) {
	return u.x.collectionsOfClient(ctx, page)
}

// CreatePayout accepts a payout: in one transaction it checks the
// Principal's rules (/v1), settles idempotency (a replay returns the
// payout as it was accepted, Replayed set), validates req
// (payouts.Request.Validate), prices the fee, checks MWK payouts are
// enabled, the per-payout maximum, the rail switch, the institution and
// the rolling limits, holds amount plus fee, and stores the payout (status
// held) with its idempotency record. A zero idem.Fingerprint is
// req.Fingerprint().
func (u ClientV1) CreatePayout(ctx context.Context, req payouts.Request, idem Idempotency) (Created[payouts.Payout], error) {
	return u.x.createPayoutOfClient(ctx, req, idem)
}

// MobileOperators lists the mobile-money operators and when they were synced.
func (u ClientV1) MobileOperators(ctx context.Context) ([]MobileOperator, time.Time, error) {
	return u.x.mobileOperatorsOfClient(ctx)
}

// Payout returns one of the caller's payouts; a foreign, unknown or
// malformed id is not_found alike.
func (u ClientV1) Payout(ctx context.Context, id string) (payouts.Payout, error) {
	return u.x.payoutOfClient(ctx, id)
}

// Payouts lists the caller's payouts newest first, a page at a time.
func (u ClientV1) Payouts(ctx context.Context, page PageRequest, f PayoutFilter) (Page[payouts.Payout], error) {
	return u.x.payoutsOfClient(ctx, page, f)
}

// QuoteFee prices a payout or collection of amount on rail with the
// engine's fee schedule (a /v1 call).
func (u ClientV1) QuoteFee(ctx context.Context, dir payouts.Direction, rail payouts.Rail, amount money.Amount) (payouts.FeeQuote, error) {
	return u.x.quoteFeeOfClient(ctx, dir, rail, amount)
}

// SimulateCollection credits the caller with a made-up collection, as a
// real one would be credited (sandbox only: sandbox_only elsewhere). It is
// not idempotent.
func (u ClientV1) SimulateCollection(ctx context.Context, sc SimulatedCollection) (Collection, error) {
	return u.x.simulateCollectionOfClient(ctx, sc)
}
