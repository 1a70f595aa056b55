package tambala

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
	"github.com/tambalapay/tambala/webhooks"
)

// Tracing (OpenTelemetry). With Options.TracerProvider nil the engine makes
// no span at all: e.tracer is nil, the store is not wrapped and every span
// helper returns at once, so tracing off costs a nil check per call and
// no allocation.
//
// The spans:
//
//   - one per call of a face (Client, Operator, OrgAdmin, People,
//     Approvals), the use case: "tambala.CreatePayout" for a Client call,
//     "tambala.Operator.Fund" (the face's name first) for the others;
//   - one per store transaction made under another span,
//     "tambala.store.Update" or "tambala.store.View", with the number of
//     runs of the transaction (tambala.store.attempts) and an event
//     tambala.store.retry for each run after the first;
//   - one per payout provider call ("tambala.provider.Submit",
//     "tambala.provider.Status"), converter call ("tambala.converter.Convert",
//     "tambala.converter.Status") and webhook send ("tambala.webhook.Send"),
//     children of the caller's span or, in Run's workers, roots.
//
// A failed span has status Error described by the error's stable code
// (errcode.Of), also in the attribute tambala.error_code; an error's text is
// never recorded. Attributes carry ids and codes only: never a key, a
// secret, a name, an account number or an address.

// instrumentationName names the engine's tracer.
const instrumentationName = "github.com/tambalapay/tambala"

// Attribute keys the engine's spans carry.
const (
	attrErrorCode     = attribute.Key("tambala.error_code")
	attrOrg           = attribute.Key("tambala.org_id")
	attrPayout        = attribute.Key("tambala.payout_id")
	attrRail          = attribute.Key("tambala.rail")
	attrConversion    = attribute.Key("tambala.conversion_id")
	attrDelivery      = attribute.Key("tambala.delivery_id")
	attrEventType     = attribute.Key("tambala.event_type")
	attrAttempts      = attribute.Key("tambala.store.attempts")
	attrAttempt       = attribute.Key("tambala.store.attempt")
	attrConflict      = attribute.Key("tambala.store.conflict")
	attrProviderState = attribute.Key("tambala.provider.state")
	attrHTTPStatus    = attribute.Key("http.response.status_code")
)

// tracerOf returns the engine's tracer from tp, nil when tp is nil.
func tracerOf(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		return nil
	}
	return tp.Tracer(instrumentationName)
}

// tracerProviderOfEngine is Settings.TracerProvider.
func (e *Engine) tracerProviderOfEngine() trace.TracerProvider { return e.tp }

// span is one of the engine's spans, or nothing when tracing is off: its
// methods do nothing then.
type span struct{ s trace.Span }

// startSpan starts the span name under ctx's span; with tracing off it
// returns ctx and no span, allocating nothing.
func (e *Engine) startSpan(ctx context.Context, name string, kind trace.SpanKind) (context.Context, span) {
	if e.tracer == nil {
		return ctx, span{}
	}
	ctx, s := e.tracer.Start(ctx, name, trace.WithSpanKind(kind))
	return ctx, span{s}
}

// set adds an attribute.
func (s span) set(kv attribute.KeyValue) {
	if s.s != nil {
		s.s.SetAttributes(kv)
	}
}

// end ends the span, failed with *errp's code when *errp is not nil.
func (s span) end(errp *error) {
	if s.s == nil {
		return
	}
	if errp != nil && *errp != nil {
		fail(s.s, *errp)
	}
	s.s.End()
}

// endErr is end for an error at hand.
func (s span) endErr(err error) { s.end(&err) }

// fail marks sp failed with err's stable code (never its text, which may
// carry what an attribute must not).
func fail(sp trace.Span, err error) {
	code := string(errcode.Of(err))
	sp.SetAttributes(attrErrorCode.String(code))
	sp.SetStatus(codes.Error, code)
}

// The faces' spans: the use case named by the face's method.

// tracedStore makes a span of every transaction run under a span (a
// transaction outside any, such as a worker's poll for due items, makes
// none, so that the background loops do not flood the exporter).
type tracedStore struct {
	store.Store
	tracer trace.Tracer
}

func (s tracedStore) View(ctx context.Context, fn func(store.Tx) error) error {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return s.Store.View(ctx, fn)
	}
	return s.run(ctx, "tambala.store.View", s.Store.View, fn)
}

func (s tracedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return s.Store.Update(ctx, fn)
	}
	return s.run(ctx, "tambala.store.Update", s.Store.Update, fn)
}

// UpdateLazy is the lazy commit (store.Lazy) of the store wrapped, under
// the span of an Update: what differs is only when it is durable.
func (s tracedStore) UpdateLazy(ctx context.Context, fn func(store.Tx) error) error {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return store.UpdateLazy(ctx, s.Store, fn)
	}
	return s.run(ctx, "tambala.store.Update", s.updateLazy, fn)
}

func (s tracedStore) updateLazy(ctx context.Context, fn func(store.Tx) error) error {
	return store.UpdateLazy(ctx, s.Store, fn)
}

