package tambala

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/apikeys"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/loop"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/internal/throttle"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// Environment is where an engine runs: keys made in one never work in the
// other (package apikeys).
type Environment = apikeys.Environment

const (
	Sandbox    = apikeys.Sandbox
	Production = apikeys.Production
)

// Options configure an Engine. Every field is optional: New accepts the
// zero Options. The ports (Payouts, Converter, DepositIssuer, Webhooks,
// Events) are what the engine calls out to; without one, the flows that
// need it are refused or wait, as each field says, and the Go error names
// the field to set. In the sandbox, adapters/sandbox.NewPorts gives the
// payout provider, the converter and the deposit address issuer at once,
// over the engine's store (sandbox.Ports.Set fills them in).
//
// /v2 also needs state that is the operator's, not an option: an
// organization with /v2 access and the assets it uses
// (NewOrganization.V2Access and Assets; a new organization has MWK only
// and no /v2 access, onboarding_incomplete), and a corridor for the desk,
// conversions and FX payouts (Desk.SetCorridor).
type Options struct {
	// Logger receives the engine's logs (log/slog; zap serves it through
	// go.uber.org/zap/exp/zapslog); never keys or secrets. Default: none.
	Logger *slog.Logger
	// Clock returns the current time. Default: time.Now.
	Clock func() time.Time
	// NewID returns a new unique id that sorts by creation time. Default:
	// UUIDv7.
	NewID func() string
	// Random is the source of key material. Default: crypto/rand.
	Random io.Reader
	// Environment is Sandbox (default) or Production.
	Environment Environment
	// Assets are the assets the engine knows. Default: MWK and USDT.
	Assets money.Assets
	// Limits are the engine's limits. Zero fields take their defaults.
	Limits Limits
	// Fees is the provider's fee schedule. Default: payouts.DefaultFeeSchedule.
	Fees *payouts.FeeSchedule
	// Payouts is the payout rail provider the worker submits to
	// (adapters/sandbox.Provider in the sandbox). Without one, payouts
	// (/v1 and /v2) are accepted and held, ProcessPayouts returns
	// ErrNoPayoutProvider, and so does Run: at once, when asked for every
	// loop or for LoopPayouts.
	Payouts PayoutProvider
	// Worker tunes the payout worker.
	Worker WorkerOptions
	// Webhooks is the sender the dispatcher delivers with
	// (adapters/webhookhttp). Without one, deliveries are still written to
	// the outbox and wait there, ProcessDeliveries returns
	// ErrNoWebhookSender, and Run runs without the dispatcher (asked for
	// LoopDeliveries, it returns ErrNoWebhookSender at once).
	Webhooks WebhookSender
	// Dispatcher tunes webhook delivery.
	Dispatcher DispatcherOptions
	// WebhookAllow lists address ranges webhooks may reach although the
	// destination rule refuses them (webhooks.Policy.Allow): an
	// operator's receivers on its own network, or a test's receiver on
	// loopback in production. Local names (localhost, *.internal) and
	// OwnListeners stay refused.
	WebhookAllow []netip.Prefix
	// OwnListeners are the host's own listening addresses (its API, admin
	// API, console): no webhook goes to them, in any environment
	// (webhooks.Policy.Own).
	OwnListeners []netip.AddrPort
	// Orders tunes the /v2 desk: quotes, funding windows, proofs.
	Orders OrderOptions
	// AssetClasses says which assets are corridor currencies (fiat) and
	// which stablecoins. Default: quotes.DefaultClasses (MWK fiat, USDT
	// stablecoin).
	AssetClasses quotes.Classes
	// Networks are the blockchain networks /v2 accepts, with the assets
	// each carries. Default: networks.Default (USDT on tron and ethereum).
	Networks networks.Table
	// DepositIssuer gives organizations their deposit addresses
	// (Client.DepositAddresses; adapters/sandbox.Issuer in the sandbox).
	// Without one, that read, for an organization with an asset it may
	// collect on a network, and Desk.RotateDepositAddress are
	// service_unavailable, with ErrNoDepositIssuer as the cause. Deposits
	// the operator records (Desk.RecordDeposit) need no issuer.
	DepositIssuer DepositAddressIssuer
	// PayoutsV2 tunes /v2 payouts: the FX pricer and the wallet fees.
	PayoutsV2 PayoutV2Options
	// Proofs keeps the bytes of funding proofs. Default: the engine's own
	// store.
	Proofs ProofStore
	// Metrics receives what the engine counts (adapters/prommetrics).
	// Default: nothing is counted.
	Metrics Metrics
	// Prune tunes the pruning of idempotency outcomes that Run does.
	Prune PruneOptions
	// BalanceLowCooldown is the least time between two balance.low events
	// of one organization (default 1h).
	BalanceLowCooldown time.Duration
	// ConversionPricer prices /v2 conversion quotes. Default: the corridor
	// rate of the direction while the corridor is open and that rate set.
	ConversionPricer ConversionPricer
	// Converter executes /v2 conversions (adapters/sandbox.Converter in
	// the sandbox). Without one, QuoteConversion and CreateConversion are
	// refused with service_unavailable, with ErrNoConverter as the cause,
	// and nothing is held; ProcessConversions and RunConversionWorker
	// return ErrNoConverter, and Run runs without the conversion worker
	// (asked for LoopConversions, it returns ErrNoConverter at once).
	Converter Converter
	// ConversionWorker tunes the conversion worker.
	ConversionWorker ConversionWorkerOptions
	// Events is told of every committed event, in-process, at least once
	// (Run's event loop, or ProcessEvents). Set it on every instance that
	// shares the store: events committed by an engine without a handler
	// are not kept for one. Default: none, and nothing is kept;
	// ProcessEvents returns ErrNoEventHandler, and Run runs without the
	// event loop (asked for LoopEvents, it returns ErrNoEventHandler).
	Events EventHandler
	// EventLoop tunes the event loop.
	EventLoop EventOptions
	// People tunes the people who sign in: password hashing, the random
	// source of their secrets, the TOTP issuer, and the bound on the
	// password hashes running at once (People.PasswordWork), which
	// bounds the memory of any flood of sign-ins at 2 × MaxInFlight ×
	// PasswordParams.Memory (152 MiB with the defaults).
	People PeopleOptions
	// TracerProvider, when set, makes OpenTelemetry spans of the engine's
	// work, children of the span in each call's context, so that a host's
	// trace goes on through the engine: one span per use case (a face's
	// call, "tambala.CreatePayout"), per store transaction under it (with
	// its retries), per payout provider, converter and webhook call. Spans
	// carry ids and error codes only, never keys, secrets or personal data.
	// Default nil: tracing is off and costs nothing (no span, no
	// allocation); the global otel.GetTracerProvider() is not used, so a
	// host opts in explicitly. Sampling is the provider's (the SDK reads
	// OTEL_TRACES_SAMPLER).
	TracerProvider trace.TracerProvider
}

