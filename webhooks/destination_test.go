package webhooks_test

import (
	"errors"
	"net/netip"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/webhooks"
)

// TestCheckURLProduction: the production rule refuses every way of naming
// the operator's own network, and accepts public https destinations.
func TestCheckURLProduction(t *testing.T) {
	var prod webhooks.Policy
	for _, u := range []string{
		"https://hooks.example.com/x", "https://hooks.example.com:8443/x?token=a", "https://8.8.8.8/x",
		"https://[2001:4860:4860::8888]/x", "https://HOOKS.Example.COM./x", "https://xn--bcher-kva.example/x",
		"https://my_host.example.com/x", "https://1.1.1.1:1/x",
	} {
		assert.NoError(t, prod.CheckURL(u), u)
	}
	cases := map[error][]string{
		webhooks.ErrURL: {"/relative", "https://", "https://user:pw@hooks.example.com/x", "https://hooks.example.com:0/x",
			"https://hooks.example.com:65536/x", "https:opaque", "https://hooks.example.com:x/", "https://a%20b.example/"},
		webhooks.ErrScheme: {"http://hooks.example.com/x", "ftp://hooks.example.com/x", "http://127.0.0.1:8080/x", "gopher://8.8.8.8/"},
		webhooks.ErrRefused: {
			"https://127.0.0.1:1", "https://127.0.0.1/x", "https://127.255.255.254/", "https://[::1]/x", "https://[::]/x", "https://0.0.0.0/",
			"https://0.1.2.3/", "https://10.0.0.1/", "https://172.16.0.1/", "https://172.31.255.255/", "https://192.168.1.1/",
			"https://100.64.0.1/", "https://169.254.169.254/latest/meta-data/", "https://[fe80::1]/", "https://[fc00::1]/",
			"https://[fd00:ec2::254]/", "https://198.18.0.1/", "https://198.19.255.255/", "https://224.0.0.1/", "https://239.1.2.3/",
			"https://255.255.255.255/", "https://240.0.0.1/", "https://[ff02::1]/", "https://[::ffff:127.0.0.1]/",
			"https://[::ffff:10.0.0.1]/", "https://[::ffff:169.254.169.254]/", "https://[::ffff:a9fe:a9fe]/", "https://[::127.0.0.1]/",
			"https://[64:ff9b::7f00:1]/", "https://[2002:7f00:1::]/", "https://[fec0::1]/", "https://192.0.0.192/",
			"https://localhost/", "https://LOCALHOST:8443/", "https://localhost./", "https://a.b.localhost/",
			"https://metadata.google.internal/computeMetadata/v1/", "https://db.internal/", "https://printer.local/",
			"https://nas.home.arpa/", "https://box.lan/", "https://intranet/", "https://metadata/", "https://metadata.goog/",
			"https://instance-data/", "https://instance-data.ec2.internal/", "https://mail.corp/",
		},
		webhooks.ErrHost: {
			"https://2130706433/", "https://0x7f000001/", "https://0177.0.0.1/", "https://127.1/", "https://127.0.1/",
			"https://0x7f.1/", "https://127.0.0.1./", "https://[fe80::1%25eth0]/", "https://hooks..example.com/",
			"https://bücher.example/", "https://example.017/",
		},
	}
	for want, urls := range cases {
		for _, u := range urls {
			assert.ErrorIs(t, prod.CheckURL(u), want, u)
		}
	}
}

// TestCheckURLSandbox: the sandbox keeps loopback (over plain http too)
// for local receivers, never the server's own listeners, and refuses the
// rest of the private network as production does.
func TestCheckURLSandbox(t *testing.T) {
	sb := webhooks.Policy{Loopback: true, Own: []netip.AddrPort{
		netip.MustParseAddrPort("127.0.0.1:8081"), netip.MustParseAddrPort("[::]:8080"),
	}}
	for _, u := range []string{
		"http://127.0.0.1:9000/x", "http://localhost:9000/x", "http://[::1]:9/x", "https://127.0.0.2:8443/",
		"http://localhost/x", "https://hooks.example.com/x", "http://127.0.0.1:8082/",
	} {
		assert.NoError(t, sb.CheckURL(u), u)
	}
	for _, u := range []string{
		"http://127.0.0.1:8081/console/sign-in", "http://127.0.0.2:8081/", "http://localhost:8081/", "http://[::1]:8081/",
		"http://127.0.0.1:8080/", "http://localhost:8080/", "http://[::ffff:127.0.0.1]:8080/", "https://[::]:8080/",
	} {
		assert.ErrorIs(t, sb.CheckURL(u), webhooks.ErrOwn, u)
	}
	for _, u := range []string{"https://10.0.0.1/", "https://169.254.169.254/", "https://metadata.google.internal/"} {
		assert.ErrorIs(t, sb.CheckURL(u), webhooks.ErrRefused, u)
	}
	assert.ErrorIs(t, sb.CheckURL("http://10.0.0.1/"), webhooks.ErrScheme)
	assert.ErrorIs(t, sb.CheckURL("http://hooks.example.com/"), webhooks.ErrScheme)
}

