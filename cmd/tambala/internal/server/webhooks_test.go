package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSandbox_WebhookToOwnListenersRefused: the sandbox keeps plain http to
// loopback receivers, but a webhook to the server's own listeners (the
// admin API and console, the public API and portal), by address or by
// localhost, is refused with validation_error when it is set.
func TestSandbox_WebhookToOwnListenersRefused(t *testing.T) {
	c := config{data: filepath.Join(t.TempDir(), "sb"), addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "sandbox",
		rate: 50, burst: 100, quiet: true, logOut: io.Discard}
	pub, adm, out := startServer(t, c)
	token := regexp.MustCompile(`Admin token[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())[1]
	org := regexp.MustCompile(`Demo organization "[^"]*" \((\S+)\) created`).FindStringSubmatch(out.String())[1]
	receiver := httptest.NewServer(http.NotFoundHandler())
	defer receiver.Close()

	set := func(u string) (int, map[string]any) {
		t.Helper()
		body, err := json.Marshal(map[string]string{"url": u})
		require.NoError(t, err)
		req, err := http.NewRequest("PUT", adm+"/admin/orgs/"+org+"/webhook", strings.NewReader(string(body)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var m map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&m))
		return res.StatusCode, m
	}
	port := func(base string) string {
		u, err := url.Parse(base)
		require.NoError(t, err)
		return u.Port()
	}
	for _, u := range []string{
		adm + "/console/sign-in", "http://localhost:" + port(adm) + "/console/sign-in", "http://[::1]:" + port(adm) + "/admin/orgs",
		"http://127.0.0.2:" + port(adm) + "/", pub + "/portal/sign-in", "http://localhost:" + port(pub) + "/v1/ping",
	} {
		status, m := set(u)
		assert.Equal(t, http.StatusBadRequest, status, u)
		e, _ := m["error"].(map[string]any)
		assert.Equal(t, "validation_error", e["code"], u)
		assert.Equal(t, "url must not point at this server's own listeners.", e["message"], u)
	}
	status, m := set(receiver.URL + "/hook")
	assert.Equal(t, http.StatusOK, status, "%v", m)
}
