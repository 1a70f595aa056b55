package prommetrics

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

const namespace = "tambala"

// Metrics implements tambala.Metrics with Prometheus collectors. Make one
// per registry with New and pass it as tambala.Options.Metrics.
type Metrics struct {
	accepted   *prometheus.CounterVec
	finished   *prometheus.CounterVec
	replays    *prometheus.CounterVec
	workerPass prometheus.Histogram
	workerAdv  prometheus.Counter
	dispPass   prometheus.Histogram
	dispSent   prometheus.Counter
	attempts   *prometheus.CounterVec
	dead       prometheus.Counter
	httpReqs   *prometheus.CounterVec
	httpDur    *prometheus.HistogramVec
	txDur      *prometheus.HistogramVec
	txRetries  *prometheus.CounterVec
	orders     *prometheus.CounterVec
	convs      *prometheus.CounterVec
	// httpSeries holds the series ObserveHTTP has resolved, so that a
	// request after the first of its kind neither hashes its labels nor
	// allocates.
	httpSeries sync.Map // httpKey -> *httpSeries
	// txSeries holds the resolved series of store transactions, by kind
	// (view, update) and outcome (ok, error); nil until first observed.
	txSeries [2][2]atomic.Pointer[prometheus.Observer]
}

// httpKey is one combination of ObserveHTTP's labels.
type httpKey struct {
	handler, route string
	status         int
	code           string
}

// httpSeries are the request counter and duration histogram of one
// httpKey.
type httpSeries struct {
	reqs prometheus.Counter
	dur  prometheus.Observer
}

var _ tambala.Metrics = (*Metrics)(nil)

// New registers the engine's, the store's and the HTTP binding's metrics
// on reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		accepted: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "payouts_accepted_total",
			Help: "Payouts accepted (replays not counted), by rail."}, []string{"rail"}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "payouts_finished_total",
			Help: "Payouts that reached a terminal status, by rail, status (succeeded, failed, reversed) and who finished them (worker, operator)."},
			[]string{"rail", "status", "by"}),
		replays: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "idempotent_replays_total",
			Help: "Creates answered with an outcome decided earlier, by operation."}, []string{"operation"}),
		workerPass: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Name: "payout_worker_pass_seconds",
			Help: "Duration of one payout worker pass.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 9)}),
		workerAdv: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "payout_worker_advanced_total",
			Help: "Payouts the worker advanced (a provider call made and recorded)."}),
		dispPass: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Name: "webhook_dispatcher_pass_seconds",
			Help: "Duration of one webhook dispatcher pass.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 9)}),
		dispSent: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_dispatcher_sent_total",
			Help: "Webhook deliveries the dispatcher sent."}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_attempts_total",
			Help: "Webhook delivery attempts recorded, by the delivery's state after the attempt (delivered, pending: to be retried, dead)."},
			[]string{"state"}),
		dead: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_dead_letters_total",
			Help: "Webhook deliveries dead-lettered (their schedule ran out)."}),
		httpReqs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests, by handler (public, admin), route pattern, status and error code (\"\" on success)."},
			[]string{"handler", "route", "status", "code"}),
		httpDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_duration_seconds",
			Help: "HTTP request latency, by handler and route pattern.", Buckets: prometheus.DefBuckets}, []string{"handler", "route"}),
		txDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "store_transaction_seconds",
			Help:    "Store transaction durations, by kind (view, update) and outcome (ok, error).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"kind", "outcome"}),
		txRetries: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "store_update_reruns_total",
			Help: "Update functions run again by the store (group commit fallback, serialization failures), by store."},
			[]string{"store"}),
		orders: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "orders_moved_total",
			Help: "Desk orders created in or moved to a status, by direction, status and who moved them (api, desk, sweep)."},
			[]string{"direction", "status", "by"}),
		convs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "conversions_moved_total",
			Help: "Conversions accepted (processing) or finished (completed, failed), by status and who moved them (api, worker)."},
			[]string{"status", "by"}),
	}
	reg.MustRegister(m.accepted, m.finished, m.replays, m.workerPass, m.workerAdv, m.dispPass, m.dispSent,
		m.attempts, m.dead, m.httpReqs, m.httpDur, m.txDur, m.txRetries, m.orders, m.convs)
	return m
}

// PayoutAccepted implements tambala.Metrics.
func (m *Metrics) PayoutAccepted(rail payouts.Rail) { m.accepted.WithLabelValues(string(rail)).Inc() }

// PayoutFinished implements tambala.Metrics.
func (m *Metrics) PayoutFinished(rail payouts.Rail, status payouts.Status, by string) {
	m.finished.WithLabelValues(string(rail), string(status), by).Inc()
}

// IdempotentReplay implements tambala.Metrics.
func (m *Metrics) IdempotentReplay(op tambala.Operation) { m.replays.WithLabelValues(string(op)).Inc() }

// WorkerPass implements tambala.Metrics.
func (m *Metrics) WorkerPass(d time.Duration, advanced int) {
	m.workerPass.Observe(d.Seconds())
	m.workerAdv.Add(float64(advanced))
}

// DispatcherPass implements tambala.Metrics.
func (m *Metrics) DispatcherPass(d time.Duration, sent int) {
	m.dispPass.Observe(d.Seconds())
	m.dispSent.Add(float64(sent))
}

// WebhookAttempt implements tambala.Metrics.
func (m *Metrics) WebhookAttempt(state webhooks.State) {
	m.attempts.WithLabelValues(string(state)).Inc()
	if state == webhooks.Dead {
		m.dead.Inc()
	}
}

