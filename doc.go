// Package tambala is an embeddable payments engine: MWK payouts to banks
// and mobile-money wallets, a stablecoin desk (quotes, orders, corridors),
// conversions between assets, deposits and collections, payouts in any
// enabled asset, balances per organization and asset in a double-entry
// ledger, and the operator's side of all of it.
//
// # The engine and its faces
//
// A host makes an Engine over a store with New and reaches it through its
// faces, one per audience:
//
//   - Client, from Engine.Client(p): one organization's calls. p, a
//     Principal, comes from Engine.Authenticate (an API key) or Engine.Act
//     (a host that authenticates its own users). /v2 payouts in any
//     enabled asset (CreatePayout, WaitPayout), balances, desk quotes and
//     orders (QuoteOrder, CreateOrder, UploadProof), conversions
//     (QuoteConversion, CreateConversion), collections, trades, statements
//     and the reference lists. Client.V1 is the organization's /v1 API:
//     MWK payouts to banks and mobile money, MWK collections, the fee
//     quote, banks and mobile operators.
//   - Operator, from Engine.Operator() (the operator's automation, allowed
//     everything) or Sessions.Operator(ctx, token) (a signed-in staff user,
//     held to their staff roles at every call): organizations and their
//     keys, settings and limits; funding and collections recorded for an
//     organization; pause switches and rails; webhook endpoints and
//     deliveries. Operator.Desk is the desk: its queue and moves
//     (MoveOrder), proofs, corridors and asset limits, OTC trades and
//     deposits. Operator.BackOffice holds statements, reconciliation and
//     the payouts in flight to resolve by hand; Operator.Approvals,
//     four-eyes. Every change is audited with its caller as the actor.
//   - People, from Engine.People() or Sessions.People(ctx, token): the
//     operator's management of people: organizations' users and the
//     operator's own staff (the users of no organization, with staff
//     roles), invitations, password resets, sessions and TOTP, and the
//     audit trail with its filters.
//   - Sessions, from Engine.Sessions() for organizations' users (the
//     public portal) or Engine.StaffSessions() for the operator's staff
//     (the console): accepting an invitation, signing in with sign-in
//     throttling and TOTP (each admits its own users only, with throttles
//     and a bound on password hashes of its own), sessions, signing out,
//     and Sessions.Principal, through which a signed-in user reaches their
//     organization's Client. A change made through a session checks the
//     session inside its own transaction.
//   - OrgAdmin, from Sessions.Admin(ctx, token): a signed-in admin's own
//     organization: API keys, IP allowlist, webhook endpoint and
//     deliveries, balance floor, audit trail; each change audited with
//     the user as its actor.
//   - Engine itself: authentication, Run, Work (single passes for a host
//     that schedules its own: ProcessPayouts, ProcessDeliveries, ...,
//     PruneSessions), Settings (Environment, Limits, Assets, Networks)
//     and Events. What only a transport needs (the rate limit, the fair
//     share, admission before decoding, refused creates, proof links) is
//     GateOf(e), not a face.
//
// Every call of a Client checks, inside its own transaction, the rules its
// organization is under: active, its API version not paused, /v2 access,
// the asset and operation enabled. Every create is idempotent under the
// organization's key (Idempotency): the same request again returns the
// first result, marked Replayed; another request under the key is a
// conflict.
//
// # Transactions, money and errors
//
// Each use case is one storage transaction: the state change, its ledger
// postings (package ledger), its idempotency record, its outbox rows and
// its events commit together or not at all. Amounts are exact decimals
// bound to their asset (package money), bounded so that every sum the
// ledger writes can be read back. Errors carry stable codes (package
// errcode) that errors.Is matches.
//
// # Background work and events
//
// Run runs the loops until its context ends: the payout worker (the
// PayoutProvider port, Options.Payouts), the webhook dispatcher
// (Options.Webhooks), the conversion worker (Options.Converter), the event
// loop (Options.Events), the order expiry sweep and pruning; name Loops to
// run some only. Options.Events is told of every committed event as a
// typed Event (the payout, order, conversion, collection or trade as it
// was), at least once, from the same outbox the webhooks come from. To
// wait for one thing instead, ClientV1.WaitPayout returns a payout once it
// is terminal, and Engine.Events gives filtered subscriptions to the
// events this engine commits, each with a bounded buffer: a reader that
// falls behind loses its own subscription (ErrSubscriptionOverflow),
// never blocks the engine or another subscriber.
//
// # Ports and adapters
//
// Storage is the store.Store port: adapters/memstore (tests),
// adapters/boltstore (the embedded default), adapters/pebblestore and
// adapters/pgstore (PostgreSQL, for several instances), all passing
// store/storetest. adapters/sandbox gives the sandbox's payout provider,
// converter and deposit address issuer; adapters/webhookhttp sends
// webhooks; adapters/prommetrics counts; adapters/httpapi is the HTTP
// binding of the reference API, and cmd/tambala (serve) a runnable sandbox.
// The pure rules live in packages of their own, one per resource: payouts
// (/v1 and /v2), orders and quotes (the desk), conversions, collections
// (and deposits), trades, orgs, accounts (the people who sign in), and
// ledger, money, networks, webhooks, apikeys. Asset codes are
// money.AssetCode; amounts are money.Amount bound to their asset, or
// money.Decimal while the asset is not known yet.
//
// # Tracing
//
// Options.TracerProvider (OpenTelemetry) makes spans of the engine's work,
// children of the span in each call's context: one per use case (a
// face's call, such as "tambala.CreatePayout"), per store transaction
// under it with its retries, and per payout provider, converter and
// webhook call. Spans carry ids and error codes (errcode.Of), never keys,
// secrets or personal data. Without a provider tracing is off and costs
// no allocation; sampling is the provider's.
//
// See docs/architecture.md for the layering and docs/decisions.md for
// why each rule is what it is.
package tambala