// run runs fn by do under a span counting its runs: a store runs an
// update's function again after a write conflict.
func (s tracedStore) run(ctx context.Context, name string, do func(context.Context, func(store.Tx) error) error, fn func(store.Tx) error) error {
	ctx, sp := s.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal))
	var runs atomic.Int64
	err := do(ctx, func(tx store.Tx) error {
		if n := runs.Add(1); n > 1 {
			sp.AddEvent("tambala.store.retry", trace.WithAttributes(attrAttempt.Int64(n)))
		}
		return fn(tx)
	})
	sp.SetAttributes(attrAttempts.Int64(runs.Load()))
	if err != nil {
		if errors.Is(err, store.ErrConflict) {
			sp.SetAttributes(attrConflict.Bool(true))
		}
		fail(sp, err)
	}
	sp.End()
	return err
}

// The ports' calls.

func (e *Engine) providerSubmit(ctx context.Context, s PayoutSubmission) error {
	ctx, sp := e.startSpan(ctx, "tambala.provider.Submit", trace.SpanKindClient)
	sp.set(attrPayout.String(s.Reference))
	sp.set(attrRail.String(string(s.Rail)))
	err := e.provider.Submit(ctx, s)
	sp.endErr(err)
	return err
}

func (e *Engine) providerStatus(ctx context.Context, reference string) (ProviderStatus, error) {
	ctx, sp := e.startSpan(ctx, "tambala.provider.Status", trace.SpanKindClient)
	sp.set(attrPayout.String(reference))
	st, err := e.provider.Status(ctx, reference)
	if err == nil {
		sp.set(attrProviderState.String(string(st.State)))
	}
	sp.endErr(err)
	return st, err
}

func (e *Engine) converterConvert(ctx context.Context, req ConversionRequest) error {
	ctx, sp := e.startSpan(ctx, "tambala.converter.Convert", trace.SpanKindClient)
	sp.set(attrConversion.String(req.Reference))
	err := e.converter.Convert(ctx, req)
	sp.endErr(err)
	return err
}

func (e *Engine) converterStatus(ctx context.Context, reference string) (ConverterStatus, error) {
	ctx, sp := e.startSpan(ctx, "tambala.converter.Status", trace.SpanKindClient)
	sp.set(attrConversion.String(reference))
	st, err := e.converter.Status(ctx, reference)
	sp.endErr(err)
	return st, err
}

// webhookSend sends one delivery attempt. The endpoint's URL is not an
// attribute (its query may carry the receiver's token), nor is the
// signature or the body.
func (e *Engine) webhookSend(ctx context.Context, d deliveryRecord, sig string) (SendResult, error) {
	ctx, sp := e.startSpan(ctx, "tambala.webhook.Send", trace.SpanKindClient)
	sp.set(attrDelivery.String(d.ID))
	sp.set(attrOrg.String(d.Org))
	sp.set(attrEventType.String(d.EventType))
	res, err := e.sender.Send(ctx, d.URL, d.Body, sig)
	if res.StatusCode != 0 {
		sp.set(attrHTTPStatus.Int(res.StatusCode))
	}
	if err == nil && res.StatusCode >= 300 {
		// A refusal by the receiver is a failed send too.
		if sp.s != nil {
			sp.s.SetStatus(codes.Error, "webhook_refused")
		}
	}
	sp.endErr(err)
	return res, err
}

// noMetrics counts nothing.
type noMetrics struct{}

func (noMetrics) PayoutAccepted(payouts.Rail)                         {}
func (noMetrics) PayoutFinished(payouts.Rail, payouts.Status, string) {}
func (noMetrics) IdempotentReplay(Operation)                          {}
func (noMetrics) WorkerPass(time.Duration, int)                       {}
func (noMetrics) DispatcherPass(time.Duration, int)                   {}
func (noMetrics) WebhookAttempt(webhooks.State)                       {}
func (noMetrics) OrderMoved(orders.Direction, orders.Status, string)  {}
func (noMetrics) ConversionMoved(ConversionStatus, string)            {}

// stateChange is a payout's move, reported once its transaction commits.
type stateChange struct {
	id, org  string
	rail     payouts.Rail
	from, to payouts.Status
	by       string
}

// reportPayout logs a committed payout state change at info level and
// counts a finish.
func (e *Engine) reportPayout(c stateChange) {
	if c.to == "" || c.from == c.to {
		return
	}
	if e.log.Enabled(context.Background(), slog.LevelInfo) { // the attributes cost allocations even when dropped
		e.log.LogAttrs(context.Background(), slog.LevelInfo, "payout", slog.String("payout", c.id), slog.String("org", c.org),
			slog.String("rail", string(c.rail)), slog.String("from", string(c.from)), slog.String("to", string(c.to)), slog.String("by", c.by))
	}
	if c.to.Terminal() {
		e.metrics.PayoutFinished(c.rail, c.to, c.by)
	}
}

// TracerProvider returns Options.TracerProvider, nil when tracing is off.
// A transport in front of the engine (adapters/httpapi) takes it as its
// default, so that one option turns tracing on end to end.
func (u Settings) TracerProvider() trace.TracerProvider {
	return u.x.tracerProviderOfEngine()
}