// TestCheckURLAllow: Allow opens address ranges, not local names, not the
// own listeners, and not plain http.
func TestCheckURLAllow(t *testing.T) {
	p := webhooks.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.1.0.0/16")},
		Own: []netip.AddrPort{netip.MustParseAddrPort("0.0.0.0:8081")}}
	assert.NoError(t, p.CheckURL("https://127.0.0.1:4443/hooks"))
	assert.NoError(t, p.CheckURL("https://10.1.2.3/hooks"))
	assert.ErrorIs(t, p.CheckURL("https://10.2.0.1/hooks"), webhooks.ErrRefused)
	assert.ErrorIs(t, p.CheckURL("https://localhost:4443/hooks"), webhooks.ErrRefused)
	assert.ErrorIs(t, p.CheckURL("https://127.0.0.1:8081/"), webhooks.ErrOwn)
	assert.ErrorIs(t, p.CheckURL("http://127.0.0.1:4443/hooks"), webhooks.ErrScheme)
}

// TestCheckAddr: the dial-time check, on the address a name resolved to.
func TestCheckAddr(t *testing.T) {
	host := netip.MustParseAddr("203.0.113.7")
	prod := webhooks.Policy{Own: []netip.AddrPort{netip.MustParseAddrPort("[::]:8081")},
		Local: func(a netip.Addr) bool { return a == host }}
	ap := netip.MustParseAddrPort
	assert.NoError(t, prod.CheckAddr(ap("93.184.215.14:443")))
	assert.NoError(t, prod.CheckAddr(ap("203.0.113.7:443")), "the host's public address, another port")
	assert.ErrorIs(t, prod.CheckAddr(ap("203.0.113.7:8081")), webhooks.ErrOwn, "the host's public address, the admin port")
	for _, a := range []string{"127.0.0.1:443", "[::1]:443", "[::ffff:127.0.0.1]:443", "169.254.169.254:80", "10.0.0.1:443", "[fd00::1]:443", "0.0.0.0:443"} {
		assert.ErrorIs(t, prod.CheckAddr(ap(a)), webhooks.ErrRefused, a)
	}
	sb := prod
	sb.Loopback = true
	assert.NoError(t, sb.CheckAddr(ap("127.0.0.1:9000")))
	assert.ErrorIs(t, sb.CheckAddr(ap("127.0.0.1:8081")), webhooks.ErrOwn)
	assert.ErrorIs(t, sb.CheckAddr(ap("[::ffff:127.0.0.1]:8081")), webhooks.ErrOwn)
	assert.ErrorIs(t, sb.CheckAddr(ap("192.168.0.1:9000")), webhooks.ErrRefused)
	assert.ErrorIs(t, sb.CheckAddr(netip.AddrPort{}), webhooks.ErrRefused)
}

// timeoutErr is an error that knows it is a timeout.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassifyAndShown(t *testing.T) {
	assert.Equal(t, webhooks.FailTLS, webhooks.Classify(&webhooks.SendError{Failure: webhooks.FailTLS, Err: errors.New("tls: bad record")}))
	assert.Equal(t, webhooks.FailDestination, webhooks.Classify(webhooks.ErrOwn))
	assert.Equal(t, webhooks.FailTimeout, webhooks.Classify(os.ErrDeadlineExceeded))
	assert.Equal(t, webhooks.FailTimeout, webhooks.Classify(timeoutErr{}))
	assert.Equal(t, webhooks.FailRefused, webhooks.Classify(&os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}))
	assert.Equal(t, webhooks.FailConnect, webhooks.Classify(errors.New("lookup db.example: no such host")))
	for stored, want := range map[string]string{
		"": "", "timed out": "timed out", "destination refused": "destination refused",
		`Post "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused`:                               "connection refused",
		`Post "https://127.0.0.1:8081/": http: server gave HTTP response to HTTPS client`:                             "TLS handshake failed",
		`Post "https://10.0.0.1/": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`:        "timed out",
		`Post "https://x.example/": tls: failed to verify certificate: x509: certificate signed by unknown authority`: "TLS handshake failed",
		`Post "https://db.internal/": dial tcp: lookup db.internal on 10.0.0.2:53: no such host`:                      "could not connect",
	} {
		assert.Equal(t, want, webhooks.Shown(stored), stored)
	}
}
