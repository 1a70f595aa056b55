package prommetrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/prommetrics"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/store/storetest"
)

type okSender struct{}

func (okSender) Send(context.Context, string, []byte, string) (tambala.SendResult, error) {
	return tambala.SendResult{StatusCode: 200}, nil
}

// The instrumented store is still a store: it passes the conformance suite.
func TestInstrumentedStoreConforms(t *testing.T) {
	m := prommetrics.New(prometheus.NewRegistry())
	storetest.Run(t, storetest.Features{}, storetest.Harness{
		Open: func(testing.TB, string) store.Store { return m.InstrumentStore(memstore.New(), "memstore") },
	})
}

// aheadStore is a store that reads the keys named on an Update's context.
type aheadStore struct{ store.Store }

func (aheadStore) ReadsAhead() bool { return true }

// The instrumented store passes on whether the store under it reads the
// keys named on an Update's context, so that the engine names them.
func TestInstrumentedStorePassesReadsAheadOn(t *testing.T) {
	m := prommetrics.New(prometheus.NewRegistry())
	assert.False(t, store.ReadsAheadOf(m.InstrumentStore(memstore.New(), "memstore")))
	assert.True(t, store.ReadsAheadOf(m.InstrumentStore(aheadStore{memstore.New()}, "ahead")))
}

func TestEngineMetrics(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	m := prommetrics.New(reg)
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := m.InstrumentStore(memstore.New(), "memstore")
	e, err := tambala.New(s, &tambala.Options{Metrics: m, Clock: clock, Webhooks: okSender{},
		Payouts: sandbox.New(&sandbox.Options{Clock: clock, Delay: time.Second})})
	require.NoError(t, err)
	prommetrics.RegisterBacklog(reg, e)
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "M"})
	require.NoError(t, err)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100_000), "f"))
	_, _, err = e.Operator().SetWebhookEndpoint(ctx, org.ID, "https://hooks.example.com/m")
	require.NoError(t, err)
	p, err := e.Act(ctx, org.ID)
	require.NoError(t, err)
	req := payouts.Request{Rail: payouts.Momo, Amount: money.FromInt(money.MWK, 5000),
		Destination: payouts.Destination{InstitutionID: 101, MobileNumber: "111100000112", BeneficiaryName: "W"}}
	for range 2 { // the second is a replay
		_, err = e.Client(p).V1().CreatePayout(ctx, req, tambala.Idempotency{Key: "k"})
		require.NoError(t, err)
	}
	assert.Equal(t, 1.0, testutil.ToFloat64(counter(t, reg, "tambala_payouts_in_flight", "held")))

	for range 4 {
		_, err := e.Work().ProcessPayouts(ctx)
		require.NoError(t, err)
		now = now.Add(time.Second)
	}
	_, err = e.Work().ProcessDeliveries(ctx)
	require.NoError(t, err)
	m.ObserveHTTP("public", "POST /v1/payouts/momo", 402, "insufficient_funds", time.Millisecond)

	want := `
# HELP tambala_payouts_accepted_total Payouts accepted (replays not counted), by rail.
# TYPE tambala_payouts_accepted_total counter
tambala_payouts_accepted_total{rail="momo"} 1
# HELP tambala_payouts_finished_total Payouts that reached a terminal status, by rail, status (succeeded, failed, reversed) and who finished them (worker, operator).
# TYPE tambala_payouts_finished_total counter
tambala_payouts_finished_total{by="worker",rail="momo",status="succeeded"} 1
# HELP tambala_idempotent_replays_total Creates answered with an outcome decided earlier, by operation.
# TYPE tambala_idempotent_replays_total counter
tambala_idempotent_replays_total{operation="payouts.create.momo"} 1
# HELP tambala_webhook_attempts_total Webhook delivery attempts recorded, by the delivery's state after the attempt (delivered, pending: to be retried, dead).
# TYPE tambala_webhook_attempts_total counter
tambala_webhook_attempts_total{state="delivered"} 1
# HELP tambala_http_requests_total HTTP requests, by handler (public, admin), route pattern, status and error code ("" on success).
# TYPE tambala_http_requests_total counter
tambala_http_requests_total{code="insufficient_funds",handler="public",route="POST /v1/payouts/momo",status="402"} 1
# HELP tambala_payouts_in_flight Payouts not terminal yet, by status.
# TYPE tambala_payouts_in_flight gauge
tambala_payouts_in_flight{status="held"} 0
tambala_payouts_in_flight{status="pending"} 0
tambala_payouts_in_flight{status="submitted"} 0
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want),
		"tambala_payouts_accepted_total", "tambala_payouts_finished_total", "tambala_idempotent_replays_total",
		"tambala_webhook_attempts_total", "tambala_http_requests_total", "tambala_payouts_in_flight"))
	n, err := testutil.GatherAndCount(reg, "tambala_store_transaction_seconds", "tambala_payout_worker_pass_seconds",
		"tambala_webhook_dispatcher_pass_seconds", "tambala_due_backlog", "tambala_payouts_overdue")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 6)
}

// counter finds one gauge or counter series by name and label value.
func counter(t *testing.T, reg *prometheus.Registry, name, value string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, metric := range mf.GetMetric() {
			for _, l := range metric.GetLabel() {
				if l.GetValue() == value {
					g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "x"})
					if metric.Gauge != nil {
						g.Set(metric.GetGauge().GetValue())
					} else {
						g.Set(metric.GetCounter().GetValue())
					}
					return g
				}
			}
		}
	}
	t.Fatalf("no %s{%s}", name, value)
	return nil
}

// The /v2 counters: orders by direction, status and mover; conversions by
// status and mover.
func TestOrderAndConversionCounters(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := prommetrics.New(reg)
	m.OrderMoved(orders.ToBank, orders.Accepted, "api")
	m.OrderMoved(orders.ToBank, orders.Completed, "desk")
	m.OrderMoved(orders.ToBank, orders.Completed, "desk")
	m.ConversionMoved(tambala.ConversionProcessing, "api")
	want := `
