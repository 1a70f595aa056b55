package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Tracing: with -otlp-endpoint (TAMBALA_OTLP_ENDPOINT), or the standard
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, the
// server exports the engine's and the HTTP handlers' spans by OTLP over
// HTTP (protobuf), through a batch span processor flushed at shutdown.
// Otherwise tracing is off and costs nothing. The SDK reads the other
// standard variables itself: OTEL_TRACES_SAMPLER and its argument (the
// default samples every trace, or follows the caller's choice),
// OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*, OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turns it off. These are not TAMBALA_ settings.

// otlpTracesPath is the path of the OTLP/HTTP traces service under an
// endpoint's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT has it.
const otlpTracesPath = "/v1/traces"

// checkOTLPEndpoint tells whether s can be -otlp-endpoint: the base URL of
// an OTLP/HTTP collector (http://collector:4318), to which the traces
// service's path is added as for OTEL_EXPORTER_OTLP_ENDPOINT.
func checkOTLPEndpoint(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("the OTLP endpoint %q does not parse: %w", s, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("the OTLP endpoint %q must be an http or https URL, such as http://collector:4318", s)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return fmt.Errorf("the OTLP endpoint %q must have no query, fragment or user information", s)
	}
	return nil
}

// otelTracing reads the standard variables that turn tracing on or off:
// on says an OTLP endpoint is set, off that tracing is disabled.
func otelTracing(environ []string) (on, off bool) {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":
			on = on || value != ""
		case "OTEL_SDK_DISABLED":
			off = off || strings.EqualFold(strings.TrimSpace(value), "true")
		case "OTEL_TRACES_EXPORTER":
			off = off || strings.EqualFold(strings.TrimSpace(value), "none")
		}
	}
	return on, off
}

// startTracing returns the tracer provider the server's spans go to, nil
// when tracing is off, and the function that flushes and stops it (a no-op
// then).
func startTracing(ctx context.Context, c config, log *slog.Logger) (trace.TracerProvider, func(), error) {
	if c.otelOff || (c.otlpEndpoint == "" && !c.otelEndpoint) {
		return nil, func() {}, nil
	}
	var opts []otlptracehttp.Option
	if c.otlpEndpoint != "" {
		// The flag wins over the standard variables' endpoint.
		u, err := url.Parse(c.otlpEndpoint)
		if err != nil {
			return nil, nil, err
		}
		u.Path = strings.TrimRight(u.Path, "/") + otlpTracesPath
		opts = append(opts, otlptracehttp.WithEndpointURL(u.String()))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "tambala"), attribute.String("service.version", Version()),
			attribute.String("deployment.environment.name", c.env)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, nil, fmt.Errorf("tracing: %w", err)
	}
	// The sampler is the SDK's default, which OTEL_TRACES_SAMPLER changes.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	// Export failures are logged, not printed by the SDK's own logger.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing", slog.Any("error", err)) }))
	log.Info("tracing on: spans exported by OTLP/HTTP")
	return tp, func() {
		// Flush the spans still batched, without holding the stop up for
		// long when the collector is gone.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			log.Warn("tracing: flushing the last spans", slog.Any("error", err))
		}
	}, nil
}