// OrderOptions tune the /v2 desk. Zero fields take the defaults.
type OrderOptions struct {
	// QuoteTTL is how long a quote can be used (default 60s).
	QuoteTTL time.Duration
	// FundingWindow is how long after its instructions a from-bank order
	// may be funded when the desk gives no deadline (default 72h).
	FundingWindow time.Duration
	// PauseGrace is how long after a /v2 pause ends a funding deadline that
	// fell inside it is still honoured (default 1h).
	PauseGrace time.Duration
	// MaxProofBytes caps a funding proof (default 10 MiB).
	MaxProofBytes int64
	// ProofLinkTTL is how long a proof's download link works (default 5m).
	ProofLinkTTL time.Duration
	// SweepInterval is how often Run sweeps expired orders (default 1s).
	SweepInterval time.Duration
}

func (o *OrderOptions) defaults() {
	if o.QuoteTTL <= 0 {
		o.QuoteTTL = quotes.DefaultTTL
	}
	if o.FundingWindow <= 0 {
		o.FundingWindow = orders.DefaultFundingWindow
	}
	if o.PauseGrace <= 0 {
		o.PauseGrace = time.Hour
	}
	if o.MaxProofBytes <= 0 {
		o.MaxProofBytes = 10 << 20
	}
	if o.ProofLinkTTL <= 0 {
		o.ProofLinkTTL = 5 * time.Minute
	}
	if o.SweepInterval <= 0 {
		o.SweepInterval = time.Second
	}
}

// Limits are the engine's configurable limits.
type Limits struct {
	// MaxActiveKeys per organization (default 3).
	MaxActiveKeys int
	// RatePerSecond and RateBurst size each organization's token bucket
	// (default 50/s, burst 100).
	RatePerSecond float64
	RateBurst     int
	// IdempotencyRetention is how long decided outcomes are kept (default
	// 72h; at least 24h).
	IdempotencyRetention time.Duration
	// MaxBodyBytes caps request bodies (default 1 MiB).
	MaxBodyBytes int64
	// InFlightPerOrg is each organization's share of the engine while
	// more than one is active: at most this many of its requests in the
	// engine at once, the others waiting their turn (Gate.Enter).
	// Default 16; negative: no limit.
	InFlightPerOrg int
}

