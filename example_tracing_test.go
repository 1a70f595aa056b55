package tambala_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
)

// A host's tracer provider continues into the engine: each use case is a
// span under the caller's, with its store transactions under it. Here an
// in-memory recorder stands for the host's exporter.
func ExampleOptions_tracerProvider() {
	ctx := context.Background()
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	defer tp.Shutdown(ctx)

	eng, err := tambala.New(memstore.New(), &tambala.Options{TracerProvider: tp})
	if err != nil {
		panic(err)
	}
	ctx, request := tp.Tracer("host").Start(ctx, "host: onboard a customer")
	org, err := eng.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme"})
	if err != nil {
		panic(err)
	}
	_, err = eng.Operator().Organization(ctx, org.ID)
	if err != nil {
		panic(err)
	}
	request.End()

	for _, s := range recorder.Ended() {
		fmt.Printf("%-40s same trace: %v\n", s.Name(), s.SpanContext().TraceID() == request.SpanContext().TraceID())
	}
	// Output:
	// tambala.store.Update                     same trace: true
	// tambala.Operator.CreateOrganization      same trace: true
	// tambala.store.View                       same trace: true
	// tambala.Operator.Organization            same trace: true
	// host: onboard a customer                 same trace: true
}
