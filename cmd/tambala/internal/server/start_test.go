package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
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

// pgSchemaURL is the URL of a fresh PostgreSQL schema of the test's own
// (skipped or failed by the rule of teststores.PGURL): the server's store
// lives in it through search_path.
func pgSchemaURL(t *testing.T) string { return teststores.NewPGSchemaURL(t) }

// holdAfterNoOrganization holds the server at the first read that finds no
// organization (its check before the demo bootstrap) until release is
// closed, after closing seen: the other server then creates the demo
// organization in between, as when both start at the same moment.
type holdAfterNoOrganization struct {
	store.Store
	once          sync.Once
	seen, release chan struct{}
}

func (h *holdAfterNoOrganization) View(ctx context.Context, fn func(store.Tx) error) error {
	var scanned, found bool
	err := h.Store.View(ctx, func(tx store.Tx) error {
		scanned, found = false, false
		return fn(orgScan{Tx: tx, scanned: &scanned, found: &found})
	})
	if err == nil && scanned && !found {
		h.once.Do(func() { close(h.seen); <-h.release })
	}
	return err
}

// orgScan notes whether the organizations were scanned and one was found.
type orgScan struct {
	store.Tx
	scanned, found *bool
}

func (t orgScan) Scan(bucket []byte, opt store.ScanOptions, fn func(k, v []byte) (bool, error)) error {
	if string(bucket) != "orgs" {
		return t.Tx.Scan(bucket, opt, fn)
	}
	*t.scanned = true
	return t.Tx.Scan(bucket, opt, func(k, v []byte) (bool, error) {
		*t.found = true
		return fn(k, v)
	})
}

// TestSetup_TwoServersOnOneEmptyPostgres: two servers starting together on
// one empty database create one demo organization between them and print
// one key. The other says the demo organization already exists, whether
// its bootstrap found the first's or it started after the first committed.
func TestSetup_TwoServersOnOneEmptyPostgres(t *testing.T) {
	ctx := context.Background()
	keyLine := regexp.MustCompile(`API key[^:]*:\s+tmb_`)
	start := func(t *testing.T, dsn string, wrap func(store.Store) store.Store, out io.Writer) *app {
		a, err := setup(ctx, config{data: t.TempDir(), store: dsn, env: "sandbox", rate: 50, burst: 100, wrapStore: wrap}, slog.New(slog.DiscardHandler), out)
		require.NoError(t, err)
		t.Cleanup(func() { a.store.Close() })
		return a
	}
	oneOrg := func(t *testing.T, a *app) string {
		orgs, err := a.engine.Operator().Organizations(ctx)
		require.NoError(t, err)
		require.Len(t, orgs, 1, "exactly one demo organization")
		return orgs[0].ID
	}

	t.Run("at once", func(t *testing.T) {
		dsn := pgSchemaURL(t)
		var outs [2]bytes.Buffer
		var apps [2]*app
		ready := make(chan struct{})
		var wg sync.WaitGroup
		for i := range apps {
			wg.Go(func() {
				<-ready
				apps[i] = start(t, dsn, nil, &outs[i])
			})
		}
		close(ready)
		wg.Wait()
		require.NotNil(t, apps[0])
		require.NotNil(t, apps[1])
		id := oneOrg(t, apps[0])
		printed := 0
		for i := range outs {
			switch o := outs[i].String(); {
			case keyLine.MatchString(o):
				printed++
			default:
				assert.Contains(t, o, `Demo organization "Demo Organization" (`+id+`) already exists`)
			}
		}
		assert.Equal(t, 1, printed, "one key printed: %q / %q", outs[0].String(), outs[1].String())
	})

	t.Run("the second finds the first's in its transaction", func(t *testing.T) {
		dsn := pgSchemaURL(t)
		hold := &holdAfterNoOrganization{seen: make(chan struct{}), release: make(chan struct{})}
		var second bytes.Buffer
		done := make(chan *app, 1)
		go func() {
			a, err := setup(ctx, config{data: t.TempDir(), store: dsn, env: "sandbox", rate: 50, burst: 100,
				wrapStore: func(st store.Store) store.Store { hold.Store = st; return hold }}, slog.New(slog.DiscardHandler), &second)
			if err != nil {
				t.Error(err)
			}
			done <- a
		}()
		select { // the second has found no organization
		case <-hold.seen:
		case a := <-done:
			t.Fatalf("the second server started without reading the organizations first (%v)", a != nil)
		case <-time.After(30 * time.Second):
			t.Fatal("the second server never read the organizations")
		}
		var first bytes.Buffer
		a := start(t, dsn, nil, &first)
		close(hold.release)
		b := <-done
		require.NotNil(t, b)
		t.Cleanup(func() { b.store.Close() })
		id := oneOrg(t, a)
		assert.Regexp(t, keyLine, first.String())
		assert.NotRegexp(t, keyLine, second.String())
		assert.Contains(t, second.String(), `Demo organization "Demo Organization" (`+id+`) already exists`)
	})
}