func (l *Limits) defaults() {
	if l.MaxActiveKeys <= 0 {
		l.MaxActiveKeys = 3
	}
	if l.RatePerSecond <= 0 {
		l.RatePerSecond = 50
	}
	if l.RateBurst <= 0 {
		l.RateBurst = 100
	}
	if l.IdempotencyRetention < 24*time.Hour {
		l.IdempotencyRetention = 72 * time.Hour
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = 1 << 20
	}
	if l.InFlightPerOrg == 0 {
		l.InFlightPerOrg = 16
	}
}

// Engine is the payments engine. It is safe for concurrent use.
type Engine struct {
	store  store.Store // the store, wrapped in a tracedStore when tracing is on
	raw    store.Store // the store New was given, for Store
	tp     trace.TracerProvider
	tracer trace.Tracer // nil: tracing off
	log    *slog.Logger
	now    func() time.Time
	newID  func() string
	random io.Reader
	env    Environment
	assets money.Assets
	limits Limits
	share  throttle.FairShare // Limits.InFlightPerOrg

	fees     payouts.FeeSchedule
	provider PayoutProvider

	balanceLowCooldown time.Duration
	sender             WebhookSender
	destinations       webhooks.Policy // where deliveries may go
	dispatch           DispatcherOptions
	worker             WorkerOptions
	prune              PruneOptions
	orderOpts          OrderOptions
	classes            quotes.Classes
	networks           networks.Table
	depositIssuer      DepositAddressIssuer
	payoutsV2          PayoutV2Options
	proofs             ProofStore
	metrics            Metrics
	pricer             ConversionPricer
	converter          Converter
	convOpts           ConversionWorkerOptions
	events             EventHandler
	eventOpts          EventOptions
	stream             *EventStream // the subscribers (Engine.Events)
	acct               PeopleOptions
	// passwordWorkHook, when set (tests only), runs before every password
	// hash or verification (passwordWork).
	passwordWorkHook func()
	loops            loop.Group // Run's loops, one set at a time
	started          time.Time

	// passwordHashHook, when set (tests only), runs as a password hash
	// takes its slot, and the function it returns as the slot ends.
	passwordHashHook func() func()
	// hashers bound the password hashes in flight, one per audience.
	hashers [audiences]*throttle.Hashing

	inflight deciding // idempotency scopes being decided in this process
	// legacySince is when this store's creates began to be scoped by
	// operation (zero: no outcome was ever stored under a legacy scope),
	// and namespaceSince when they began to share one namespace per
	// organization (zero: none under an operation's scope); nil until the
	// first create reads them (earlierScopes).
	legacySince    atomic.Pointer[time.Time]
	namespaceSince atomic.Pointer[time.Time]
	rates          *throttle.Rates // Limits.RatePerSecond, RateBurst

	sandboxInstitutions []payouts.Institution // read-only
	cachedInstitutions  cache.Record[storage.ReferenceData]
	cachedRails         cache.Record[Rails]
	cachedPause         cache.Record[PauseState]
	cachedCorridors     cache.Record[[]quotes.Corridor] // by corridorsVersion
	cachedKeys          cache.Records[keyRecord]        // by key id, for Authenticate
	cachedOrgs          cache.Records[Organization]     // by organization id, for Authenticate
	// keysFound are, by a key's hash, what the last Authenticate with it
	// found (keys.go).
	keysFound cache.Hints[[32]byte, keyFound]
}

// keyFound is what Authenticate found of an API key: its id, its
// organization, and the Principal it made, under the authentication
// epoch it read in the same transaction.
type keyFound struct {
	id, org string
	epoch   int64
	p       Principal
}

// environmentOfEngine is Settings.Environment.
func (e *Engine) environmentOfEngine() Environment { return e.env }

// limitsOfEngine is Settings.Limits.
func (e *Engine) limitsOfEngine() Limits { return e.limits }

// storeOfEngine is Settings.Store.
func (e *Engine) storeOfEngine() store.Store { return e.raw }

// assetsOfEngine is Settings.Assets.
func (e *Engine) assetsOfEngine() money.Assets { return e.assets }

func newUUIDv7() string {
	id, err := uuid.NewV7()
	if err != nil {
		// NewV7 fails only when crypto/rand does; nothing can go on then.
		panic(err)
	}
	return id.String()
}

func (e *Engine) nowUTC() time.Time { return e.now().UTC().Truncate(time.Millisecond) }

// ErrNoDepositIssuer is the cause of the service_unavailable that
// Client.DepositAddresses and Desk.RotateDepositAddress answer on an
// engine without Options.DepositIssuer (errors.Is finds it).
var ErrNoDepositIssuer = errors.New("tambala: no deposit address issuer configured (Options.DepositIssuer)")

