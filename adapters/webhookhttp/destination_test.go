package webhookhttp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/webhooks"
)

// hits is a loopback receiver that counts the requests it gets.
func hits(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		_, _ = w.Write([]byte("<html>the console's sign-in page</html>"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// resolveTo is a Resolve that answers every name with addrs: no DNS.
func resolveTo(addrs ...string) func(context.Context, string) ([]netip.Addr, error) {
	return func(context.Context, string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

// refusedSend asserts a send failed as a refused destination: no status,
// no answer, and the receiver never asked.
func refusedSend(t *testing.T, res tambala.SendResult, err error, n *atomic.Int64) {
	t.Helper()
	se, ok := errors.AsType[*webhooks.SendError](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, webhooks.FailDestination, se.Failure)
	assert.Equal(t, webhooks.FailDestination, webhooks.Classify(err))
	assert.Zero(t, res.StatusCode)
	assert.Empty(t, res.Response)
	assert.Zero(t, n.Load(), "the receiver is never asked")
}

// TestSenderRefusesNameResolvingInside: a public-looking name that
// resolves to loopback, or to loopback among others, fails the attempt at
// dial time under production's rule; so does a loopback address written
// in the URL.
func TestSenderRefusesNameResolvingInside(t *testing.T) {
	srv, n := hits(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	for _, resolved := range [][]string{{"127.0.0.1"}, {"::1", "127.0.0.1"}, {"127.0.0.1", "10.0.0.1"}, {"::ffff:127.0.0.1"}} {
		s := webhookhttp.NewSenderWith(&webhookhttp.SenderOptions{Resolve: resolveTo(resolved...)})
		res, err := s.Send(context.Background(), "http://rebind.example.com:"+itoa(port)+"/hook", eventBody, "sig")
		refusedSend(t, res, err, n)
		assert.NotContains(t, string(webhooks.Classify(err)), "127.0.0.1")
	}
	res, err := webhookhttp.NewSender(nil).Send(context.Background(), srv.URL+"/hook", eventBody, "sig")
	refusedSend(t, res, err, n)

	// The engine's rule reaches a sender the engine wraps.
	wrapped := webhookhttp.NewSender(nil).WithDestinations(webhooks.Policy{Loopback: true})
	res, err = wrapped.Send(context.Background(), srv.URL+"/hook", eventBody, "sig")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, int64(1), n.Load())
}

// TestSenderRefusesOwnListener: the sandbox's rule lets loopback receivers
// in, never the server's own listeners, whether named by address or by a
// name resolving to them.
func TestSenderRefusesOwnListener(t *testing.T) {
	srv, n := hits(t)
	own := netip.MustParseAddrPort(srv.Listener.Addr().String())
	for _, listener := range []netip.AddrPort{own, netip.AddrPortFrom(netip.IPv6Unspecified(), own.Port())} {
		s := webhookhttp.NewSenderWith(&webhookhttp.SenderOptions{
			Destinations: webhooks.Policy{Loopback: true, Own: []netip.AddrPort{listener}},
			Resolve:      resolveTo("127.0.0.1"),
		})
		res, err := s.Send(context.Background(), srv.URL+"/console/sign-in", eventBody, "sig")
		refusedSend(t, res, err, n)
		res, err = s.Send(context.Background(), "http://console.example.com:"+itoa(int(own.Port()))+"/console/sign-in", eventBody, "sig")
		refusedSend(t, res, err, n)
	}
}

// TestSenderChecksTheTransportsOwnDialer: a transport with a DialContext
// of its own keeps it, and the address it reached is checked before a
// byte is written.
func TestSenderChecksTheTransportsOwnDialer(t *testing.T) {
	srv, n := hits(t)
	var dialled atomic.Int64
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		dialled.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	res, err := webhookhttp.NewSender(tr).Send(context.Background(), "https://hooks.example.com/hook", eventBody, "sig")
	refusedSend(t, res, err, n)
	assert.Equal(t, int64(1), dialled.Load(), "the transport's own dialer was used")

	res, err = webhookhttp.NewSender(tr).WithDestinations(webhooks.Policy{Loopback: true}).Send(context.Background(), "http://hooks.example.com/hook", eventBody, "sig")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, int64(1), n.Load())
}

// TestSenderUsesNoProxy: a proxy on the transport (or from the
// environment) is dropped: it would reach the destination past the check.
func TestSenderUsesNoProxy(t *testing.T) {
	srv, n := hits(t)
	proxy, proxied := hits(t)
	pu, err := url.Parse(proxy.URL)
	require.NoError(t, err)
	tr := &http.Transport{Proxy: http.ProxyURL(pu)}
	s := webhookhttp.NewSenderWith(&webhookhttp.SenderOptions{Transport: tr, Destinations: webhooks.Policy{Loopback: true}})
	res, err := s.Send(context.Background(), srv.URL+"/hook", eventBody, "sig")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, int64(1), n.Load())
	assert.Zero(t, proxied.Load())
}

// TestSenderFailureWordings: each failure is one fixed wording, and the
// error kept for the log does not quote the URL (its query may carry the
// receiver's token).
func TestSenderFailureWordings(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	refusedURL := closed.URL + "/hook?token=sekrit"
	closed.Close()
	plain, _ := hits(t)
	release := make(chan struct{})
	slow, _ := server(t, func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	s := localSender()
	for _, c := range []struct {
		sender *webhookhttp.Sender
		url    string
		want   webhooks.Failure
	}{
		{s, refusedURL, webhooks.FailRefused},
		{s, "https://" + strings.TrimPrefix(plain.URL, "http://") + "/hook?token=sekrit", webhooks.FailTLS},
		{s.WithTimeout(100 * time.Millisecond), slow.URL + "/hook?token=sekrit", webhooks.FailTimeout},
		{s, "http://10.0.0.1/hook?token=sekrit", webhooks.FailDestination},
	} {
		_, err := c.sender.Send(context.Background(), c.url, eventBody, "sig")
		require.Error(t, err, c.url)
		assert.Equal(t, c.want, webhooks.Classify(err), "%s: %v", c.url, err)
		assert.NotContains(t, err.Error(), "sekrit", c.url)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
