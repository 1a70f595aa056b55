package httpapi

import (
	"log/slog"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala"
)

// Tracing: serve makes one server span per request, named by the route
// pattern that serves it ("POST /v1/payouts"; the method alone when no
// route does), child of the caller's span when the request carries a W3C
// traceparent header. The span carries the method, the route, the status
// and, for an error answer, its code; never the path (it holds ids only,
// but the route is what groups requests), a header, the query or the body.
// The log lines of a traced request carry trace_id beside request_id.
//
// This is a small middleware over the otel API rather than otelhttp: it
// names the span by the route the mux chose (otelhttp sees the request
// before routing), adds nothing to an untraced handler, and does not pull
// otelhttp's metrics and its dependencies in.

// propagator reads the caller's trace context (W3C traceparent and
// tracestate).
var propagator = propagation.TraceContext{}

// tracerOf returns the handlers' tracer: opts' provider, else the engine's
// (nil, tracing off, when neither is set).
func tracerOf(engine *tambala.Engine, tp trace.TracerProvider) trace.Tracer {
	if tp == nil && engine != nil {
		tp = engine.Settings().TracerProvider()
	}
	if tp == nil {
		return nil
	}
	return tp.Tracer("github.com/tambalapay/tambala/adapters/httpapi")
}

// startRequestSpan starts r's server span under its remote parent, if
// any, and returns r with the span in its context.
func startRequestSpan(tracer trace.Tracer, r *http.Request, mux *http.ServeMux, li *logInfo) (*http.Request, trace.Span) {
	ctx := propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	_, route := mux.Handler(r)
	name := r.Method
	if route != "" {
		name = route
		if len(route) > 0 && route[0] == '/' {
			name = r.Method + " " + route
		}
	}
	ctx, sp := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("http.request.method", r.Method), attribute.String("http.route", route)))
	if sc := sp.SpanContext(); sc.IsValid() {
		li.traceID = sc.TraceID().String()
	}
	return r.WithContext(ctx), sp
}

// endRequestSpan ends the request's span with its status: a 5xx answer is
// an error of the span, a 4xx the caller's (semantic conventions for
// server spans); the error code is recorded either way.
func endRequestSpan(sp trace.Span, status int, li *logInfo) {
	sp.SetAttributes(attribute.Int("http.response.status_code", status))
	if li.code != "" {
		sp.SetAttributes(attribute.String("tambala.error_code", string(li.code)))
	}
	if status >= 500 {
		sp.SetStatus(codes.Error, string(li.code))
	}
	sp.End()
}

// appendTrace appends the trace_id attribute of a traced request's log
// lines to attrs; an untraced request's lines have none.
func appendTrace(attrs []slog.Attr, r *http.Request) []slog.Attr {
	if li := logInfoFrom(r.Context()); li != nil && li.traceID != "" {
		return append(attrs, slog.String("trace_id", li.traceID))
	}
	return attrs
}
