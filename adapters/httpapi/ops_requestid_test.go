package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tambalapay/tambala/adapters/memstore"
)

// requestCase is one request of the request-id tests, on either handler.
type requestCase struct {
	admin        bool
	method, path string
	body         any
	auth         string // "key", "token" or ""
	status       int
}

func requestCases() []requestCase {
	return []requestCase{
		{false, "GET", "/v1/ping", nil, "key", 200},
		{false, "GET", "/v1/ping", nil, "", 401},
		{false, "POST", "/v1/payouts/bank", `{"amount_mwk":`, "key", 400},
		{false, "GET", "/v1/nope", nil, "key", 404},
		{false, "DELETE", "/v1/balance", nil, "key", 405},
		{false, "POST", "/v1/payouts/bank", strings.Repeat("x", 2<<20), "key", 413},
		{false, "GET", "/openapi.json", nil, "", 200},
		{false, "GET", "/healthz", nil, "", 200},
		{true, "GET", "/admin/orgs", nil, "token", 200},
		{true, "GET", "/admin/orgs", nil, "", 401},
		{true, "GET", "/admin/nope", nil, "token", 404},
		{true, "GET", "/readyz", nil, "", 200},
	}
}

func (e *testEnv) sendCase(t *testing.T, c requestCase, key, reqID string) *resp {
	t.Helper()
	h := map[string]string{}
	switch c.auth {
	case "key":
		h["Authorization"] = "Bearer " + key
	case "token":
		h["Authorization"] = "Bearer " + adminToken
	}
	if reqID != "" {
		h["Request-Id"] = reqID
	}
	srv := e.srv
	if c.admin {
		srv = e.admSrv
	}
	r, err := send(srv, c.method, c.path, c.body, h)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	if r.Status != c.status {
		t.Fatalf("%s %s: %d %s, want %d", c.method, c.path, r.Status, truncate(r.Body), c.status)
	}
	if c.status >= 300 {
		checkEnvelope(t, c.method, c.path, r.Status, r.Header, r.Body) // error bodies keep their shape
	}
	return r
}

// TestRequestID_MadeWhenMissingOrMalformed: every response of both
// handlers carries a Request-Id; without a usable one from the client it
// is a fresh UUIDv7, never the same twice.
func TestRequestID_MadeWhenMissingOrMalformed(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{})
	bad := []string{
		"",
		strings.Repeat("a", 129),
		"has space",
		"semi;colon",
		"slash/ed",
		"comma,separated",
		"quote\"d",
		"ünïcode",
		"tab\there",
		"tmb_live_0000000000000000",      // an API key in the wrong header
		"adm_" + strings.Repeat("x", 40), // an admin token in the wrong header
	}
	seen := map[string]bool{}
	// With the key as the credential, ids holding it or a piece of it
	// are not kept either.
	withKey := append(bad[:len(bad):len(bad)], "prefix-"+key, key[len(key)-12:])
	for _, c := range requestCases() {
		sends := bad
		if c.auth == "key" {
			sends = withKey
		}
		for _, sent := range sends {
			r := e.sendCase(t, c, key, sent)
			got := r.Header.Get("Request-Id")
			u, err := uuid.Parse(got)
			if err != nil || u.Version() != 7 {
				t.Errorf("%s %s with Request-Id %q: answered %q, want a new UUIDv7", c.method, c.path, sent, got)
			}
			if seen[got] {
				t.Errorf("request id %s given twice", got)
			}
			seen[got] = true
		}
	}
}

// TestRequestID_ClientsKept: a well-formed client id (1 to 128 of
// A-Z a-z 0-9 . _ : -) comes back unchanged on every route, error or not.
func TestRequestID_ClientsKept(t *testing.T) {
	e := newEnv(t)
	_, key := e.newOrg(t, orgSpec{})
	good := []string{
		"a",
		"0190c4d2-7f3a-7b1e-8a2b-000000000000",
		"01HV6Z3Q7J9X5K2M4N8P0R1S3T",
		"trace:4bf92f3577b34da6a3ce929d0e0e4736.span_00f067aa0ba902b7",
		strings.Repeat("Z", 128),
	}
	for _, c := range requestCases() {
		for _, id := range good {
			if got := e.sendCase(t, c, key, id).Header.Get("Request-Id"); got != id {
				t.Errorf("%s %s: sent Request-Id %q, answered %q", c.method, c.path, id, got)
			}
		}
	}
}

// TestRequestID_InEveryLogLine: the access line and the internal-error
// line of a request carry its id.
func TestRequestID_InEveryLogLine(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	fs := &failingStore{Store: memstore.New()}
	e := newEnv(t, withStore(fs), withLogger(zap.New(core)))
	_, key := e.newOrg(t, orgSpec{})
	for i, c := range requestCases() {
		e.sendCase(t, c, key, fmt.Sprintf("case-%d", i))
	}
	// An internal error: the store fails under an authenticated call.
	fs.failing.Store(true)
	r, err := send(e.srv, "GET", "/v1/balance", nil, hdr(key, "Request-Id", "broken-1"))
	if err != nil {
		t.Fatal(err)
	}
	checkEnvelope(t, "GET", "/v1/balance", r.Status, r.Header, r.Body)
	if r.Status != 500 || r.code() != "internal_error" || strings.Contains(string(r.Body), "disk on fire") {
		t.Fatalf("failing store: %d %s", r.Status, r.Body)
	}
	fs.failing.Store(false)

	byID := map[string][]string{}
	for _, en := range logs.All() {
		id, _ := en.ContextMap()["request_id"].(string)
		if id == "" {
			t.Errorf("log line without a request_id: %s %v", en.Message, en.ContextMap())
			continue
		}
		byID[id] = append(byID[id], en.Message)
	}
	for i := range requestCases() {
		if got := byID[fmt.Sprintf("case-%d", i)]; len(got) != 1 || got[0] != "request" {
			t.Errorf("case %d: log lines %v, want its access line", i, got)
		}
	}
	if got := strings.Join(byID["broken-1"], ","); got != "internal error,request" {
		t.Errorf("the failing request's lines: %q, want the internal error then its access line", got)
	}
	errLine := logs.FilterMessage("internal error").All()
	if len(errLine) != 1 || !strings.Contains(fmt.Sprint(errLine[0].ContextMap()["error"]), "disk on fire") {
		t.Errorf("the internal error line does not carry the cause: %v", errLine)
	}
}

// TestRequestID_AccessLineFields: the access line names the request id
// beside what it named before, so log queries keep working.
func TestRequestID_AccessLineFields(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	e := newEnv(t, withLogger(zap.New(core)))
	o, key := e.newOrg(t, orgSpec{})
	e.do(t, "GET", "/v1/ping", nil, hdr(key, "Request-Id", "abc")).want(t, 200, "")
	lines := logs.FilterMessage("request").All()
	if len(lines) != 1 {
		t.Fatalf("%d access lines", len(lines))
	}
	m := lines[0].ContextMap()
	for k, want := range map[string]any{"method": "GET", "path": "/v1/ping", "status": int64(200), "request_id": "abc", "org": o.ID, "key_prefix": key[:16]} {
		if m[k] != want {
			t.Errorf("access line %s = %v (%T), want %v", k, m[k], m[k], want)
		}
	}
	if _, ok := m["duration"]; !ok || lines[0].Level != zapcore.InfoLevel {
		t.Errorf("access line %v at %s", m, lines[0].Level)
	}
}
