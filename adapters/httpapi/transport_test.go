package httpapi_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
)

// What net/http answers itself, before any handler of ours runs: a
// malformed escape in the request target, a control character in a header
// value, headers over the server's limit. These answers are net/http's
// plain text, not the error envelope (docs/decisions.md, "Errors"); every
// request that reaches our handler gets the envelope.
func TestTransport_AnswersBeforeOurHandler(t *testing.T) {
	e := newEnv(t)
	addr := strings.TrimPrefix(e.srv.URL, "http://")
	for name, c := range map[string]struct {
		raw    string
		status int
	}{
		"malformed escape in the path":  {"GET /v1/payouts/%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		"control character in a header": {"GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n", 400},
		"oversized headers":             {"GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", http.DefaultMaxHeaderBytes+4096) + "\r\n\r\n", 431},
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Write([]byte(c.raw)); err != nil {
				t.Fatal(err)
			}
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Errorf("status %d, want %d", res.StatusCode, c.status)
			}
			if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
				t.Errorf("net/http answered JSON?")
			}
		})
	}
	// A well-formed request to an unknown path reaches us: the envelope.
	e.do(t, "GET", "/v1/nope%20x", nil, hdr("tmb_live_x")).want(t, 404, "not_found")
}
