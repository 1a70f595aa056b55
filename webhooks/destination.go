package webhooks

import (
	"errors"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Where a delivery may go. An organization's admin chooses the URL, and the
// deliveries page shows what came back, so a URL into the operator's own
// network would let them scan it and read its pages. Policy is the rule,
// checked twice: on the URL when it is set (and again before each send),
// and by the sender on every address it connects to after DNS, since a
// name may resolve anywhere (and again elsewhere a second later).

// URL errors: each message is shown to the organization as it is.
var (
	// ErrURL is a URL that is not an absolute http(s) URL without
	// credentials and at most 2048 bytes long.
	ErrURL = errors.New("url must be an absolute https URL.")
	// ErrScheme is a scheme other than https, or plain http to anything
	// but a loopback address in the sandbox.
	ErrScheme = errors.New("url must be https (plain http only to a loopback address in the sandbox).")
	// ErrHost is a host that is neither a DNS name nor an IP address
	// written plainly: "2130706433", "127.1", "0x7f.0.0.1", a zone, a
	// non-ASCII name (write its xn-- form).
	ErrHost = errors.New("url's host must be a DNS name (internationalized names in their xn-- form) or an IP address written plainly.")
	// ErrRefused is a destination inside a private network.
	ErrRefused = errors.New("url must not point into a private network: loopback, private, link-local, unique-local, shared and metadata addresses, and local names such as localhost or *.internal, are refused.")
	// ErrOwn is one of the server's own listeners.
	ErrOwn = errors.New("url must not point at this server's own listeners.")
)

// MaxURL is the longest URL accepted, in bytes.
const MaxURL = 2048

// Policy says where deliveries may go. The zero Policy is production's
// rule: https only, to public addresses only.
type Policy struct {
	// Loopback lets deliveries reach loopback addresses and the name
	// localhost, over plain http too: the sandbox, whose receivers run
	// on the developer's machine. Never the Own listeners.
	Loopback bool
	// Allow lists address ranges deliveries may reach although the rule
	// refuses them: an operator's receivers on its own network, or a
	// test's receiver on loopback in production. Local names (localhost,
	// *.internal) stay refused, and so do the Own listeners; the scheme
	// rule is unchanged.
	Allow []netip.Prefix
	// Own lists the server's own listeners (its API, admin API, console),
	// refused in every environment. An unspecified address (0.0.0.0, ::)
	// stands for the port on every address of the host; a loopback address
	// for the port on every loopback address.
	Own []netip.AddrPort
	// Local reports whether an address is one of the host's own, for an
	// Own listener on an unspecified address; nil counts loopback and
	// unspecified addresses only. The sender sets it; the rule itself does
	// no I/O.
	Local func(netip.Addr) bool
}

// CheckURL checks a webhook URL against the rule: one of ErrURL,
// ErrScheme, ErrHost, ErrRefused or ErrOwn, or nil. A host given by name
// passes when the name is not a local one; where it resolves is checked at
// dial time (CheckAddr).
func (p Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" || len(raw) > MaxURL {
		return ErrURL
	}
	port := 443
	switch u.Scheme {
	case "https":
	case "http":
		port = 80
	default:
		return ErrScheme
	}
	if s := u.Port(); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 65535 {
			return ErrURL
		}
		port = n
	}
	addr, name, err := parseHost(u.Hostname())
	if err != nil {
		return err
	}
	loopback := addr.IsLoopback() || (name != "" && loopbackName(name))
	if u.Scheme == "http" && !(p.Loopback && loopback) {
		return ErrScheme
	}
	if name != "" {
		if loopbackName(name) {
			if !p.Loopback {
				return ErrRefused
			}
			// localhost may be any loopback address: the Own listeners
			// on loopback or on every address are refused.
			if p.own(netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(port))) {
				return ErrOwn
			}
			return nil
		}
		if localName(name) {
			return ErrRefused
		}
		return nil
	}
	return p.CheckAddr(netip.AddrPortFrom(addr, uint16(port)))
}

// CheckAddr checks an address a delivery is about to connect to: ErrOwn,
// ErrRefused, or nil.
func (p Policy) CheckAddr(ap netip.AddrPort) error {
	a := ap.Addr().Unmap()
	if !a.IsValid() || a.Zone() != "" {
		return ErrRefused
	}
	if p.own(netip.AddrPortFrom(a, ap.Port())) {
		return ErrOwn
	}
	if p.Loopback && a.IsLoopback() {
		return nil
	}
	for _, pre := range p.Allow {
		if pre.Contains(a) {
			return nil
		}
	}
	if Internal(a) {
		return ErrRefused
	}
	return nil
}

// own reports whether ap (unmapped) reaches one of the Own listeners.
func (p Policy) own(ap netip.AddrPort) bool {
	a := ap.Addr()
	for _, o := range p.Own {
		if o.Port() != ap.Port() {
			continue
		}
		oa := o.Addr().Unmap()
		switch {
		case oa.WithZone("") == a:
			return true
		case oa.IsLoopback() && a.IsLoopback():
			return true
		case oa.IsUnspecified() && (a.IsLoopback() || a.IsUnspecified() || (p.Local != nil && p.Local(a))):
			return true
		}
	}
	return false
}

// refusedPrefixes are the ranges Internal refuses beyond what netip's
// predicates name: "this network", shared (CGNAT) space, the IETF's and
// the benchmarking ranges, the reserved 240/4 with broadcast, and the IPv6
// ranges that embed or translate an IPv4 address (IPv4-compatible, NAT64,
// 6to4, Teredo), discard-only and the old site-local.
var refusedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "198.18.0.0/15", "240.0.0.0/4",
		"::/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/32", "2002::/16", "fec0::/10",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Internal reports whether a is an address no production delivery goes