// errNoDepositIssuerCoded answers a deposit address read on an engine
// without an issuer. Its cause, ErrNoDepositIssuer, names the option to
// set; the public message stays the API's.
var errNoDepositIssuerCoded = &errcode.Error{Code: errcode.ServiceUnavailable, Message: "Deposit addresses are not available.", Err: ErrNoDepositIssuer}

// PayoutSubmission is what the engine hands a payout rail. Reference is the
// payout id: a provider must treat a second submission with the same
// reference as the same payout, never as a second one.
//
// The port is asset-generic. A /v1 payout has Rail bank or momo, Amount in
// MWK and the Destination; the /v2 fields are zero. A /v2 payout has Rail
// bank, momo or RailWallet; Amount is what the destination receives, in
// the payout's asset (MWK on bank and momo); SourceAmount is what the
// organization is debited for it (principal and fee, in the source asset);
// a wallet payout has Network and Address instead of Destination.
type PayoutSubmission struct {
	Reference   string
	Rail        payouts.Rail
	Amount      money.Amount
	Destination payouts.Destination
	// V2 says the payout was made through /v2.
	V2 bool
	// SourceAmount is the amount held in the source asset (/v2 only).
	SourceAmount money.Amount
	// Network and Address are a wallet payout's destination (/v2 only).
	Network string
	Address string
}

// RailWallet is the rail of a /v2 payout to a blockchain wallet.
const RailWallet = payouts.Wallet

// ProviderState is where a provider says a payout is.
type ProviderState string

const (
	ProviderPending   ProviderState = "pending"
	ProviderSucceeded ProviderState = "succeeded"
	ProviderFailed    ProviderState = "failed"
	ProviderReversed  ProviderState = "reversed" // clawed back after success
)

// ProviderStatus is a provider's report on one payout.
type ProviderStatus struct {
	State ProviderState
	// Fee is the provider's observed charge; the zero Amount when it
	// reported none.
	Fee money.Amount
	// FailureCode is the provider's reason when failed; codes outside the
	// payout failure vocabulary become declined.
	FailureCode string
}

// ErrUnknownReference is returned by a provider's Status for a reference it
// never accepted.
var ErrUnknownReference = errors.New("provider: unknown reference")

// PayoutProvider is the port of a payout rail.
type PayoutProvider interface {
	// Submit hands a payout to the provider. It is idempotent per
	// Reference. An error means the outcome is unknown: the engine submits
	// again later with the same reference.
	Submit(ctx context.Context, s PayoutSubmission) error
	// Status reports on a submitted payout.
	Status(ctx context.Context, reference string) (ProviderStatus, error)
}

// observedFee is a fee reported as an optional Amount, nil when none.
func observedFee(f money.Amount) *money.Amount {
	if !f.IsSet() {
		return nil
	}
	return &f
}

// allowOfEngine is Gate.Allow.
func (e *Engine) allowOfEngine(orgID string) (ok bool, retryAfterSeconds int) {
	return e.rates.Allow(orgID, e.now())
}

// enterOfEngine is Gate.Enter.
func (e *Engine) enterOfEngine(ctx context.Context, orgID string) (release func(), err error) {
	return e.share.Enter(ctx, orgID)
}

// PasswordWorkOptions bound the password hashes and verifications
// (argon2id) the engine runs at once: sign-in, a password change, the
// acceptance of an invitation or of a password reset. Each runs only in
// a slot: at most MaxInFlight run, at most MaxWaiting more wait for one
// (first come, first served), and one client address (accounts.AddressKey)
// or one account (its normalised email) holds at most PerAddress or
// PerAccount of them, running or waiting. An attempt beyond any of these
// is refused at once, rate_limited (accounts.ErrBusy), without hashing
// and without counting as a failure of the account or the address; a
// waiting attempt whose context ends leaves the queue.
//
// Memory: a hash holds its parameters' Memory (19 MiB at
// accounts.DefaultParams) while it runs, and nothing while it waits, so
// the password hashing of a sign-in flood never holds more than
// 2 × MaxInFlight × Memory at once (the public portal and the staff's
// console, Engine.StaffSessions, have a limiter each, so a flood of one
// never refuses the other): 152 MiB at most with the defaults and
// accounts.DefaultParams. Go's collector lets freed memory build up to
// about the live heap again before it runs (GOGC=100), and hashes that
// start while it runs add to that: budget three times the bound above
// the rest of the heap for the process's peak (456 MiB at the most with
// the defaults; measured far lower, under 100 MiB of RSS for 200
// sign-ins at once). Zero fields take the defaults.
type PasswordWorkOptions struct {
	// MaxInFlight is how many hashes run at once. Default: half the
	// processors (GOMAXPROCS), at least 1 and at most 4, so that hashing
	// leaves the API's requests processors of their own.
	MaxInFlight int
	// MaxWaiting is how many more wait for a slot. Default 16.
	MaxWaiting int
	// PerAddress is how many one client address may have running or
	// waiting. Default 4.
	PerAddress int
	// PerAccount is how many one account may have running or waiting.
	// Default 2.
	PerAccount int
}

