package webhookhttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/webhooks"
)

// Timeout is how long a receiver has to answer.
const Timeout = 10 * time.Second

// MaxResponse is how much of a receiver's response body is kept.
const MaxResponse = webhooks.MaxResponse

// Sender implements tambala.WebhookSender over an http.Client.
type Sender struct {
	client *http.Client
	opts   SenderOptions // as given, to build again for WithDestinations
}

var (
	_ tambala.WebhookSender       = (*Sender)(nil)
	_ tambala.WebhookDestinations = (*Sender)(nil)
)

// SenderOptions tune a Sender. Zero fields take the defaults.
type SenderOptions struct {
	// Transport carries the deliveries. Default: a clone of
	// http.DefaultTransport keeping 32 idle connections per host. An
	// *http.Transport is cloned, never changed: the clone uses no proxy
	// (a proxy would dial the destination beyond the check) and checks
	// every address it connects to against Destinations: through the
	// transport's own DialContext when it has one (the address it reached
	// is checked before anything is written), else by resolving the name
	// with Resolve and dialling through a net.Dialer whose Control checks
	// each address before the connection is even attempted. Any other
	// RoundTripper is used as it is and checks nothing: the engine's check
	// of the URL is all there is.
	Transport http.RoundTripper
	// Destinations is the rule each address is checked against; the zero
	// Policy is production's. The engine replaces it with its own
	// (WithDestinations): the sandbox's lets loopback receivers in, and
	// both keep the server's own listeners out.
	Destinations webhooks.Policy
	// Resolve looks a host's addresses up, when the transport has no
	// DialContext of its own. Default: net.DefaultResolver.LookupNetIP. A
	// name that resolves to any refused address fails the attempt,
	// whatever else it resolves to.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// NewSender returns a sender with the 10 s timeout, redirects refused, and
// production's destination rule (see SenderOptions); transport may be
// nil.
func NewSender(transport http.RoundTripper) *Sender {
	return NewSenderWith(&SenderOptions{Transport: transport})
}

// NewSenderWith returns a sender with the 10 s timeout, redirects refused,
// and o (nil: the defaults).
func NewSenderWith(o *SenderOptions) *Sender {
	var opts SenderOptions
	if o != nil {
		opts = *o
	}
	return build(opts, Timeout)
}

func build(o SenderOptions, timeout time.Duration) *Sender {
	transport := o.Transport
	if transport == nil {
		// The default transport keeps 2 idle connections per host; the
		// dispatcher sends several deliveries to one endpoint at once.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 32
		t.DialContext = nil // the guard's own: resolve, check, dial
		transport = t
	}
	if t, ok := transport.(*http.Transport); ok {
		g := &guard{policy: o.Destinations, resolve: o.Resolve, inner: t.DialContext}
		if g.policy.Local == nil {
			g.policy.Local = localAddress
		}
		if g.resolve == nil {
			g.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			}
		}
		t = t.Clone()
		t.Proxy, t.OnProxyConnectResponse = nil, nil
		t.DialContext, t.DialTLSContext = g.dial, nil
		t.Dial, t.DialTLS = nil, nil //nolint:staticcheck // cleared so that DialContext is the only way out
		transport = t
	}
	return &Sender{opts: o, client: &http.Client{
		Transport: transport,
		Timeout:   timeout,
		// A redirect is a failure: hand back the 3xx itself.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// WithTimeout returns a copy of the sender with another timeout (tests).
func (s *Sender) WithTimeout(d time.Duration) *Sender {
	c := *s.client
	c.Timeout = d
	return &Sender{client: &c, opts: s.opts}
}

// WithDestinations returns a copy of the sender checking its dials
// against p (tambala.WebhookDestinations: the engine calls it with its
// rule). The copy has a transport of its own, cloned again from the one
// the sender was given.
func (s *Sender) WithDestinations(p webhooks.Policy) tambala.WebhookSender {
	o := s.opts
	o.Destinations = p
	return build(o, s.client.Timeout)
}

// Send POSTs body with its Signature header and reads at most MaxResponse
// bytes of the answer. A failure is a *webhooks.SendError: its Failure is
// one fixed wording (timed out, connection refused, TLS handshake failed,
// destination refused, could not connect), its Err the error without the
// URL, for the log.
func (s *Sender) Send(ctx context.Context, url string, body []byte, signature string) (tambala.SendResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return tambala.SendResult{}, &webhooks.SendError{Failure: webhooks.FailDestination, Err: errors.New("webhookhttp: not a URL")}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Signature", signature)
	req.Header.Set("User-Agent", "tambala-webhooks/1")
	res, err := s.client.Do(req)
	if err != nil {
		return tambala.SendResult{}, sendError(err)
	}
	defer res.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(res.Body, MaxResponse))
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // let the connection be reused
	return tambala.SendResult{StatusCode: res.StatusCode, Response: head}, nil
}

// sendError classifies a failed request into its fixed wording, keeping
// the error without the *url.Error around it (which quotes the URL).
func sendError(err error) error {
	cause := err
	if ue, ok := errors.AsType[*neturl.Error](err); ok {
		cause = ue.Err
	}
	if se, ok := errors.AsType[*webhooks.SendError](cause); ok {
		return se
	}
	failure := webhooks.Classify(cause)
	switch {
	case errors.Is(cause, os.ErrDeadlineExceeded) || errors.Is(cause, syscall.ETIMEDOUT):
		failure = webhooks.FailTimeout
	case errors.Is(cause, syscall.ECONNREFUSED):
		failure = webhooks.FailRefused
	}
	if failure != webhooks.FailTimeout && tlsFailure(cause) {
		failure = webhooks.FailTLS
	}
	return &webhooks.SendError{Failure: failure, Err: cause}
}

// tlsFailure reports an error of the TLS handshake, or a plain-HTTP answer
// to it.
func tlsFailure(err error) bool {
	if errors.Is(err, http.ErrSchemeMismatch) {
		return true
	}
	if _, ok := errors.AsType[tls.RecordHeaderError](err); ok {
		return true
	}
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return true
	}
	if _, ok := errors.AsType[tls.AlertError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.UnknownAuthorityError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.HostnameError](err); ok {
		return true
	}
	if _, ok := errors.AsType[x509.CertificateInvalidError](err); ok {
		return true
	}
	return strings.HasPrefix(err.Error(), "tls: ")
}

// guard dials only where its policy lets deliveries go.
type guard struct {
	policy  webhooks.Policy
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	inner   func(ctx context.Context, network, addr string) (net.Conn, error) // the transport's own dialer, if any
}

// refused is a refused address, as the sender reports it.
func refused(host string, ap netip.AddrPort, err error) error {
	return &webhooks.SendError{Failure: webhooks.FailDestination, Err: fmt.Errorf("%s is %s: %w", host, ap, err)}
}

// dial connects to address where the policy lets deliveries go. Through
// the transport's own dialer, when it has one (its name mapping stands):
// the address it reached is checked before anything is written. Else the
// guard resolves the host itself and checks every address it resolves to
// before dialling any (a name that resolves to a refused address fails
// the attempt), then dials the checked addresses in turn with a
// net.Dialer whose Control checks each again before the connection is
// attempted.
func (g *guard) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &webhooks.SendError{Failure: webhooks.FailDestination, Err: err}
	}
	if g.inner != nil {
		conn, err := g.inner(ctx, network, address)
		if err != nil {
			return nil, err
		}
		ap, perr := netip.ParseAddrPort(conn.RemoteAddr().String())
		if perr == nil {
			perr = g.policy.CheckAddr(ap)
		}
		if perr != nil {
			conn.Close()
			return nil, refused(host, ap, perr)
		}
		return conn, nil
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, &webhooks.SendError{Failure: webhooks.FailDestination, Err: err}
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		if addrs, err = g.resolve(ctx, host); err != nil {
			return nil, &webhooks.SendError{Failure: webhooks.FailConnect, Err: err}
		}
		if len(addrs) == 0 {
			return nil, &webhooks.SendError{Failure: webhooks.FailConnect, Err: errors.New(host + " has no address")}
		}
	}
	for _, a := range addrs {
		ap := netip.AddrPortFrom(a.Unmap(), uint16(port))
		if err := g.policy.CheckAddr(ap); err != nil {
			return nil, refused(host, ap, err)
		}
	}
	d := net.Dialer{KeepAlive: 30 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err == nil {
			err = g.policy.CheckAddr(ap)
		}
		if err != nil {
			return refused(host, ap, err)
		}
		return nil
	}}
	var last error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// localAddress reports whether a is an address of one of the host's
