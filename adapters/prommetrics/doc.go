// Package prommetrics serves the engine's metrics to Prometheus
// (github.com/prometheus/client_golang): it implements tambala.Metrics
// (payouts accepted and finished, idempotent replays, worker and
// dispatcher passes, webhook attempts and dead letters, desk orders and
// conversions by status), instruments a
// store.Store (transaction durations and re-runs of update functions),
// reads the engine's backlog at scrape time (payouts in flight and
// overdue, items due), and observes HTTP requests for adapters/httpapi (by
// route pattern, status and error code, with latency histograms).
//
// The engine knows none of this: it counts through the small
// tambala.Metrics interface, so a host with another metrics system
// implements that instead.
package prommetrics