func (o *PasswordWorkOptions) defaults() {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = min(max(runtime.GOMAXPROCS(0)/2, 1), 4)
	}
	if o.MaxWaiting <= 0 {
		o.MaxWaiting = 16
	}
	if o.PerAddress <= 0 {
		o.PerAddress = 4
	}
	if o.PerAccount <= 0 {
		o.PerAccount = 2
	}
}

// passwordWork takes a slot of the audience's limiter for a password
// hash or verification (argon2id, about 50 ms and 19 MiB at
// accounts.DefaultParams) of account ("" for none) from the request's
// client address, or refuses it (accounts.Busy) before any hashing. The
// engine runs the hash outside every store transaction, never while it
// holds the store's write path: an Update only re-reads what the slow
// step read and records the outcome, so one organization's (or an
// outsider's) sign-ins cannot stall the writes of another. done ends the
// slot.
func (e *Engine) passwordWork(ctx context.Context, aud audience, account string) (done func(), err error) {
	if e.passwordWorkHook != nil {
		e.passwordWorkHook()
	}
	release, err := e.hashers[aud].Acquire(ctx, accounts.AddressKey(requestInfo(ctx).Address), account)
	if err != nil {
		return nil, err
	}
	if e.passwordHashHook != nil {
		end := e.passwordHashHook()
		return func() { end(); release() }, nil
	}
	return release, nil
}

// newHashing is a limiter of password work of o (defaults filled in).
func newHashing(o PasswordWorkOptions) *throttle.Hashing {
	return throttle.NewHashing(throttle.HashLimits(o))
}

// ConversionPricer prices conversions: the rate (corridor currency per one
// stablecoin, as every quote's) for pair's direction; ok false when there
// is none now (rate_unavailable). It is called outside any store
// transaction. The default is the corridor rate of the direction, only
// while the corridor is open and that rate non-null, read in the quote's
// own transaction.
type ConversionPricer interface {
	ConversionRate(ctx context.Context, pair quotes.Pair) (rate money.Rate, ok bool, err error)
}

// Converter executes conversions. Convert is idempotent by Reference: the
// same reference again is the same conversion. Status reports one; an
// ErrUnknownReference answer makes the worker call Convert again.
type Converter interface {
	Convert(ctx context.Context, req ConversionRequest) error
	Status(ctx context.Context, reference string) (ConverterStatus, error)
}

// ConversionWorkerOptions tune the conversion worker. Zero fields take
// the defaults.
type ConversionWorkerOptions struct {
	// Interval is how often Run starts a pass (default 250ms).
	Interval time.Duration
	// Poll is the wait between status checks of a pending conversion
	// (default 1s).
	Poll time.Duration
	// Lease hides a claimed conversion from other workers while one talks
	// to the converter (default 30s).
	Lease time.Duration
	// Batch is how many due conversions one pass takes (default 100).
	Batch int
	// Concurrency is the most conversions one pass advances at once
	// (default 8).
	Concurrency int
}

func (w *ConversionWorkerOptions) defaults() {
	if w.Interval <= 0 {
		w.Interval = 250 * time.Millisecond
	}
	if w.Poll <= 0 {
		w.Poll = time.Second
	}
	if w.Lease <= 0 {
		w.Lease = 30 * time.Second
	}
	if w.Batch <= 0 {
		w.Batch = 100
	}
	if w.Concurrency <= 0 {
		w.Concurrency = 8
	}
}

// ProofStore keeps the bytes of funding proofs (every proof is kept for
// audit). The default keeps them in the engine's store; a host may keep
// them in an object store. Put is called before the transaction that
// records the proof, so a failed upload may leave unreferenced bytes,
// never a record without bytes.
type ProofStore interface {
	Put(ctx context.Context, id, contentType string, content io.Reader) error
	Open(ctx context.Context, id string) (io.ReadCloser, error)
}

// EventHandler is told of every committed event (Options.Events). The
// engine calls HandleEvent from Run's event loop (or ProcessEvents) at
// least once per event, after the transaction that made it commits, and
// again, with a growing delay, while it returns an error; an event is
// forgotten once HandleEvent returns nil. Events come roughly in commit
// order, but one whose handling failed may come after later ones, and an
// event may come twice (after a crash, or when a lease ran out): dedupe by
// Event.ID. HandleEvent must not wait for the engine's own loops.
type EventHandler interface {
	HandleEvent(ctx context.Context, ev Event) error
}