# HELP tambala_orders_moved_total Desk orders created in or moved to a status, by direction, status and who moved them (api, desk, sweep).
# TYPE tambala_orders_moved_total counter
tambala_orders_moved_total{by="api",direction="to_bank",status="accepted"} 1
tambala_orders_moved_total{by="desk",direction="to_bank",status="completed"} 2
# HELP tambala_conversions_moved_total Conversions accepted (processing) or finished (completed, failed), by status and who moved them (api, worker).
# TYPE tambala_conversions_moved_total counter
tambala_conversions_moved_total{by="api",status="processing"} 1
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), "tambala_orders_moved_total", "tambala_conversions_moved_total"))
}

// A request of a kind already seen is recorded without an allocation, and
// each is still counted under its own labels.
func TestObserveHTTPNoAllocs(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := prommetrics.New(reg)
	m.ObserveHTTP("public", "POST /v1/payouts/momo", 202, "", time.Millisecond)
	allocs := testing.AllocsPerRun(100, func() {
		m.ObserveHTTP("public", "POST /v1/payouts/momo", 202, "", time.Millisecond)
	})
	assert.Zero(t, allocs)
	m.ObserveHTTP("public", "POST /v1/payouts/momo", 429, "rate_limited", time.Millisecond)
	m.ObserveHTTP("admin", "", 404, "not_found", time.Millisecond)
	reqs, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, mf := range reqs {
		if mf.GetName() != "tambala_http_requests_total" {
			continue
		}
		for _, mt := range mf.GetMetric() {
			var labels []string
			for _, l := range mt.GetLabel() {
				labels = append(labels, l.GetValue())
			}
			got[strings.Join(labels, "|")] = mt.GetCounter().GetValue()
		}
	}
	assert.Equal(t, map[string]float64{
		"|public|POST /v1/payouts/momo|202":             102,
		"rate_limited|public|POST /v1/payouts/momo|429": 1,
		"not_found|admin|unmatched|404":                 1,
	}, got)
}
