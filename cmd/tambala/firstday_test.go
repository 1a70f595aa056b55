package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/internal/teststores"
)

// TestCreditAgainSaysAlreadyCredited: fund and deposit record repeated
// under their reference credit nothing more, and say so instead of
// printing a credit (exit status 0).
func TestCreditAgainSaysAlreadyCredited(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "")
	org := s.demoOrg(t)
	balance := func(asset string) string {
		t.Helper()
		status, b := apiCall(t, "GET", s.PublicURL+"/v2/balances/"+asset, s.DemoKey, nil)
		require.Equal(t, http.StatusOK, status)
		return b["available"].(string)
	}

	assert.Equal(t, "Credited 5000.00 MWK to "+org+" (ref wire-1).\n", s.ok(t, "fund", org, "5000.00", "MWK", "-ref", "wire-1"))
	mwk := balance("MWK")
	out := s.ok(t, "fund", org, "5000.00", "MWK", "-ref", "wire-1")
	assert.Equal(t, "Already credited under this reference: 5000.00 MWK to "+org+" (ref wire-1); nothing more was credited.\n", out)
	assert.Equal(t, mwk, balance("MWK"))

	deposit := []string{"deposit", "record", org, "-network", "tron", "-asset", "USDT", "-amount", "25", "-tx-ref", "0xabc"}
	out = s.ok(t, deposit...)
	assert.Contains(t, out, "Recorded deposit 25.000000 USDT to "+org+" (network tron, tx 0xabc).\n")
	usdt := balance("USDT")
	out = s.ok(t, deposit...)
	assert.True(t, strings.HasPrefix(out, "Already credited under this reference: deposit 25.000000 USDT to "+org+
		" (network tron, tx 0xabc); nothing more was credited.\n"), out)
	assert.NotContains(t, out, "Recorded deposit")
	assert.Equal(t, usdt, balance("USDT"))
}

// commandMentions are the tambala commands a text names ("tambala org
// create"), with the words after them.
var commandMentions = regexp.MustCompile(`\btambala((?: [a-z][a-z-]*)+)`)

// TestServerHintsNameCommands: the server's own hints (a production
// start, serve -h, the manual rail's line) name the tambala command to run,
// never an admin API route, and every command they name exists.
func TestServerHintsNameCommands(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "", "-env", "production", "-provider", "manual")
	start := s.Out.String()
	assert.Contains(t, start, "No organization yet: create one with tambala org create NAME, and sync the institutions with tambala institutions sync FILE.")
	assert.Contains(t, start, "tambala payout resolve")
	var help strings.Builder
	code := run(context.Background(), []string{"serve", "-h"}, nil, &help, &help)
	require.Equal(t, 0, code)
	for name, text := range map[string]string{"production start": start, "serve -h": help.String()} {
		assert.NotContains(t, text, "/admin/", "%s names a route:\n%s", name, text)
		mentions := commandMentions.FindAllStringSubmatch(text, -1)
		require.NotEmpty(t, mentions, name)
		for _, m := range mentions {
			if w := strings.Fields(m[1]); w[0] == "engine" || w[0] == "process" {
				continue // "the tambala engine", "another tambala process"
			}
			found, _ := lookup(commands(), strings.Fields(m[1]))
			assert.NotNil(t, found, "%s names %q, which is no command", name, m[0])
		}
	}
}

// TestSecondInstance: a second server over the same database says that
// the demo organization exists already, and that its data folder has no
// admin token, so that the command run there fails, and how to fix it;
// the fix works. A restart of one server says the demo organization
// exists too.
func TestSecondInstance(t *testing.T) {
	t.Parallel()
	dsn := teststores.NewPGSchemaURL(t)
	a := startServer(t, "", dsn)
	require.NotEmpty(t, a.DemoKey)
	org := a.demoOrg(t)
	dataB := filepath.Join(t.TempDir(), "b")
	b := startServer(t, dataB, dsn)
	assert.Empty(t, b.DemoKey)
	assert.Contains(t, b.Out.String(), `Demo organization "Demo Organization" (`+org+`) already exists: the start that created it printed its key once (tambala key create `+org+` makes another).`)
	tokenB := filepath.Join(dataB, "admin-token")
	assert.Contains(t, b.Out.String(), tokenB+" does not exist, so the tambala command run here fails until you copy that admin-token file there (mode 0600) or set TAMBALA_ADMIN_TOKEN.")

	code, _, errOut := tambala(t, nil, "org", "list", "-admin-url", b.AdminURL, "-data", dataB)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "copy the admin-token file from that server's data folder to "+tokenB)
	tok, err := os.ReadFile(filepath.Join(a.Data, "admin-token"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(tokenB, tok, 0o600))
	code, out, errOut := tambala(t, nil, "org", "list", "-admin-url", b.AdminURL, "-data", dataB)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Demo Organization")

	// A restart, on its own data folder: the same line, no new key.
	require.Equal(t, 0, a.Stop())
	again := startServer(t, a.Data, dsn)
	assert.Empty(t, again.DemoKey)
	assert.Empty(t, again.Token, "the token is not printed again")
	assert.Contains(t, again.Out.String(), `Demo organization "Demo Organization" (`+org+`) already exists`)
	assert.NotContains(t, again.Out.String(), "does not exist", "its data folder keeps the token")
}
