package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/portal"
)

// TestTracing: with the engine's tracer provider set, each page request
// is a server span named by its route, continuing the caller's
// traceparent, with the portal's use cases under it; no form value (a
// password, an email) is in any span.
func TestTracing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	e, err := tambala.New(memstore.New(), &tambala.Options{TracerProvider: tp,
		People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := e.People().InviteUser(ctx, tambala.InviteUser{Org: org.ID, Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sessions().AcceptInvitation(ctx, inv.Token, password); err != nil {
		t.Fatal(err)
	}
	h := portal.New(e, &portal.Options{InsecureCookies: true})
	rec.Reset()

	// A wrong password, sent with a caller's traceparent.
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	form := url.Values{"email": {"ada@example.com"}, "password": {"a wrong password, secret"}}
	r := newRequest("POST", "/portal/sign-in", form)
	r.Header.Set("traceparent", parent)
	w := serve(h, r)
	if w.Code != http.StatusUnauthorized {
		t.Fatalf("sign-in: %d", w.Code)
	}
	server, signIn := find(rec.Ended(), "POST /portal/sign-in"), find(rec.Ended(), "tambala.Portal.SignIn")
	if server == nil || signIn == nil {
		t.Fatalf("spans: %v", names(rec.Ended()))
	}
	if server.SpanKind() != trace.SpanKindServer || server.SpanContext().TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("the server span does not continue the caller's trace: %v %v", server.SpanKind(), server.SpanContext().TraceID())
	}
	if signIn.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Errorf("the use case is not under the request")
	}
	if got := attr(server, "http.response.status_code"); got.AsInt64() != 401 {
		t.Errorf("status attribute %v", got)
	}
	if got := attr(signIn, "tambala.error_code"); got.AsString() == "" {
		t.Errorf("the refused sign-in records no error code")
	}

	// A signed-in page: its route, its use cases under it.
	res, err := e.Sessions().SignIn(ctx, "ada@example.com", password)
	if err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	if w := do(h, "GET", "/portal/keys", res.Token, nil); w.Code != http.StatusOK {
		t.Fatalf("keys: %d", w.Code)
	}
	page := find(rec.Ended(), "GET /portal/keys")
	session := find(rec.Ended(), "tambala.Portal.Session")
	if page == nil || session == nil || session.Parent().SpanID() != page.SpanContext().SpanID() {
		t.Fatalf("spans of a page: %v", names(rec.Ended()))
	}
	for _, s := range rec.Ended() {
		for _, kv := range s.Attributes() {
			v := kv.Value.Emit()
			if strings.Contains(v, "secret") || strings.Contains(v, "ada@example.com") || strings.Contains(v, res.Token) {
				t.Errorf("span %s carries %s=%s", s.Name(), kv.Key, v)
			}
		}
	}
}

func newRequest(method, target string, form url.Values) *http.Request {
	r, _ := http.NewRequest(method, "http://portal.test"+target, strings.NewReader(form.Encode()))
	r.RemoteAddr = "192.0.2.1:1234"
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return r
}

func serve(h http.Handler, r *http.Request) *recorder {
	w := &recorder{header: http.Header{}}
	h.ServeHTTP(w, r)
	return w
}

type recorder struct {
	header http.Header
	Code   int
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.Code == 0 {
		r.Code = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.Code == 0 {
		r.Code = http.StatusOK
	}
	return len(b), nil
}

func find(spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	for _, s := range spans {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var n []string
	for _, s := range spans {
		n = append(n, s.Name())
	}
	return n
}

func attr(s sdktrace.ReadOnlySpan, key string) attribute.Value {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}
