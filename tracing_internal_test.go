package tambala

import (
	"context"
	"errors"
	"testing"

	"github.com/tambalapay/tambala/adapters/memstore"
)

// TestTracing_OffCostsNothing: with no tracer provider the store is not
// wrapped and a face's span allocates nothing, failed or not.
func TestTracing_OffCostsNothing(t *testing.T) {
	st := memstore.New()
	e, err := New(st, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The store is wrapped for the session check and for the event
	// subscribers, not for tracing.
	if e.store != (sessionStore{Store: eventsStore{Store: st, stream: e.stream}, e: e}) || e.tracer != nil {
		t.Fatal("tracing off: the store is wrapped")
	}
	ctx := context.Background()
	c := e.Client(Principal{})
	failed := errors.New("x")
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		ctx, span := c.span(ctx, "tambala.Test")
		_ = ctx
		span.end(&err)
		err = failed
		_, span = e.startSpan(ctx, "tambala.Test", 0)
		span.end(&err)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per call with tracing off", allocs)
	}
}