// EventOptions tune the event loop and the in-process subscriptions
// (Engine.Events).
type EventOptions struct {
	// Interval is how often Run looks for events to hand over (default
	// 100ms); a full batch is followed by the next at once.
	Interval time.Duration
	// Batch is the most events one pass hands over (default 256).
	Batch int
	// Lease hides an event from other instances' loops while one hands
	// it over (default 30s).
	Lease time.Duration
	// MaxBackoff caps the delay before an event whose handling failed is
	// handed over again (default 1m; the delay starts at one second and
	// doubles).
	MaxBackoff time.Duration
	// Buffer is how many events each Subscription holds for its reader
	// (default 64). A subscription given an event while its buffer is
	// full is closed with ErrSubscriptionOverflow; the engine never waits
	// for it (see EventStream).
	Buffer int
	// Recheck is how often ClientV1.WaitPayout and WaitPayoutV2 read the
	// payout again while they wait (default 2s), for a change committed
	// by another engine sharing the store: this engine's subscribers are
	// given only the events this engine commits.
	Recheck time.Duration
}

func (o *EventOptions) defaults() {
	if o.Interval <= 0 {
		o.Interval = 100 * time.Millisecond
	}
	if o.Batch <= 0 {
		o.Batch = 256
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = time.Minute
	}
	if o.Buffer <= 0 {
		o.Buffer = 64
	}
	if o.Recheck <= 0 {
		o.Recheck = 2 * time.Second
	}
}

// keyRecord is a stored key; its stored form is codec.KeyRecord.
type keyRecord struct {
	APIKey
	Hash string // hex SHA-256 of the key
}

// Metrics receives what the engine counts, so a host can use its own
// metrics system (adapters/prommetrics serves Prometheus). Every method is
// called after the change it reports has committed, never from inside a
// storage transaction, and must be quick and safe for concurrent use.
type Metrics interface {
	// PayoutAccepted: a payout was accepted (not a replay).
	PayoutAccepted(rail payouts.Rail)
	// PayoutFinished: a payout reached status (succeeded, failed or
	// reversed); by is "worker" or "operator".
	PayoutFinished(rail payouts.Rail, status payouts.Status, by string)
	// IdempotentReplay: a create answered with a decided outcome.
	IdempotentReplay(op Operation)
	// WorkerPass and DispatcherPass: one pass of the loop, how long it
	// took and how many items it advanced.
	WorkerPass(d time.Duration, advanced int)
	DispatcherPass(d time.Duration, sent int)
	// WebhookAttempt: one delivery attempt recorded, with the state the
	// delivery is in after it (delivered, pending: to be retried, dead).
	WebhookAttempt(state webhooks.State)
	// OrderMoved: a desk order was created in, or moved to, status; by
	// is "api" (the client), "desk" (the desk or operator) or "sweep" (the
	// expiry sweep).
	OrderMoved(direction orders.Direction, status orders.Status, by string)
	// ConversionMoved: a conversion was accepted (processing) or finished
	// (completed, failed); by is "api" or "worker".
	ConversionMoved(status ConversionStatus, by string)
}

// WebhookSender is the port that POSTs a delivery (adapters/webhookhttp).
// It must not follow redirects, must time out, and must cap what it reads.
// A failed send's error may say what listens where: the engine records
// only its class (webhooks.Classify; a *webhooks.SendError names its own)
// and logs the error itself.
type WebhookSender interface {
	Send(ctx context.Context, url string, body []byte, signature string) (SendResult, error)
}

// Rails holds the rail pause switches.
type Rails struct {
	BankDisabled bool
	MomoDisabled bool
}

// PayoutV2Options tune /v2 payouts.
type PayoutV2Options struct {
	// FXPricer is the provider's rate for FX payouts. Default: the desk
	// corridor's rate of the pair's direction while the corridor is open
	// (off-ramp when paying corridor currency from a stablecoin, on-ramp
	// the other way).
	FXPricer FXPricer
	// WalletFees are flat fees of wallet payouts by asset then network id,
	// in the payout's asset. Default: none (0).
	WalletFees map[money.AssetCode]map[string]money.Amount
}

// PeopleOptions tune the people who sign in (package accounts). Zero fields
// take the defaults.
type PeopleOptions struct {
	// PasswordParams are the argon2id parameters of new password hashes
	// (default accounts.DefaultParams; accounts.TestParams in tests only).
	// A hash made with others is redone at its user's next sign-in.
	PasswordParams accounts.Params
	// Random is the source of tokens, salts, TOTP secrets and recovery
	// codes. Default: crypto/rand.Reader.
	Random io.Reader
	// Issuer names the service in authenticator apps (default "tambala").
	Issuer string
	// PasswordWork bounds the password hashes running and waiting at
	// once, in all and per client address and account, and so the memory
	// a flood of sign-ins can take (2 × MaxInFlight × PasswordParams'
	// Memory): see PasswordWorkOptions.
	PasswordWork PasswordWorkOptions
}

