package webui

import (
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala"
)

// TracerOf returns the pages' tracer for engine: its TracerProvider's, or
// nil (no span) when the engine traces nothing.
func TracerOf(engine *tambala.Engine, name string) trace.Tracer {
	tp := engine.Settings().TracerProvider()
	if tp == nil {
		return nil
	}
	return tp.Tracer(name)
}

// traceRequest starts r's server span (Site.Tracer), named by the route
// pattern of Site.Routes that serves it (the method and the pattern), child of a W3C
// traceparent the request carries, and returns r and w to serve it with
// and the function that ends the span with the answer's status. The span
// holds the method, the route and the status: never the path (an id in
// it is the route's business), the query, a cookie or a form field.
func (s *Site) traceRequest(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, func()) {
	ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	route := ""
	if s.Routes != nil {
		_, route = s.Routes.Handler(r)
	}
	name := r.Method
	if route != "" {
		name = route
		if route[0] == '/' {
			name = r.Method + " " + route
		}
	}
	ctx, sp := s.Tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.String("http.request.method", r.Method), attribute.String("http.route", route)))
	sw := &statusWriter{ResponseWriter: w}
	return sw, r.WithContext(ctx), func() {
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		sp.SetAttributes(attribute.Int("http.response.status_code", status))
		if status >= 500 {
			sp.SetStatus(codes.Error, http.StatusText(status))
		}
		sp.End()
	}
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
