package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// probeBody is the JSON of a probe's answer.
type probeBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// probe sends GET path to srv without credentials (probes need none) and
// checks what every probe answer has.
func probe(t *testing.T, srv *httptest.Server, path string) (int, probeBody) {
	t.Helper()
	r, err := send(srv, "GET", path, nil, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET %s: Cache-Control %q, want no-store", path, r.Header.Get("Cache-Control"))
	}
	if r.Header.Get("Request-Id") == "" {
		t.Errorf("GET %s: no Request-Id", path)
	}
	var b probeBody
	dec := json.NewDecoder(strings.NewReader(string(r.Body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		t.Errorf("GET %s: body %s: %v", path, r.Body, err)
	}
	return r.Status, b
}

// servers returns the public and the admin listener of e.
func (e *testEnv) servers() map[string]*httptest.Server {
	return map[string]*httptest.Server{"public": e.srv, "admin": e.admSrv}
}

func TestHealth_UpAndReadyOnBothListeners(t *testing.T) {
	e := newEnv(t)
	for name, srv := range e.servers() {
		status, b := probe(t, srv, "/healthz")
		if status != 200 || b.Status != "ok" || b.Checks != nil {
			t.Errorf("%s /healthz: %d %+v, want 200 {status: ok}", name, status, b)
		}
		status, b = probe(t, srv, "/readyz")
		if status != 200 || b.Status != "ready" || b.Checks != nil {
			t.Errorf("%s /readyz: %d %+v, want 200 {status: ready}", name, status, b)
		}
		// Only GET (and so HEAD): other methods get the envelope.
		r, err := send(srv, "POST", "/healthz", "{}", nil)
		if err != nil {
			t.Fatal(err)
		}
		checkEnvelope(t, "POST", "/healthz", r.Status, r.Header, r.Body)
		if r.Status != 405 || r.Header.Get("Allow") != "GET" {
			t.Errorf("%s POST /healthz: %d Allow %q, want 405 Allow GET", name, r.Status, r.Header.Get("Allow"))
		}
		if r, err := send(srv, "HEAD", "/readyz", nil, nil); err != nil || r.Status != 200 {
			t.Errorf("%s HEAD /readyz: %v %v", name, r, err)
		}
	}
}

// TestHealth_NeverLimitedPausedOrAuthenticated: probes answer without a
// key or token, whatever the pause switches, however often they are
// called, and whatever credentials come with them.
func TestHealth_NeverLimitedPausedOrAuthenticated(t *testing.T) {
	e := newEnv(t, withLimits(tambala.Limits{RatePerSecond: 1, RateBurst: 1}))
	_, key := e.newOrg(t, orgSpec{})
	ctx := context.Background()
	for _, api := range []tambala.API{tambala.APIv1, tambala.APIv2} {
		if _, err := e.Engine.Operator().SetPause(ctx, api, tambala.Maintenance); err != nil {
			t.Fatal(err)
		}
	}
	e.do(t, "GET", "/v1/ping", nil, hdr(key)).want(t, 503, "service_maintenance")
	for name, srv := range e.servers() {
		for i := range 30 {
			for _, path := range []string{"/healthz", "/readyz"} {
				headers := map[string]map[string]string{"none": nil, "key": hdr(key), "bad": hdr("nonsense")}
				for hn, h := range headers {
					r, err := send(srv, "GET", path, nil, h)
					if err != nil || r.Status != 200 {
						t.Fatalf("%s %s #%d with %s credentials: %v %v", name, path, i, hn, r, err)
					}
				}
			}
		}
	}
}

func TestReady_ProductionWaitsForReferenceData(t *testing.T) {
	e := newEnv(t, withEnvironment(tambala.Production))
	for name, srv := range e.servers() {
		status, b := probe(t, srv, "/readyz")
		if status != 503 || b.Status != "not_ready" {
			t.Fatalf("%s /readyz before a sync: %d %+v, want 503 not_ready", name, status, b)
		}
		if b.Checks["store"] != "ok" || !strings.Contains(b.Checks["reference_data"], "not been synced") {
			t.Errorf("%s /readyz checks: %v", name, b.Checks)
		}
		// Health is not readiness: the process is up.
		if status, _ := probe(t, srv, "/healthz"); status != 200 {
			t.Errorf("%s /healthz: %d", name, status)
		}
	}
	// The readiness check reads the engine's record itself (the engine has
	// no call for it without a Principal): it must agree with the engine,
	// which answers service_unavailable until the sync and the list after.
	ctx := context.Background()
	o, _ := e.newOrg(t, orgSpec{})
	p, err := e.Engine.Act(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Engine.Client(p).Institutions(ctx); errcode.Of(err) != errcode.ServiceUnavailable {
		t.Fatalf("Institutions before a sync: %v, want service_unavailable", err)
	}
	if err := e.Engine.Operator().SyncInstitutions(ctx, []payouts.Institution{{ID: 1, Name: "Bank", Rail: payouts.Bank}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Engine.Client(p).Institutions(ctx); err != nil {
		t.Fatalf("Institutions after the sync: %v", err)
	}
	for name, srv := range e.servers() {
		if status, b := probe(t, srv, "/readyz"); status != 200 || b.Status != "ready" {
			t.Errorf("%s /readyz after the sync: %d %+v", name, status, b)
		}
	}
	// The sandbox has its built-in list: ready without a sync.
	s := newEnv(t)
	if status, b := probe(t, s.srv, "/readyz"); status != 200 {
		t.Errorf("sandbox /readyz: %d %+v", status, b)
	}
}

// TestReady_HostChecks: the host's checks join the engine's on both
// handlers, and a failing one makes the answer 503 with its text.
func TestReady_HostChecks(t *testing.T) {
	var workerDown atomic.Bool
	ready := func(ctx context.Context) map[string]error {
		m := map[string]error{"worker": nil, "queue": nil}
		if workerDown.Load() {
			m["worker"] = errors.New("stopped")
		}
		return m
	}
	eng, err := tambala.New(memstore.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &httpapi.Options{Ready: ready}
	adm, err := httpapi.NewAdmin(eng, adminToken, opts)
	if err != nil {
		t.Fatal(err)
	}
	srvs := map[string]*httptest.Server{"public": httptest.NewServer(httpapi.New(eng, opts)), "admin": httptest.NewServer(adm)}
	for _, s := range srvs {
		defer s.Close()
	}
	for name, srv := range srvs {
		workerDown.Store(false)
		if status, b := probe(t, srv, "/readyz"); status != 200 || b.Status != "ready" {
			t.Errorf("%s: %d %+v, want ready", name, status, b)
		}
		workerDown.Store(true)
		status, b := probe(t, srv, "/readyz")
		want := map[string]string{"store": "ok", "worker": "stopped", "queue": "ok"}
		if status != 503 || b.Status != "not_ready" || !equalMaps(b.Checks, want) {
			t.Errorf("%s: %d %+v, want 503 not_ready with %v", name, status, b, want)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestReady_SlowOrPanickingHostCheck: a check that does not answer within
// the readiness timeout, or panics, is reported, never waited for or
// allowed to take the process down.
func TestReady_SlowOrPanickingHostCheck(t *testing.T) {
	eng, err := tambala.New(memstore.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	slow := httptest.NewServer(httpapi.New(eng, &httpapi.Options{Ready: func(ctx context.Context) map[string]error {
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		return nil
	}}))
	defer slow.Close()
	start := time.Now()
	status, b := probe(t, slow, "/readyz")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("/readyz took %s with a stuck check", took)
	}
	if status != 503 || b.Checks["store"] != "ok" || !strings.Contains(b.Checks["host"], "no answer within") {
		t.Errorf("stuck host check: %d %+v", status, b)
	}

	core, logs := observer.New(zapcore.DebugLevel)
	panicky := httptest.NewServer(httpapi.New(eng, &httpapi.Options{Logger: slog.New(zapslog.NewHandler(core)), Ready: func(context.Context) map[string]error {
		panic("boom")
	}}))
	defer panicky.Close()
	status, b = probe(t, panicky, "/readyz")
	if status != 503 || b.Checks["host"] != "the check failed" {
		t.Errorf("panicking host check: %d %+v", status, b)
	}
	if logs.FilterMessage("readiness check panicked").Len() != 1 {
		t.Error("the panic is not logged")
	}
}

// failingStore answers every read with an error once failing is set.
type failingStore struct {
	store.Store
	failing atomic.Bool
}

var errDisk = errors.New("disk on fire at /var/lib/secret/path")

func (f *failingStore) View(ctx context.Context, fn func(store.Tx) error) error {
	if f.failing.Load() {
		return errDisk
	}
	return f.Store.View(ctx, fn)
}

// TestReady_StoreFailure: a store that cannot read makes the process not
// ready; the store's error goes to the log with the request id, never to
// the unauthenticated body.
func TestReady_StoreFailure(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	fs := &failingStore{Store: memstore.New()}
	e := newEnv(t, withStore(fs), withLogger(zap.New(core)), withEnvironment(tambala.Production))
	fs.failing.Store(true)
	for name, srv := range e.servers() {
		r, err := send(srv, "GET", "/readyz", nil, map[string]string{"Request-Id": "probe-" + name})
		if err != nil {
			t.Fatal(err)
		}
		var b probeBody
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if r.Status != 503 || b.Checks["store"] != "the store did not answer a read" || b.Checks["reference_data"] != "the store did not answer a read" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
		if strings.Contains(string(r.Body), "disk on fire") {
			t.Errorf("%s: the store's error reached the body: %s", name, r.Body)
		}
		found := false
		for _, en := range logs.FilterMessage("readiness: the store did not answer a read").All() {
			if en.ContextMap()["request_id"] == "probe-"+name && strings.Contains(en.ContextMap()["error"].(string), "disk on fire") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no log line with the store's error and the request id", name)
		}
	}
}

// TestHealth_ProbeLogLevel: a passing probe's access line is at debug
// level (a probe every few seconds would drown the log), a failing one at
// info like any request.
func TestHealth_ProbeLogLevel(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	e := newEnv(t, withLogger(zap.New(core)), withEnvironment(tambala.Production))
	probe(t, e.srv, "/healthz")
	probe(t, e.srv, "/readyz") // 503: no reference data
	var levels []string
	for _, en := range logs.FilterMessage("request").All() {
		levels = append(levels, en.ContextMap()["path"].(string)+" "+en.Level.String())
	}
	want := "/healthz debug,/readyz info"
	if got := strings.Join(levels, ","); got != want {
		t.Errorf("access lines %q, want %q", got, want)
	}
}