func (o *PeopleOptions) defaults() {
	if o.PasswordParams == (accounts.Params{}) {
		o.PasswordParams = accounts.DefaultParams
	}
	if o.Random == nil {
		o.Random = rand.Reader
	}
	if o.Issuer == "" {
		o.Issuer = "tambala"
	}
	o.PasswordWork.defaults()
}

// PruneOptions tune the pruning of decided idempotency outcomes.
type PruneOptions struct {
	// Interval is how often Run prunes (default 5m).
	Interval time.Duration
	// Batch is the most outcomes one prune deletes (default 1000); a full
	// batch is followed by the next at once.
	Batch int
}

func (p *PruneOptions) defaults() {
	if p.Interval <= 0 {
		p.Interval = 5 * time.Minute
	}
	if p.Batch <= 0 {
		p.Batch = 1000
	}
}

// WorkerOptions tune the payout worker. Zero fields take the defaults.
type WorkerOptions struct {
	// Poll is how long to wait between status checks of a pending payout
	// (default 1s).
	Poll time.Duration
	// Lease is how long a claimed payout is hidden from other workers while
	// one talks to the provider (default 30s). A worker that dies mid-call
	// leaves the payout due again after the lease: it is submitted again
	// with the same reference, which the provider treats as the same payout.
	Lease time.Duration
	// MaxBackoff caps the wait after a provider error (default 5m); the
	// wait doubles from 1s with each consecutive error, and each wait is
	// drawn at random from its upper half, so that payouts that failed
	// together do not all retry in the same instant.
	MaxBackoff time.Duration
	// MaxUnknownAnswers is how many definite "unknown reference" answers
	// in a row (Status returning ErrUnknownReference), each followed by a
	// resubmission under the same reference, fail a payout with
	// provider_unavailable and release its hold (default 3). The provider
	// never accepted it, so no money moved.
	MaxUnknownAnswers int
	// OverdueAfter is how long after acceptance a payout not yet terminal
	// is shown to the operator as overdue (default 15m).
	OverdueAfter time.Duration
	// Batch is how many due payouts one pass takes (default 100).
	Batch int
	// Interval is how often Run starts a pass of the worker (default
	// 250ms).
	Interval time.Duration
	// Concurrency is the most payouts one pass advances at once, each
	// with its own provider call (default 8). 1 advances them one at a
	// time, in due order.
	Concurrency int
}

func (w *WorkerOptions) defaults() {
	if w.Poll <= 0 {
		w.Poll = time.Second
	}
	if w.Lease <= 0 {
		w.Lease = 30 * time.Second
	}
	if w.MaxBackoff <= 0 {
		w.MaxBackoff = 5 * time.Minute
	}
	if w.Batch <= 0 {
		w.Batch = 100
	}
	if w.Concurrency <= 0 {
		w.Concurrency = 8
	}
	if w.Interval <= 0 {
		w.Interval = 250 * time.Millisecond
	}
	if w.MaxUnknownAnswers <= 0 {
		w.MaxUnknownAnswers = 3
	}
	if w.OverdueAfter <= 0 {
		w.OverdueAfter = 15 * time.Minute
	}
}

// backoff is the wait after attempts consecutive failed calls
// (loop.Backoff, capped at MaxBackoff).
func (w WorkerOptions) backoff(attempts int) time.Duration {
	return loop.Backoff(attempts, w.MaxBackoff)
}

// DispatcherOptions tune webhook delivery. Zero fields take the defaults.
type DispatcherOptions struct {
	Schedule []time.Duration // default webhooks.DefaultSchedule
	Lease    time.Duration   // default 60s: hides a delivery being sent
	Batch    int             // default 100: the most due deliveries one pass takes
	// Concurrency is the most deliveries one pass sends at once (default
	// 8). 1 sends them one at a time, in due order.
	Concurrency int
	// Interval is how often Run starts a pass of the dispatcher (default
	// 500ms).
	Interval time.Duration
}

func (d *DispatcherOptions) defaults() {
	if d.Schedule == nil {
		d.Schedule = webhooks.DefaultSchedule
	}
	if d.Lease <= 0 {
		d.Lease = time.Minute
	}
	if d.Batch <= 0 {
		d.Batch = 100
	}
	if d.Concurrency <= 0 {
		d.Concurrency = 8
	}
	if d.Interval <= 0 {
		d.Interval = 500 * time.Millisecond
	}
}

