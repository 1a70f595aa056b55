package httpapi_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
)

// TestLogs_OpsRoutesNeverLogSecrets extends TestLogs_NeverContainKeysOrAdminToken
// to the routes of issue #15: the probes, the backup and request ids, with
// secrets sent where they do not belong (as the request id, on probes).
func TestLogs_OpsRoutesNeverLogSecrets(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "db.bolt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, withStore(st), withLogger(zap.New(core)), withEnvironment(tambala.Production))
	_, key := e.newOrg(t, orgSpec{})

	for _, srv := range e.servers() {
		for _, path := range []string{"/healthz", "/readyz"} {
			for _, h := range []map[string]string{
				hdr(key), hdr(adminToken),
				hdr(key, "Request-Id", key), hdr("", "Request-Id", key), hdr("", "Request-Id", adminToken),
				hdr(key, "Request-Id", key[16:]), hdr(adminToken, "Request-Id", adminToken[10:]),
			} {
				if _, err := send(srv, "GET", path, nil, h); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if r, err := send(e.admSrv, "GET", "/admin/backup", nil, hdr(adminToken, "Request-Id", adminToken)); err != nil || r.Status != 200 {
		t.Fatalf("GET /admin/backup: %v %v", r, err)
	}
	e.adminWith(t, "GET", "/admin/backup", nil, hdr(adminToken+"x")).want(t, 401, "")
	e.adminWith(t, "GET", "/admin/backup", nil, hdr(key)).want(t, 401, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key, "Request-Id", key)).want(t, 200, "")
	e.do(t, "GET", "/v1/ping", nil, hdr(key, "Request-Id", "x"+key[16:])).want(t, 200, "")

	entries := logs.All()
	if len(entries) < 20 {
		t.Fatalf("only %d log entries: is the logger wired?", len(entries))
	}
	for _, en := range entries {
		text := en.Message + " " + fmt.Sprint(en.ContextMap())
		for _, secret := range []string{key, key[16:], adminToken, adminToken[10:]} {
			if strings.Contains(text, secret) {
				t.Errorf("log entry contains a secret: %s", text)
			}
		}
	}
	if logs.FilterMessage("backup written").Len() != 1 {
		t.Error("the backup is not logged")
	}
}