// interfaces (webhooks.Policy.Local), for an own listener on every address.
func localAddress(a netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true // unknown: count it as the host's own
	}
	for _, ia := range addrs {
		if n, ok := ia.(*net.IPNet); ok {
			if b, ok := netip.AddrFromSlice(n.IP); ok && b.Unmap() == a.Unmap() {
				return true
			}
		}
	}
	return false
}

// Event is a received event: the envelope's fields, data still raw.
type Event struct {
	ID        string          `json:"id"`
	EventType string          `json:"event_type"`
	CreatedAt string          `json:"created_at"`
	Balance   json.RawMessage `json:"balance"`
	Data      json.RawMessage `json:"data"`
}

// Receiver is an http.Handler for webhook deliveries.
type Receiver struct {
	// Secrets returns the secrets to accept: the current one, and during a
	// rotation the previous one too.
	Secrets func() []string
	// Handle processes an event once; an error answers
	// http.StatusInternalServerError so the sender retries. A copy arriving
	// while the same id is still being handled answers http.StatusConflict,
	// also retried. Keep it quick and do real work asynchronously.
	Handle func(ctx context.Context, e Event) error
	// MaxBody caps the body (default 1 MiB).
	MaxBody int64

	mu   sync.Mutex
	seen map[string]bool // true: handled; false: being handled now
}

var errBadEvent = errors.New("webhookhttp: body is not an event")

func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	max := rc.MaxBody
	if max <= 0 {
		max = 1 << 20
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "could not read the body", http.StatusBadRequest)
		}
		return
	}
	var secrets []string
	if rc.Secrets != nil {
		secrets = rc.Secrets()
	}
	// Verify over the raw bytes, before any parsing.
	if !webhooks.Verify(body, r.Header.Get("Signature"), secrets...) {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var ev Event
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" {
		http.Error(w, errBadEvent.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	if rc.seen == nil {
		rc.seen = map[string]bool{}
	}
	done, dup := rc.seen[ev.ID]
	if !dup {
		rc.seen[ev.ID] = false // claim it so a concurrent duplicate is not handled twice
	}
	rc.mu.Unlock()
	if dup && done {
		w.WriteHeader(http.StatusOK)
		return
	}
	if dup {
		// Still being handled, and that may yet fail: no 2xx, so the
		// sender tries again later.
		http.Error(w, "this event is being handled", http.StatusConflict)
		return
	}
	if rc.Handle != nil {
		if err := rc.Handle(r.Context(), ev); err != nil {
			rc.mu.Lock()
			delete(rc.seen, ev.ID) // not processed: accept the retry
			rc.mu.Unlock()
			http.Error(w, "handler failed", http.StatusInternalServerError)
			return
		}
	}
	rc.mu.Lock()
	rc.seen[ev.ID] = true
	rc.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}
