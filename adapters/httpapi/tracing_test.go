package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tambalapay/tambala"
)

// hookSender records the webhook sends and answers 200.
type hookSender struct {
	mu    sync.Mutex
	sends int
}

func (s *hookSender) Send(ctx context.Context, url string, body []byte, sig string) (tambala.SendResult, error) {
	s.mu.Lock()
	s.sends++
	s.mu.Unlock()
	return tambala.SendResult{StatusCode: 200}, nil
}

// tracedEnv is a test environment whose engine and handlers trace into an
// in-memory exporter, and whose log lines are observed.
func tracedEnv(t *testing.T) (*testEnv, *tracetest.InMemoryExporter, *observer.ObservedLogs, *hookSender) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	core, logs := observer.New(zapcore.InfoLevel)
	sender := &hookSender{}
	e := newEnv(t, withSandboxProvider(0), withLogger(zap.New(core)), withEngineOptions(func(o *tambala.Options) {
		o.TracerProvider = tp
		o.Webhooks = sender
	}))
	return e, exp, logs, sender
}

func spanNamed(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	t.Fatalf("no span %q among %v", name, names)
	return tracetest.SpanStub{}
}

func childrenOf(spans tracetest.SpanStubs, parent tracetest.SpanStub) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range spans {
		if s.Parent.SpanID() == parent.SpanContext.SpanID() && s.SpanContext.TraceID() == parent.SpanContext.TraceID() {
			out = append(out, s)
		}
	}
	return out
}

