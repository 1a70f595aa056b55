package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/tambalapay/tambala/internal/teststores"
)

// TestRun_AddressInUseCreatesNothing: a first start whose public or admin
// address is taken fails before it touches the data folder, so it prints
// no key or token and the next start, on free addresses, prints them.
func TestRun_AddressInUseCreatesNothing(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	data := filepath.Join(t.TempDir(), "data")
	for _, c := range []config{
		{addr: taken.Addr().String(), adminAddr: "127.0.0.1:0"},
		{addr: "127.0.0.1:0", adminAddr: taken.Addr().String()},
	} {
		c.data, c.env, c.rate, c.burst, c.quiet, c.logOut = data, "sandbox", 50, 100, true, io.Discard
		var out bytes.Buffer
		err := run(context.Background(), c, &out)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "address already in use")
		assert.NotContains(t, out.String(), "API key")
		assert.NotContains(t, out.String(), "Admin token")
		_, statErr := os.Stat(data)
		assert.ErrorIs(t, statErr, os.ErrNotExist, "the data folder, its store and its admin token are not created")
	}

	// Both addresses are free again: both lines are printed.
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, config{data: data, addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "sandbox", rate: 50, burst: 100,
			quiet: true, logOut: io.Discard}, &out)
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Public API on") }, 10*time.Second, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	assert.Regexp(t, `API key[^:]*:\s+tmb_`, out.String())
	assert.Regexp(t, `Admin token[^:]*:\s+adm_`, out.String())
}

// TestSetup_TwoServersOnOneEmptyPostgres: two servers starting together on
// one empty database create one demo organization between them; one prints
// its key, the other says it already exists.
func TestSetup_TwoServersOnOneEmptyPostgres(t *testing.T) {
	base, schema := teststores.NewPGSchema(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	conn.Close(ctx)
	require.NoError(t, err)
	u, err := url.Parse(base)
	require.NoError(t, err)
	q := u.Query()
	q.Set("search_path", schema) // the server's store lives in the test's schema
	u.RawQuery = q.Encode()

	var outs [2]bytes.Buffer
	var apps [2]*app
	var errs [2]error
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range apps {
		wg.Go(func() {
			<-start
			apps[i], errs[i] = setup(ctx, config{data: t.TempDir(), store: u.String(), env: "sandbox", rate: 50, burst: 100}, zap.NewNop(), &outs[i])
		})
	}
	close(start)
	wg.Wait()
	for i := range apps {
		require.NoError(t, errs[i])
		t.Cleanup(func() { apps[i].store.Close() })
	}
	orgs, err := apps[0].engine.Organizations(ctx)
	require.NoError(t, err)
	require.Len(t, orgs, 1, "exactly one demo organization")
	keyLine := regexp.MustCompile(`API key[^:]*:\s+tmb_`)
	printed := 0
	for i := range outs {
		if keyLine.MatchString(outs[i].String()) {
			printed++
			continue
		}
		assert.Contains(t, outs[i].String(), `Demo organization "Demo Organization" (`+orgs[0].ID+`) already exists`)
	}
	assert.Equal(t, 1, printed, "one key printed: %q / %q", outs[0].String(), outs[1].String())
}
