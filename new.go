package tambala

import (
	"crypto/rand"
	"errors"
	"log/slog"
	"time"

	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/throttle"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/networks"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// New returns an engine over s. opts may be nil.
func New(s store.Store, opts *Options) (*Engine, error) {
	if s == nil {
		return nil, errors.New("tambala: nil store")
	}
	o, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		store: s, raw: s, log: o.Logger, now: o.Clock, newID: o.NewID, random: o.Random,
		env: o.Environment, assets: o.Assets, limits: o.Limits, depositIssuer: o.DepositIssuer,
		cachedKeys: cache.Records[keyRecord]{Max: 4096}, cachedOrgs: cache.Records[Organization]{Max: 4096},
	}
	e.tp, e.tracer = o.TracerProvider, tracerOf(o.TracerProvider)
	if e.tracer != nil {
		e.store = tracedStore{Store: s, tracer: e.tracer}
	}
	e.started = e.nowUTC()
	e.setPayouts(o)
	e.setBackground(o)
	e.store = sessionStore{Store: e.store, e: e}
	if err := e.setDesk(o); err != nil {
		return nil, err
	}
	e.setThrottles(o)
	return e, nil
}

// withDefaults is opts (nil: the zero Options) with the engine's own
// defaults filled in: logger, clock, ids, randomness, environment,
// assets and limits.
func withDefaults(opts *Options) (Options, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.NewID == nil {
		o.NewID = newUUIDv7
	}
	if o.Random == nil {
		o.Random = rand.Reader
	}
	switch o.Environment {
	case "":
		o.Environment = Sandbox
	case Sandbox, Production:
	default:
		return o, errors.New("tambala: environment must be sandbox or production")
	}
	if o.Assets == nil {
		o.Assets = money.DefaultAssets()
	}
	if _, ok := o.Assets.Lookup(money.MWK.Code); !ok {
		return o, errors.New("tambala: the MWK asset must be configured")
	}
	o.Limits.defaults()
	return o, nil
}

// setPayouts sets the payouts' options: the fee schedule, the provider,
// the balance.low cooldown, the sandbox's institutions.
func (e *Engine) setPayouts(o Options) {
	e.fees = payouts.DefaultFeeSchedule()
	if o.Fees != nil {
		e.fees = *o.Fees
	}
	e.provider = o.Payouts
	e.balanceLowCooldown = o.BalanceLowCooldown
	if e.balanceLowCooldown <= 0 {
		e.balanceLowCooldown = time.Hour
	}
	e.sandboxInstitutions = payouts.DefaultInstitutions()
}

// setBackground sets the ports and options of Run's loops, the metrics,
// and the event stream over the store.
func (e *Engine) setBackground(o Options) {
	e.sender, e.dispatch = o.Webhooks, o.Dispatcher
	e.guardWebhooks(o.WebhookAllow, o.OwnListeners)
	e.dispatch.defaults()
	e.worker = o.Worker
	e.worker.defaults()
	e.prune = o.Prune
	e.prune.defaults()
	e.metrics = o.Metrics
	if e.metrics == nil {
		e.metrics = noMetrics{}
	}
	e.pricer, e.converter, e.convOpts = o.ConversionPricer, o.Converter, o.ConversionWorker
	e.convOpts.defaults()
	e.events, e.eventOpts = o.Events, o.EventLoop
	e.eventOpts.defaults()
	e.stream = newEventStream(e, e.eventOpts.Buffer)
	e.store = eventsStore{Store: e.store, stream: e.stream}
}

// setDesk sets the /v2 desk's options: orders, asset classes, networks
// (which must be valid), /v2 payouts and the proof store.
func (e *Engine) setDesk(o Options) error {
	e.orderOpts = o.Orders
	e.orderOpts.defaults()
	e.classes = o.AssetClasses
	if e.classes == nil {
		e.classes = quotes.DefaultClasses()
	}
	e.networks = o.Networks
	if e.networks == nil {
		e.networks = networks.Default()
	}
	if err := e.networks.Validate(); err != nil {
		return err
	}
	e.payoutsV2 = o.PayoutsV2
	e.proofs = o.Proofs
	if e.proofs == nil {
		e.proofs = kvProofs{e.raw}
	}
	return nil
}

// setThrottles sets the portal's accounts options and what admits work
// to the engine: the password-hash limiters, the organizations' token
// buckets and their fair share.
func (e *Engine) setThrottles(o Options) {
	e.acct = o.People
	e.acct.defaults()
	for a := range e.hashers {
		e.hashers[a] = newHashing(e.acct.PasswordWork)
	}
	e.rates = throttle.NewRates(e.limits.RatePerSecond, e.limits.RateBurst)
	e.share.Init(e.limits.InFlightPerOrg, time.Now)
}