// TestConfig_PublicURL: -public-url and TAMBALA_PUBLIC_URL, checked at
// start.
func TestConfig_PublicURL(t *testing.T) {
	c, err := parseConfig("tambala serve", nil, []string{"TAMBALA_PUBLIC_URL=https://pay.example.com"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "https://pay.example.com", c.publicURL)
	c, err = parseConfig("tambala serve", []string{"-public-url", "https://api.example.com/v"}, []string{"TAMBALA_PUBLIC_URL=https://pay.example.com"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com/v", c.publicURL, "the flag wins")
	c, err = parseConfig("tambala serve", nil, nil, io.Discard)
	require.NoError(t, err)
	assert.Empty(t, c.publicURL)
	for _, bad := range []string{"pay.example.com", "ftp://pay.example.com", "https://pay.example.com/?x=1"} {
		_, err := parseConfig("tambala serve", []string{"-public-url", bad}, nil, io.Discard)
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "-public-url")
		}
	}
}

// TestSetup_ProofLinksUsePublicURL: the server's funding proof links are
// absolute on -public-url, else relative; never on the request's Host.
func TestSetup_ProofLinksUsePublicURL(t *testing.T) {
	for _, tc := range []struct{ publicURL, prefix string }{
		{"", "/files/proofs/"},
		{"https://pay.example.com", "https://pay.example.com/files/proofs/"},
	} {
		var out bytes.Buffer
		a, err := setup(context.Background(), config{data: t.TempDir(), env: "sandbox", rate: 50, burst: 100, publicURL: tc.publicURL}, slog.New(slog.DiscardHandler), &out)
		require.NoError(t, err)
		t.Cleanup(func() { a.store.Close() })
		key := regexp.MustCompile(`API key[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())
		require.Len(t, key, 2, out.String())
		token := regexp.MustCompile(`Admin token[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())
		require.Len(t, token, 2, out.String())
		call := func(h http.Handler, method, path, auth, contentType, body string) (int, map[string]any) {
			t.Helper()
			req := httptest.NewRequest(method, path, strings.NewReader(body))
			req.Host = "evil.example"
			req.Header.Set("Authorization", "Bearer "+auth)
			req.Header.Set("Idempotency-Key", "proof-link")
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var m map[string]any
			_ = json.Unmarshal(rec.Body.Bytes(), &m)
			return rec.Code, m
		}
		status, q := call(a.public, "POST", "/v2/orders/quotes", key[1], "application/json", `{"from_asset":"MWK","to_asset":"USDT","from_amount":"100000.00"}`)
		require.Equal(t, 201, status, q)
		status, o := call(a.public, "POST", "/v2/orders", key[1], "application/json", `{"quote_id":"`+q["quote_id"].(string)+`","client_ref":"inv-1"}`)
		require.Equal(t, 201, status, o)
		id := o["id"].(string)
		status, d := call(a.admin, "POST", "/admin/orders/"+id+"/instructions", token[1], "application/json", `{"bank_name":"NBM","account_name":"Desk","account_number":"1"}`)
		require.Equal(t, 200, status, d)
		status, o = call(a.public, "PUT", "/v2/orders/"+id+"/proofs/funding", key[1], "application/pdf", "%PDF-1.4 proof\n%%EOF\n")
		require.Equal(t, 200, status, o)
		status, link := call(a.public, "GET", "/v2/orders/"+id+"/proofs/funding", key[1], "", "")
		require.Equal(t, 200, status, link)
		assert.True(t, strings.HasPrefix(link["url"].(string), tc.prefix), "url %v, want it under %s", link["url"], tc.prefix)
	}
}