// audience is whom a Sessions face signs in: the users of organizations (the
// public portal) or the operator's staff (the console).
type audience uint8

const (
	audienceOrgs audience = iota
	audienceStaff
	audiences // how many
)

// admits reports whether u signs in at the audience's face.
func (a audience) admits(u accounts.User) bool { return u.IsStaff() == (a == audienceStaff) }

// key is k, an email or an address key, in the audience's namespace of
// throttles: as it always was for organizations' users, after "staff" and
// a NUL for the staff (no email or address key holds a NUL).
func (a audience) key(k string) string {
	if a == audienceStaff {
		return "staff\x00" + k
	}
	return k
}

// DepositAddressIssuer gives an organization its deposit address on a
// network. It is called outside any transaction, once per
// (org, network) the engine has no address for yet; the engine stores
// what it returns and never asks again for that pair. An error makes the
// whole Client.DepositAddresses call service_unavailable.
type DepositAddressIssuer interface {
	Issue(ctx context.Context, org, network string) (address string, err error)
}

// ConversionRequest is what the engine asks a Converter to do: convert
// From into To under Reference, the conversion's id.
type ConversionRequest struct {
	Reference string
	From, To  money.Amount
}

// ConverterStatus is a converter's answer about one reference.
// FailureCode is provider_declined or anything else (other).
type ConverterStatus struct {
	State       ConverterState
	FailureCode string
}

// SendResult is what one delivery attempt got back.
type SendResult struct {
	StatusCode int    // 0 when no response came (timeout, refused, redirect error)
	Response   []byte // the start of the response body, truncated
}

// FXPricer prices a /v2 FX payout at accept: the rate, in corridor
// currency per one stablecoin, at which pair (From the source asset, To the
// delivered asset) is converted. An error with code service_unavailable (or
// any error, which becomes one) refuses the payout with that code.
type FXPricer interface {
	PayoutRate(ctx context.Context, pair quotes.Pair) (money.Rate, error)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Work is the engine's background work one pass at a time, for a host that
// schedules its own passes instead of Run: each Process* call does one
// batch and says how many items it handled; each Prune* removes what has
// outlived its retention. Engine.Work returns it.
type Work struct{ x *Engine }

// Work is the engine's background work as single passes.
func (e *Engine) Work() Work { return Work{e} }

// Settings reads how the engine was configured: its environment, limits,
// assets and networks, and the tracer provider it reports to.
type Settings struct{ x *Engine }

// Settings reads the engine's configuration.
func (e *Engine) Settings() Settings { return Settings{e} }

// Gate is what a transport (an HTTP binding, a queue consumer) needs
// before it calls a face: the per-key rate limit, the fair share of the
// engine, the admission of an organization to an API version, the
// refusal of a create the transport rejected, and the proof links it
// serves. A host calling the faces in-process does not need it: the
// faces apply the same rules themselves.
type Gate struct{ x *Engine }

// GateOf returns the transport gate of e.
func GateOf(e *Engine) Gate { return Gate{e} }

// Allow takes one token from the organization's bucket. When none is left
// it returns false and how long to wait, in whole seconds (at least 1), for
// the Retry-After header.
func (u Gate) Allow(orgID string) (ok bool, retryAfterSeconds int) {
	return u.x.allowOfEngine(orgID)
}

// Enter admits one request of the organization orgID to the engine for a
// fair share of it: while more than one organization is active, each has
// at most Limits.InFlightPerOrg requests in the engine at once and its
// further requests wait here, in order, until one of its own ends (or ctx
// does: service_unavailable). An organization alone is never held back.
// A transport calls it after Allow, before the use case, and calls
// release when the request is done; the engine's own calls do not pass
// through it.
func (u Gate) Enter(ctx context.Context, orgID string) (release func(), err error) {
	return u.x.enterOfEngine(ctx, orgID)
}

// Assets returns the configured assets.
func (u Settings) Assets() money.Assets {
	return u.x.assetsOfEngine()
}

// Environment returns the engine's environment.
func (u Settings) Environment() Environment {
	return u.x.environmentOfEngine()
}

// Limits returns the engine's limits, defaults filled in.
func (u Settings) Limits() Limits {
	return u.x.limitsOfEngine()
}

// Store returns the engine's store. It is for reading and for the
// host's own buckets: a write through it to the engine's records bypasses
// the engine's rules, and one to an API key, an organization or a setting
// does not advance the authentication epoch, so the engine's instances
// may go on authenticating from what they found before it (except a
// revocation: a key's own record is read every time).
func (u Settings) Store() store.Store {
	return u.x.storeOfEngine()
}
