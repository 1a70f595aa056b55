package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUsage: no command prints the list (status 2), -h prints it (0), an
// unknown command says so on stderr (2), and every command has -h (0).
func TestUsage(t *testing.T) {
	code, out, _ := tambala(t, nil)
	assert.Equal(t, 2, code)
	assert.Contains(t, out, "Commands:")
	code, out, _ = tambala(t, nil, "-h")
	assert.Equal(t, 0, code)
	for _, c := range commands() {
		assert.Contains(t, out, "  "+c.name+" ", "-h lists %s", c.name)
	}
	code, out, errOut := tambala(t, nil, "frobnicate")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `unknown command "frobnicate"`)

	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			args := append(strings.Fields(c.name), "-h")
			code, out, errOut := tambala(t, nil, args...)
			assert.Equal(t, 0, code, errOut)
			assert.Empty(t, out, "help goes to stderr")
			assert.Contains(t, errOut, "Usage: tambala "+c.name)
		})
	}
}

// TestServeAndVersion: the built command reports the version set at
// build and its revision, and serve's -help names every variable.
func TestServeAndVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "tambala")
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X github.com/tambalapay/tambala/cmd/tambala/internal/server.version=v0.2.0-test", ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	version := exec.Command(bin, "version")
	version.Env = []string{"HOME=" + t.TempDir()}
	out, err = version.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Regexp(t, `^tambala v0\.2\.0-test( \([0-9a-f]{12}(\+dirty)?(, [0-9TZ:-]+)?\))?\n$`, string(out))

	help := exec.Command(bin, "serve", "-help")
	help.Env = []string{"TAMBALA_RATE=3"}
	out, err = help.CombinedOutput()
	require.NoError(t, err, "-help exits 0")
	assert.Contains(t, string(out), "Usage: tambala serve")
	assert.Contains(t, string(out), "TAMBALA_ADMIN_ADDR")
}

// TestServe: tambala serve starts a sandbox that answers, and stops with
// status 0.
func TestServe(t *testing.T) {
	s := startServer(t, "", "")
	require.NotEmpty(t, s.Token)
	require.NotEmpty(t, s.DemoKey)
	res, err := http.Get(s.AdminURL + "/readyz")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, 0, s.Stop())
	_, err = os.Stat(filepath.Join(s.Data, "admin-token"))
	assert.NoError(t, err)
}
