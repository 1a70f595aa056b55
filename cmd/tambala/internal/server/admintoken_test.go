package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/memstore"
)

// TestResolveAdminToken: every way an instance comes by the admin token
// over one store, and the refusals.
func TestResolveAdminToken(t *testing.T) {
	ctx := context.Background()
	const supplied = "adm_supplied-token-of-at-least-32-characters"

	t.Run("the first start makes one, kept in its folder and as a hash in the store", func(t *testing.T) {
		st := memstore.New()
		dir := t.TempDir()
		c, err := resolveAdminToken(ctx, st, dir, "")
		require.NoError(t, err)
		assert.True(t, c.fresh)
		assert.Regexp(t, `^adm_[A-Za-z0-9_-]{43}$`, c.token)
		assert.Equal(t, sha256.Sum256([]byte(c.token)), c.hash)
		b, err := os.ReadFile(tokenFile(dir))
		require.NoError(t, err)
		assert.Equal(t, c.token+"\n", string(b))
		fi, err := os.Stat(tokenFile(dir))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		assert.Equal(t, []string{"admin-token"}, names(t, dir), "no temporary file is left")

		again, err := resolveAdminToken(ctx, st, dir, "")
		require.NoError(t, err)
		assert.False(t, again.fresh)
		assert.Equal(t, c.token, again.token)

		other := t.TempDir() // a second instance: its own folder, the same store
		second, err := resolveAdminToken(ctx, st, other, "")
		require.NoError(t, err)
		assert.False(t, second.fresh)
		assert.Empty(t, second.token, "it does not know the token, only its hash")
		assert.Equal(t, c.hash, second.hash)
		assert.Empty(t, names(t, other), "it writes no token file")

		withToken, err := resolveAdminToken(ctx, st, t.TempDir(), c.token)
		require.NoError(t, err)
		assert.Equal(t, c.hash, withToken.hash)

		_, err = resolveAdminToken(ctx, st, t.TempDir(), supplied)
		require.ErrorIs(t, err, errTokenDiffers)
		assert.Contains(t, err.Error(), "TAMBALA_ADMIN_TOKEN")
	})

	t.Run("a supplied token on an empty store becomes the store's", func(t *testing.T) {
		st := memstore.New()
		dir := t.TempDir()
		c, err := resolveAdminToken(ctx, st, dir, supplied)
		require.NoError(t, err)
		assert.False(t, c.fresh)
		assert.Equal(t, supplied, c.token)
		assert.Empty(t, names(t, dir), "a supplied token is not written to the folder")
		second, err := resolveAdminToken(ctx, st, t.TempDir(), "")
		require.NoError(t, err)
		assert.Equal(t, sha256.Sum256([]byte(supplied)), second.hash)
	})

	t.Run("a folder's token from before the store kept its hash", func(t *testing.T) {
		st := memstore.New()
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(tokenFile(dir), []byte(supplied+"\n"), 0o600))
		c, err := resolveAdminToken(ctx, st, dir, "")
		require.NoError(t, err)
		assert.Equal(t, supplied, c.token)
		assert.False(t, c.fresh)
		// A folder whose token is not the store's is refused, naming the file.
		other := t.TempDir()
		require.NoError(t, os.WriteFile(tokenFile(other), []byte(strings.Repeat("x", 40)), 0o600))
		_, err = resolveAdminToken(ctx, st, other, "")
		require.ErrorIs(t, err, errTokenDiffers)
		assert.Contains(t, err.Error(), tokenFile(other))
	})

	t.Run("too short", func(t *testing.T) {
		_, err := resolveAdminToken(ctx, memstore.New(), t.TempDir(), "short")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "shorter than 32 characters")
	})

	t.Run("instances starting together agree on one", func(t *testing.T) {
		st := memstore.New()
		dirs := make([]string, 8)
		creds := make([]adminCredential, len(dirs))
		var wg sync.WaitGroup
		for i := range dirs {
			dirs[i] = t.TempDir()
			wg.Go(func() {
				var err error
				creds[i], err = resolveAdminToken(ctx, st, dirs[i], "")
				assert.NoError(t, err)
			})
		}
		wg.Wait()
		fresh := 0
		for i, c := range creds {
			assert.Equal(t, creds[0].hash, c.hash)
			if c.fresh {
				fresh++
				assert.Equal(t, []string{"admin-token"}, names(t, dirs[i]))
			} else {
				assert.Empty(t, names(t, dirs[i]))
			}
		}
		assert.Equal(t, 1, fresh, "one instance made the token")
	})
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

// TestSetup_SecondInstanceTakesTheStoresAdminToken: two servers over one
// PostgreSQL database with their own data folders answer the admin token
// the first printed, and refuse any other.
func TestSetup_SecondInstanceTakesTheStoresAdminToken(t *testing.T) {
	dsn := pgSchemaURL(t)
	ctx := context.Background()
	start := func(data string, out *bytes.Buffer, token string) *app {
		a, err := setup(ctx, config{data: data, store: dsn, env: "sandbox", rate: 50, burst: 100, adminToken: token}, slog.New(slog.DiscardHandler), out)
		require.NoError(t, err)
		t.Cleanup(func() { a.store.Close() })
		return a
	}
	var firstOut, secondOut bytes.Buffer
	first := start(filepath.Join(t.TempDir(), "a"), &firstOut, "")
	m := regexp.MustCompile(`Admin token[^:]*:\s+(adm_\S+)`).FindStringSubmatch(firstOut.String())
	require.NotNil(t, m, firstOut.String())
	token := m[1]
	second := start(filepath.Join(t.TempDir(), "b"), &secondOut, "")
	assert.NotRegexp(t, `adm_`, secondOut.String(), "the second prints no token")
	assert.Contains(t, secondOut.String(), "Admin token: the one this store's first instance made")

	for _, a := range []*app{first, second} {
		assert.Equal(t, http.StatusOK, adminStatus(t, a, token))
		assert.Equal(t, http.StatusUnauthorized, adminStatus(t, a, "adm_"+strings.Repeat("x", 43)))
	}
	// A third given the token by its variable agrees; one given another is refused.
	var thirdOut bytes.Buffer
	third := start(t.TempDir(), &thirdOut, token)
	assert.Equal(t, http.StatusOK, adminStatus(t, third, token))
	_, err := setup(ctx, config{data: t.TempDir(), store: dsn, env: "sandbox", rate: 50, burst: 100, adminToken: "adm_" + strings.Repeat("y", 43)}, slog.New(slog.DiscardHandler), &bytes.Buffer{})
	require.ErrorIs(t, err, errTokenDiffers)
}

func adminStatus(t *testing.T, a *app, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "/admin/orgs", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	a.admin.ServeHTTP(w, req)
	return w.Code
}
