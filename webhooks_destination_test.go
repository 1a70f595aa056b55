package tambala_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/webhooks"
)

// internalTLSReceiver is an https receiver on loopback standing for a
// page inside the operator's network: it counts what reaches it, and its
// client's transport trusts its certificate and dials it for any
// *.example.com name (httptest's own mapping: no DNS).
func internalTLSReceiver(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		_, _ = w.Write([]byte("<html>internal page</html>"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestWebhookProductionRefusesInternalURLs: in production every way of
// naming the operator's own network is refused when the URL is set, with
// validation_error; a public https URL is still taken.
func TestWebhookProductionRefusesInternalURLs(t *testing.T) {
	ctx := context.Background()
	prod, err := tambala.New(memstore.New(), &tambala.Options{Environment: tambala.Production})
	require.NoError(t, err)
	org, err := prod.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme"})
	require.NoError(t, err)
	for _, u := range []string{
		"https://127.0.0.1:1", "https://127.0.0.1:8081/console/sign-in", "https://localhost/x", "https://[::1]/x",
		"https://169.254.169.254/latest/meta-data/", "https://10.0.0.1/x", "https://192.168.1.1/x", "https://172.16.0.1/x",
		"https://100.64.0.1/x", "https://[fd00::1]/x", "https://[fe80::1]/x", "https://[::ffff:127.0.0.1]/x",
		"https://metadata.google.internal/computeMetadata/v1/", "https://db.internal/x", "https://printer.local/x",
		"https://2130706433/x", "https://0x7f000001/x", "https://0177.0.0.1/x", "https://127.1/x", "https://0.0.0.0/x",
		"https://intranet/x",
	} {
		_, _, err := prod.Operator().SetWebhookEndpoint(ctx, org.ID, u)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), u)
	}
	_, ok, err := prod.Operator().WebhookEndpoint(ctx, org.ID)
	require.NoError(t, err)
	assert.False(t, ok, "nothing was set")
	_, _, err = prod.Operator().SetWebhookEndpoint(ctx, org.ID, "https://hooks.example.com/x")
	require.NoError(t, err)
}

// pendingDelivery is an organization with one pending delivery, made on
// a sandbox engine over the env's store.
func pendingDelivery(t *testing.T, url string) *whEnv {
	t.Helper()
	env := newWHEnv(t, memstore.New(), nil)
	env.setEndpoint(t, env.p.Org.ID, url)
	env.collect(t, 100)
	require.Len(t, env.deliveries(t), 1)
	return env
}

// refusedAttempt asserts the delivery's only attempt failed as a refused
// destination, with no status and no answer.
func refusedAttempt(t *testing.T, e *tambala.Engine, org string) {
	t.Helper()
	ds := allDeliveries(t, e, org, 10)
	require.Len(t, ds, 1)
	assert.Equal(t, webhooks.Pending, ds[0].State)
	require.Len(t, ds[0].Attempts, 1)
	a := ds[0].Attempts[0]
	assert.Equal(t, "destination refused", a.Error)
	assert.Zero(t, a.StatusCode)
	assert.Empty(t, a.Response)
}

// TestWebhookNameResolvingToLoopbackRefusedAtDial: in production a URL
// whose name passes when it is set, but which reaches loopback when
// dialled, fails the attempt with the fixed wording and no answer; the
// receiver is never asked.
func TestWebhookNameResolvingToLoopbackRefusedAtDial(t *testing.T) {
	srv, hits := internalTLSReceiver(t)
	env := pendingDelivery(t, "https://hooks.example.com/start")
	prod, err := tambala.New(env.store, &tambala.Options{Environment: tambala.Production, Clock: env.clock.Now,
		Webhooks: webhookhttp.NewSender(srv.Client().Transport)})
	require.NoError(t, err)
	_, _, err = prod.Operator().SetWebhookEndpoint(context.Background(), env.p.Org.ID, "https://rebind.example.com/hook")
	require.NoError(t, err, "a public-looking name passes when it is set")
	assert.Equal(t, 1, dispatchWith(t, prod))
	refusedAttempt(t, prod, env.p.Org.ID)
	assert.Zero(t, hits.Load())
}

// TestWebhookStoredInternalURLNotSent: an endpoint set before the rule
// (here by a sandbox engine over the same store) is checked again before
// each send: production refuses it without dialling.
func TestWebhookStoredInternalURLNotSent(t *testing.T) {
	srv, hits := internalTLSReceiver(t)
	env := pendingDelivery(t, srv.URL+"/hook")
	prod, err := tambala.New(env.store, &tambala.Options{Environment: tambala.Production, Clock: env.clock.Now,
		Webhooks: webhookhttp.NewSender(srv.Client().Transport)})
	require.NoError(t, err)
	assert.Equal(t, 1, dispatchWith(t, prod))
	refusedAttempt(t, prod, env.p.Org.ID)
	assert.Zero(t, hits.Load())
}

// TestWebhookSandboxOwnListenerRefusedAtDial: the sandbox lets loopback
// receivers in, never the host's own listeners, even by a name that only
// resolves to one at dial time.
func TestWebhookSandboxOwnListenerRefusedAtDial(t *testing.T) {
	srv, hits := internalTLSReceiver(t)
	own := srv.Listener.Addr().String()
	env := newWHEnv(t, memstore.New(), nil, func(o *tambala.Options) {
		o.Webhooks = webhookhttp.NewSender(srv.Client().Transport)
		o.OwnListeners = append(o.OwnListeners, mustAddrPort(t, own))
	})
	_, _, err := env.engine.Operator().SetWebhookEndpoint(context.Background(), env.p.Org.ID, srv.URL+"/hook")
	assert.Equal(t, errcode.ValidationError, errcode.Of(err), "by address: refused when it is set")
	env.setEndpoint(t, env.p.Org.ID, "https://console.example.com/hook")
	env.collect(t, 100)
	assert.Equal(t, 1, env.dispatch(t))
	refusedAttempt(t, env.engine, env.p.Org.ID)
	assert.Zero(t, hits.Load())
}

// TestWebhookFailuresInFixedWording: a failed attempt is recorded and shown
// in one fixed wording per class, never the raw error (which named the
// address and port, and told a refused port from a listening one).
func TestWebhookFailuresInFixedWording(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	refusedURL := closed.URL + "/hook"
	closed.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	for url, want := range map[string]string{
		refusedURL: "connection refused",
		"https://" + strings.TrimPrefix(plain.URL, "http://") + "/hook": "TLS handshake failed",
	} {
		env := pendingDelivery(t, url)
		env.dispatch(t)
		a := env.only(t).Attempts
		require.Len(t, a, 1)
		assert.Equal(t, want, a[0].Error, url)
		assert.Zero(t, a[0].StatusCode)
		assert.Empty(t, a[0].Response)
	}
}

// TestWebhookAnswersOfRefusedDestinationsHidden: what an attempt fetched
// from a destination the rule refuses now is never shown, nor more than
// webhooks.MaxResponse bytes of any answer.
func TestWebhookAnswersOfRefusedDestinationsHidden(t *testing.T) {
	rc := newWHReceiverFunc(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("<html>" + strings.Repeat("internal ", 500) + "</html>"))
	})
	env := newWHEnv(t, memstore.New(), rc)
	env.collect(t, 100)
	env.dispatch(t)
	a := env.only(t).Attempts
	require.Len(t, a, 1)
	assert.Len(t, a[0].Response, webhooks.MaxResponse, "the sandbox shows a loopback receiver's answer, capped")

	prod, err := tambala.New(env.store, &tambala.Options{Environment: tambala.Production, Clock: env.clock.Now})
	require.NoError(t, err)
	ds := allDeliveries(t, prod, env.p.Org.ID, 10)
	require.Len(t, ds, 1)
	require.Len(t, ds[0].Attempts, 1)
	assert.Empty(t, ds[0].Attempts[0].Response, "production shows nothing a loopback address answered")
	assert.Equal(t, http.StatusInternalServerError, ds[0].Attempts[0].StatusCode)
}

func mustAddrPort(t *testing.T, s string) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(s)
	require.NoError(t, err)
	return ap
}
