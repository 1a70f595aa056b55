package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogger_OneCoreBehindEveryPart: the handlers log through the
// server's zap logger (given to them as a *slog.Logger), and their lines
// keep their fields and name the caller in the handler, not in the
// bridge.
func TestLogger_OneCoreBehindEveryPart(t *testing.T) {
	var logs, out bytes.Buffer
	a, err := setup(context.Background(), config{data: t.TempDir(), env: "sandbox", rate: 50, burst: 100}, slogOf(newLogger(false, &logs)), &out)
	require.NoError(t, err)
	defer a.store.Close()
	key := regexp.MustCompile(`API key[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())
	require.Len(t, key, 2, out.String())
	token := regexp.MustCompile(`Admin token[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())
	require.Len(t, token, 2, out.String())

	for _, tc := range []struct {
		h          http.Handler
		path, auth string
	}{{a.public, "/v1/ping", key[1]}, {a.admin, "/admin/orgs", token[1]}} {
		req := httptest.NewRequest("GET", tc.path, nil)
		req.Header.Set("Authorization", "Bearer "+tc.auth)
		req.Header.Set("Request-Id", "log"+strings.ReplaceAll(tc.path, "/", "-"))
		rec := httptest.NewRecorder()
		tc.h.ServeHTTP(rec, req)
		require.Equal(t, 200, rec.Code, rec.Body.String())
	}

	seen := map[string]bool{}
	for line := range strings.Lines(logs.String()) {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		if m["msg"] != "request" {
			continue
		}
		seen[m["path"].(string)] = true
		assert.Equal(t, "info", m["level"], line)
		assert.Equal(t, "GET", m["method"], line)
		assert.Equal(t, float64(200), m["status"], line)
		assert.Equal(t, "log"+strings.ReplaceAll(m["path"].(string), "/", "-"), m["request_id"], line)
		assert.Contains(t, m, "duration", line)
		assert.Contains(t, m["caller"], "httpapi/handler.go", line)
		assert.NotContains(t, line, key[1])
		assert.NotContains(t, line, token[1])
	}
	assert.Equal(t, map[string]bool{"/v1/ping": true, "/admin/orgs": true}, seen, logs.String())
}