func attrOf(s tracetest.SpanStub, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// TestTracing_PayoutAcceptedOverHTTP: a payout accepted over HTTP makes
// the request span, under it the use case's span, under that the store
// transaction's, all in one trace; the worker's provider call and the
// webhook send make their spans; the access log line carries the trace
// id; no attribute holds a secret or the beneficiary's details.
func TestTracing_PayoutAcceptedOverHTTP(t *testing.T) {
	e, exp, logs, sender := tracedEnv(t)
	org, key := e.newOrg(t, orgSpec{fundMWK: 1_000_000})
	_, secret, err := e.Engine.Operator().SetWebhookEndpoint(context.Background(), org.ID, "https://hooks.example.com/in?token=sekrit")
	require.NoError(t, err)
	exp.Reset()

	var p payoutJSON
	e.do(t, "POST", "/v1/payouts/momo", momoBody("1000"), hdr(key, "Idempotency-Key", "trace-1")).want(t, 202, "").decode(t, &p)
	spans := exp.GetSpans()
	server := spanNamed(t, spans, "POST /v1/payouts/momo")
	assert.Equal(t, trace.SpanKindServer, server.SpanKind)
	assert.False(t, server.Parent.IsValid(), "no traceparent: a root span")
	for k, want := range map[string]attribute.Value{
		"http.request.method":       attribute.StringValue("POST"),
		"http.route":                attribute.StringValue("POST /v1/payouts/momo"),
		"http.response.status_code": attribute.IntValue(202),
	} {
		got, ok := attrOf(server, k)
		assert.True(t, ok, k)
		assert.Equal(t, want, got, k)
	}
	useCase := spanNamed(t, childrenOf(spans, server), "tambala.CreatePayout")
	orgAttr, _ := attrOf(useCase, "tambala.org_id")
	assert.Equal(t, org.ID, orgAttr.AsString())
	assert.Equal(t, codes.Unset, useCase.Status.Code)
	tx := spanNamed(t, childrenOf(spans, useCase), "tambala.store.Update")
	attempts, ok := attrOf(tx, "tambala.store.attempts")
	assert.True(t, ok)
	assert.Equal(t, int64(1), attempts.AsInt64())
	spanNamed(t, childrenOf(spans, server), "tambala.Authenticate")
	for _, s := range spans {
		assert.Equal(t, server.SpanContext.TraceID(), s.SpanContext.TraceID(), "%s is in the request's trace", s.Name)
	}

	// The access log line carries the trace id beside the request id.
	lines := logs.FilterMessage("request").All()
	require.NotEmpty(t, lines)
	last := lines[len(lines)-1].ContextMap()
	assert.Equal(t, server.SpanContext.TraceID().String(), last["trace_id"])
	assert.NotEmpty(t, last["request_id"])

	// The worker: the provider's submit, then the webhook sends.
	n, err := e.Engine.Work().ProcessPayouts(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	submit := spanNamed(t, exp.GetSpans(), "tambala.provider.Submit")
	assert.Equal(t, trace.SpanKindClient, submit.SpanKind)
	id, _ := attrOf(submit, "tambala.payout_id")
	assert.Equal(t, p.ID, id.AsString())
	// The poll finds it paid: payout.succeeded is to be sent.
	e.Clock.Advance(time.Minute)
	n, err = e.Engine.Work().ProcessPayouts(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	poll := spanNamed(t, exp.GetSpans(), "tambala.provider.Status")
	state, _ := attrOf(poll, "tambala.provider.state")
	assert.NotEmpty(t, state.AsString())
	n, err = e.Engine.Work().ProcessDeliveries(context.Background())
	require.NoError(t, err)
	require.Positive(t, n)
	require.Positive(t, sender.sends)
	send := spanNamed(t, exp.GetSpans(), "tambala.webhook.Send")
	status, _ := attrOf(send, "http.response.status_code")
	assert.Equal(t, int64(200), status.AsInt64())
	typ, _ := attrOf(send, "tambala.event_type")
	assert.True(t, strings.HasPrefix(typ.AsString(), "payout."), typ.AsString())

	// No secret, no personal detail in any span.
	for _, s := range exp.GetSpans() {
		text := s.Name + " " + s.Status.Description + fmt.Sprint(s.Attributes)
		for _, ev := range s.Events {
			text += " " + ev.Name + fmt.Sprint(ev.Attributes)
		}
		for _, bad := range []string{key, key[16:], secret, secret[10:], "Chisomo", "265991234567", "sekrit", "hooks.example.com"} {
			assert.NotContains(t, text, bad, "span %s", s.Name)
		}
	}
}

// TestTracing_TraceparentContinues: a caller's W3C traceparent makes the
// request span its child, in its trace.
func TestTracing_TraceparentContinues(t *testing.T) {
	e, exp, _, _ := tracedEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 1_000})
	exp.Reset()
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	e.do(t, "GET", "/v1/balance", nil, hdr(key, "traceparent", "00-"+traceID+"-"+parentID+"-01")).want(t, 200, "")
	server := spanNamed(t, exp.GetSpans(), "GET /v1/balance")
	assert.Equal(t, traceID, server.SpanContext.TraceID().String())
	assert.Equal(t, parentID, server.Parent.SpanID().String())
	assert.True(t, server.Parent.IsRemote())
	useCase := spanNamed(t, childrenOf(exp.GetSpans(), server), "tambala.BalanceV1")
	assert.Equal(t, traceID, useCase.SpanContext.TraceID().String())
}

// TestTracing_ErrorAnswerRecordsTheCode: an error answer puts its code on
// the request span and fails the use case's span with it.
func TestTracing_ErrorAnswerRecordsTheCode(t *testing.T) {
	e, exp, logs, _ := tracedEnv(t)
	_, key := e.newOrg(t, orgSpec{fundMWK: 1_000})
	exp.Reset()
	e.do(t, "GET", "/v1/payouts/0190c6a0-0000-7000-8000-000000000000", nil, hdr(key)).want(t, 404, "not_found")
	server := spanNamed(t, exp.GetSpans(), "GET /v1/payouts/{id}")
	code, ok := attrOf(server, "tambala.error_code")
	assert.True(t, ok)
	assert.Equal(t, "not_found", code.AsString())
	assert.Equal(t, codes.Unset, server.Status.Code, "a 4xx is the caller's error, not the server's")
	useCase := spanNamed(t, childrenOf(exp.GetSpans(), server), "tambala.Payout")
	assert.Equal(t, codes.Error, useCase.Status.Code)
	assert.Equal(t, "not_found", useCase.Status.Description)
	code, _ = attrOf(useCase, "tambala.error_code")
	assert.Equal(t, "not_found", code.AsString())

	// An unknown key: the Authenticate span fails with unauthorized.
	exp.Reset()
	e.do(t, "GET", "/v1/balance", nil, hdr("tmb_test_nope0123456789abcdefghijklmnopqrstuvwxyz")).want(t, 401, "unauthorized")
	server = spanNamed(t, exp.GetSpans(), "GET /v1/balance")
	code, _ = attrOf(server, "tambala.error_code")
	assert.Equal(t, "unauthorized", code.AsString())
	lines := logs.FilterMessage("request").All()
	assert.Equal(t, server.SpanContext.TraceID().String(), lines[len(lines)-1].ContextMap()["trace_id"])
}

// TestTracing_OffByDefault: without a tracer provider the log lines have
// no trace_id.
func TestTracing_OffByDefault(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	e := newEnv(t, withLogger(zap.New(core)))
	_, key := e.newOrg(t, orgSpec{fundMWK: 1_000})
	e.do(t, "GET", "/v1/balance", nil, hdr(key, "traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).want(t, 200, "")
	lines := logs.FilterMessage("request").All()
	require.NotEmpty(t, lines)
	_, ok := lines[len(lines)-1].ContextMap()["trace_id"]
	assert.False(t, ok)
	assert.Nil(t, e.Engine.Settings().TracerProvider())
}
