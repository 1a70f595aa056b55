package tambala_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// rerunOnce runs the first armed Update's function twice, the first run
// rolled back, as a store does after a write conflict.
type rerunOnce struct {
	store.Store
	armed atomic.Bool
}

var errRolledBack = errors.New("rolled back")

func (s *rerunOnce) Update(ctx context.Context, fn func(store.Tx) error) error {
	if s.armed.CompareAndSwap(true, false) {
		_ = s.Store.Update(ctx, func(tx store.Tx) error {
			_ = fn(tx)
			return errRolledBack
		})
	}
	return s.Store.Update(ctx, fn)
}

// TestTracing_StoreRetries: a transaction the store runs again has one
// span with a retry event and two attempts; a transaction outside any
// span makes none; the use case's span fails with the error's code.
func TestTracing_StoreRetries(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	st := &rerunOnce{Store: memstore.New()}
	e, err := tambala.New(st, &tambala.Options{TracerProvider: tp})
	require.NoError(t, err)
	assert.Same(t, st, e.Settings().Store(), "Store is the store given, not the tracing wrapper")
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Traced"})
	require.NoError(t, err)
	exp.Reset()

	st.armed.Store(true)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 100), "seed"))
	spans := exp.GetSpans()
	var fund, tx tracetest.SpanStub
	for _, s := range spans {
		switch s.Name {
		case "tambala.Operator.Fund":
			fund = s
		case "tambala.store.Update":
			tx = s
		}
	}
	require.Equal(t, "tambala.Operator.Fund", fund.Name)
	require.Equal(t, "tambala.store.Update", tx.Name)
	assert.Equal(t, fund.SpanContext.SpanID(), tx.Parent.SpanID())
	require.Len(t, tx.Events, 1)
	assert.Equal(t, "tambala.store.retry", tx.Events[0].Name)
	for _, kv := range tx.Attributes {
		if kv.Key == "tambala.store.attempts" {
			assert.Equal(t, int64(2), kv.Value.AsInt64())
		}
	}

	// A failed use case: its span and its transaction's carry the code.
	exp.Reset()
	_, err = e.Operator().Organization(ctx, "0190c6a0-0000-7000-8000-000000000000")
	require.Error(t, err)
	for _, s := range exp.GetSpans() {
		assert.Equal(t, codes.Error, s.Status.Code, s.Name)
		assert.Equal(t, "not_found", s.Status.Description, s.Name)
	}

	// Work outside any span: the pass's polls for due items make no span.
	exp.Reset()
	_, err = e.Work().ProcessDeliveries(ctx)
	require.ErrorIs(t, err, tambala.ErrNoWebhookSender)
	assert.Empty(t, exp.GetSpans())
}

// TestTracing_ConverterCalls: the conversion worker's calls of the
// converter are spans naming the conversion.
func TestTracing_ConverterCalls(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	var conv *sandbox.Converter
	d := newDeskEnv(t, memstore.New(), func(o *tambala.Options) {
		conv = sandbox.NewConverter(&sandbox.ConverterOptions{Clock: o.Clock, Delay: convDelay})
		o.Converter = conv
		o.TracerProvider = tp
	})
	_, err := d.e.Operator().SetAssets(d.ctx, d.org.ID, convAssets())
	require.NoError(t, err)
	c := &convEnv{deskEnv: d, conv: conv}
	cv := c.convert(t, "USDT", "MWK", "10")
	c.settle(t)
	seen := map[string]bool{}
	for _, s := range exp.GetSpans() {
		if s.Name != "tambala.converter.Convert" && s.Name != "tambala.converter.Status" {
			continue
		}
		seen[s.Name] = true
		var id string
		for _, kv := range s.Attributes {
			if kv.Key == "tambala.conversion_id" {
				id = kv.Value.AsString()
			}
		}
		assert.Equal(t, cv.ID, id, s.Name)
	}
	assert.True(t, seen["tambala.converter.Convert"])
	assert.True(t, seen["tambala.converter.Status"])
}
