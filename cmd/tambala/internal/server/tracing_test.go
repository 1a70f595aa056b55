package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTracing_ExportsByOTLP: with -otlp-endpoint the server's spans reach
// an OTLP/HTTP collector at /v1/traces, flushed at shutdown at the latest.
func TestTracing_ExportsByOTLP(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	var bytes int
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		bytes += len(b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()

	c := config{data: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "sandbox",
		rate: 50, burst: 100, quiet: true, logOut: io.Discard, otlpEndpoint: collector.URL}
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, c, out) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Admin API on") }, 10*time.Second, 10*time.Millisecond, "%s", out)
	pub := regexp.MustCompile(`Public API on (http://\S+)`).FindStringSubmatch(out.String())[1]
	key := regexp.MustCompile(`(tmb_\S+)`).FindStringSubmatch(out.String())[1]
	req, err := http.NewRequest("GET", pub+"/v1/ping", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	cancel()
	require.NoError(t, <-done)

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, paths, "no export reached the collector")
	for _, p := range paths {
		assert.Equal(t, "POST /v1/traces application/x-protobuf", p)
	}
	assert.Positive(t, bytes)
}

// TestTracing_Config: the flag's URL is checked; the standard variables
// turn tracing on and off; without any, startTracing gives no provider.
func TestTracing_Config(t *testing.T) {
	c, err := parseConfig("tambala serve", nil, []string{"TAMBALA_OTLP_ENDPOINT=http://collector:4318"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "http://collector:4318", c.otlpEndpoint)
	for _, bad := range []string{"collector:4318", "ftp://x", "http://x/?a=b"} {
		_, err := parseConfig("tambala serve", []string{"-otlp-endpoint", bad}, nil, io.Discard)
		assert.ErrorContains(t, err, "-otlp-endpoint", bad)
	}
	var warn strings.Builder
	c, err = parseConfig("tambala serve", nil, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://c:4318", "OTEL_TRACES_SAMPLER=parentbased_traceidratio"}, &warn)
	require.NoError(t, err)
	assert.True(t, c.otelEndpoint)
	assert.False(t, c.otelOff)
	assert.Empty(t, warn.String(), "OTEL_ variables are not TAMBALA_ settings: no warning")
	c, err = parseConfig("tambala serve", nil, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://c:4318", "OTEL_SDK_DISABLED=true"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, c.otelOff)

	tp, stop, err := startTracing(context.Background(), config{}, nil)
	require.NoError(t, err)
	assert.Nil(t, tp)
	stop()
	tp, stop, err = startTracing(context.Background(), config{otlpEndpoint: "http://127.0.0.1:1", otelOff: true}, nil)
	require.NoError(t, err)
	assert.Nil(t, tp, "OTEL_SDK_DISABLED wins")
	stop()
}