// to: unspecified, loopback, private (10/8, 172.16/12, 192.168/16,
// fc00::/7), link-local (IPv4 169.254.0.0/16, which holds the cloud metadata
// address, and fe80::/10), multicast, broadcast, or one of refusedPrefixes; an
// IPv4-mapped IPv6 address is judged by its IPv4 address.
func Internal(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsUnspecified() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() {
		return true
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHost reads a URL's host: an IP address (unmapped), or a DNS name
// lowercased without its final dot. Anything else is ErrHost: an address
// with a zone, or a host whose last label is a number, which resolvers
// read as an IPv4 address in an old form ("2130706433", "127.1",
// "0x7f.1", "0177.0.0.1") while no public name ends so.
func parseHost(h string) (netip.Addr, string, error) {
	if h == "" {
		return netip.Addr{}, "", ErrURL
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return netip.Addr{}, "", ErrHost
		}
		return a.Unmap(), "", nil
	}
	name := strings.ToLower(strings.TrimSuffix(h, "."))
	if name == "" || len(name) > 253 {
		return netip.Addr{}, "", ErrHost
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return netip.Addr{}, "", ErrHost
		}
		for _, c := range []byte(l) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return netip.Addr{}, "", ErrHost
			}
		}
	}
	if numeric(labels[len(labels)-1]) {
		return netip.Addr{}, "", ErrHost
	}
	return netip.Addr{}, name, nil
}

// numeric reports whether a label reads as a number: decimal, octal, or
// hexadecimal with 0x.
func numeric(l string) bool {
	if rest, ok := strings.CutPrefix(l, "0x"); ok {
		for _, c := range []byte(rest) {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	for _, c := range []byte(l) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// loopbackName reports the names of loopback: localhost and its
// subdomains.
func loopbackName(name string) bool {
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

// localSuffixes end names that only a private resolver answers: the
// special-use and never-delegated ones, where cloud metadata services
// (metadata.google.internal) and home and office networks live.
var localSuffixes = []string{"internal", "local", "localdomain", "home.arpa", "lan", "home", "corp", "intranet", "private"}

// localNames are names of metadata services outside those suffixes.
var localNames = []string{"metadata.goog", "instance-data"}

// localName reports a name only a private resolver answers: one label
// alone (completed by the host's search domains), one under a local
// suffix, or a metadata service's.
func localName(name string) bool {
	if !strings.Contains(name, ".") {
		return true
	}
	for _, s := range localSuffixes {
		if name == s || strings.HasSuffix(name, "."+s) {
			return true
		}
	}
	for _, n := range localNames {
		if name == n || strings.HasPrefix(name, n+".") {
			return true
		}
	}
	return false
}

// Failure is why an attempt got no answer, in a fixed wording: the
// deliveries page and the admin API show it, never the error itself, which
// may say what listens where. An answer with any status is not a failure
// here: its status is shown.
type Failure string

// The failures.
const (
	FailTimeout     Failure = "timed out"
	FailRefused     Failure = "connection refused"
	FailTLS         Failure = "TLS handshake failed"
	FailDestination Failure = "destination refused"
	FailConnect     Failure = "could not connect"
)

// MaxResponse is the most of a receiver's answer kept and shown, in bytes.
const MaxResponse = 1024

// SendError is a failed send: its Failure for the organization, and the
// error it came from for the server's log.
type SendError struct {
	Failure Failure
	Err     error
}

func (e *SendError) Error() string {
	if e.Err == nil {
		return string(e.Failure)
	}
	return string(e.Failure) + ": " + e.Err.Error()
}

func (e *SendError) Unwrap() error { return e.Err }

// timeout is the method of errors that know they are timeouts.
type timeout interface {
	error
	Timeout() bool
}

// Classify returns err's failure: a SendError's own; FailDestination for
// the rule's refusals; FailTimeout for an error that says it is a timeout
// (Timeout() true, as os.ErrDeadlineExceeded and ETIMEDOUT do); FailRefused
// for a refused connection; otherwise FailConnect. It reads errors by
// their methods and text only (the package does no I/O); a sender that
// knows the system error wraps it in a SendError with its Failure, as
// adapters/webhookhttp does.
func Classify(err error) Failure {
	if se, ok := errors.AsType[*SendError](err); ok && se.Failure != "" {
		return se.Failure
	}
	if errors.Is(err, ErrRefused) || errors.Is(err, ErrOwn) || errors.Is(err, ErrHost) || errors.Is(err, ErrScheme) || errors.Is(err, ErrURL) {
		return FailDestination
	}
	if t, ok := errors.AsType[timeout](err); ok && t.Timeout() {
		return FailTimeout
	}
	if err != nil && strings.Contains(err.Error(), "connection refused") {
		return FailRefused
	}
	if err != nil && strings.Contains(err.Error(), "deadline exceeded") {
		return FailTimeout
	}
	return FailConnect
}

// Shown is a stored attempt's error as shown: a Failure's wording as it
// is; the raw error an older version stored, by its class; "" for none.
func Shown(stored string) string {
	switch f := Failure(stored); f {
	case "", FailTimeout, FailRefused, FailTLS, FailDestination, FailConnect:
		return stored
	}
	switch {
	case strings.Contains(stored, "connection refused"):
		return string(FailRefused)
	case strings.Contains(stored, "Timeout") || strings.Contains(stored, "timeout") || strings.Contains(stored, "deadline exceeded"):
		return string(FailTimeout)
	case strings.Contains(stored, "tls:") || strings.Contains(stored, "x509:") || strings.Contains(stored, "HTTPS client"):
		return string(FailTLS)
	}
	return string(FailConnect)
}