// OrderMoved implements tambala.Metrics.
func (m *Metrics) OrderMoved(direction orders.Direction, status orders.Status, by string) {
	m.orders.WithLabelValues(string(direction), string(status), by).Inc()
}

// ConversionMoved implements tambala.Metrics.
func (m *Metrics) ConversionMoved(status tambala.ConversionStatus, by string) {
	m.convs.WithLabelValues(string(status), by).Inc()
}

// ObserveHTTP records one HTTP request: handler is "public" or "admin",
// route the mux pattern that served it ("" when none did), code the
// error code of an error answer. It has the signature of
// httpapi.Options.Observe.
func (m *Metrics) ObserveHTTP(handler, route string, status int, code string, d time.Duration) {
	if route == "" {
		route = "unmatched" // never the raw path: its values are unbounded
	}
	k := httpKey{handler: handler, route: route, status: status, code: code}
	v, ok := m.httpSeries.Load(k)
	if !ok {
		v, _ = m.httpSeries.LoadOrStore(k, &httpSeries{
			reqs: m.httpReqs.WithLabelValues(handler, route, strconv.Itoa(status), code),
			dur:  m.httpDur.WithLabelValues(handler, route)})
	}
	hs := v.(*httpSeries)
	hs.reqs.Inc()
	hs.dur.Observe(d.Seconds())
}

// RegisterBacklog registers gauges read from Engine.Operator().Backlog at each scrape:
// payouts in flight by status, overdue payouts, and the items due now for
// the worker and the dispatcher. A scrape that cannot read them (timeout
// 5 s) reports nothing rather than stale figures.
func RegisterBacklog(reg prometheus.Registerer, e *tambala.Engine) {
	reg.MustRegister(&backlogCollector{e: e,
		inFlight: prometheus.NewDesc(namespace+"_payouts_in_flight", "Payouts not terminal yet, by status.", []string{"status"}, nil),
		overdue:  prometheus.NewDesc(namespace+"_payouts_overdue", "Payouts not terminal, accepted longer ago than the worker's OverdueAfter.", nil, nil),
		due:      prometheus.NewDesc(namespace+"_due_backlog", "Items due now, by loop (payout_worker, webhook_dispatcher).", []string{"loop"}, nil),
	})
}

type backlogCollector struct {
	e                      *tambala.Engine
	inFlight, overdue, due *prometheus.Desc
}

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.inFlight
	ch <- c.overdue
	ch <- c.due
}

func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := c.e.Operator().BackOffice().Backlog(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.overdue, err)
		return
	}
	for _, s := range []payouts.Status{payouts.Held, payouts.Submitted, payouts.Pending} {
		ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(b.PayoutsInFlight[s]), string(s))
	}
	ch <- prometheus.MustNewConstMetric(c.overdue, prometheus.GaugeValue, float64(b.PayoutsOverdue))
	ch <- prometheus.MustNewConstMetric(c.due, prometheus.GaugeValue, float64(b.PayoutsDue), "payout_worker")
	ch <- prometheus.MustNewConstMetric(c.due, prometheus.GaugeValue, float64(b.DeliveriesDue), "webhook_dispatcher")
}

// InstrumentStore wraps s so that every transaction's duration and every
// re-run of an update function is counted; name labels the re-runs (e.g.
// "boltstore").
func (m *Metrics) InstrumentStore(s store.Store, name string) store.Store {
	return &instrumented{Store: s, m: m, reruns: m.txRetries.WithLabelValues(name)}
}

type instrumented struct {
	store.Store
	m      *Metrics
	reruns prometheus.Counter
}

func (s *instrumented) View(ctx context.Context, fn func(store.Tx) error) error {
	start := time.Now()
	err := s.Store.View(ctx, fn)
	s.m.observeTx(0, err, time.Since(start))
	return err
}

func (s *instrumented) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, s.Store.Update, fn)
}

// UpdateLazy is the wrapped store's lazy commit (store.Lazy), or its
// Update when it has none, counted as an update.
func (s *instrumented) UpdateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return s.update(ctx, s.updateLazy, fn)
}

func (s *instrumented) updateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return store.UpdateLazy(ctx, s.Store, fn)
}

// ReadsAhead is the wrapped store's answer (store.AheadReader): the keys
// named on an Update's context reach it with the context.
func (s *instrumented) ReadsAhead() bool { return store.ReadsAheadOf(s.Store) }

// update runs fn by do, timing it and counting its re-runs.
func (s *instrumented) update(ctx context.Context, do func(context.Context, func(store.Tx) error) error, fn func(store.Tx) error) error {
	start := time.Now()
	var runs atomic.Int32
	err := do(ctx, func(tx store.Tx) error {
		if runs.Add(1) > 1 {
			s.reruns.Inc()
		}
		return fn(tx)
	})
	s.m.observeTx(1, err, time.Since(start))
	return err
}

// txKinds are the kind labels of store transactions, by txSeries index.
var txKinds = [2]string{"view", "update"}

// observeTx records a transaction of kind txKinds[kind] that took d and
// ended with err.
func (m *Metrics) observeTx(kind int, err error, d time.Duration) {
	o := 0
	if err != nil {
		o = 1
	}
	slot := &m.txSeries[kind][o]
	obs := slot.Load()
	if obs == nil {
		ob := m.txDur.WithLabelValues(txKinds[kind], outcome(err))
		slot.CompareAndSwap(nil, &ob)
		obs = slot.Load()
	}
	(*obs).Observe(d.Seconds())
}

func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}
