package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/store"
)

// settingFlags lists every flag an environment variable also sets.
func settingFlags(t *testing.T) []string {
	t.Helper()
	var c config
	var w bool
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	declare("tambala serve", fs, &c, &w)
	var out []string
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(commandLineOnly, f.Name) {
			out = append(out, f.Name)
		}
	})
	require.NotEmpty(t, out)
	return out
}

func TestConfig_Defaults(t *testing.T) {
	c, err := parseConfig("tambala serve", nil, nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "data", c.data)
	assert.Equal(t, "127.0.0.1:8080", c.addr)
	assert.Equal(t, "127.0.0.1:8081", c.adminAddr)
	assert.Equal(t, "sandbox", c.env)
	assert.Equal(t, 50.0, c.rate)
	assert.Equal(t, 100, c.burst)
	assert.Equal(t, 16, c.inFlightPerOrg)
	assert.Equal(t, 2*time.Second, c.payoutDelay)
	assert.False(t, c.noWorker)
	assert.False(t, c.quiet)
}

// TestConfig_EnvironmentAndFlags: every setting comes from its TAMBALA_
// variable, and a flag on the command line wins over it.
func TestConfig_EnvironmentAndFlags(t *testing.T) {
	environ := []string{
		"TAMBALA_DATA=/srv/tambala", "TAMBALA_ADDR=0.0.0.0:9000", "TAMBALA_ADMIN_ADDR=127.0.0.1:9001",
		"TAMBALA_ENV=production", "TAMBALA_RATE=12.5", "TAMBALA_BURST=7", "TAMBALA_PAYOUT_DELAY=150ms",
		"TAMBALA_WORKER=false", "TAMBALA_QUIET=true", "TAMBALA_CPUPROFILE=/tmp/p", "TAMBALA_PROVIDER=manual", "TAMBALA_IN_FLIGHT_PER_ORG=-1", "PATH=/bin", "HOME=/root",
	}
	c, err := parseConfig("tambala serve", nil, environ, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, config{data: "/srv/tambala", addr: "0.0.0.0:9000", adminAddr: "127.0.0.1:9001", env: "production",
		rate: 12.5, burst: 7, inFlightPerOrg: -1, payoutDelay: 150 * time.Millisecond, noWorker: true, quiet: true, cpuProfile: "/tmp/p", provider: "manual"}, c)

	c, err = parseConfig("tambala serve", []string{"-data", "here", "-rate", "3", "-worker", "-env", "sandbox"}, environ, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "here", c.data, "the flag wins")
	assert.Equal(t, 3.0, c.rate)
	assert.False(t, c.noWorker, "-worker on the command line wins over TAMBALA_WORKER=false")
	assert.Equal(t, "sandbox", c.env)
	assert.Equal(t, 7, c.burst, "what the command line does not give still comes from the environment")

	// The one-shot actions come from the command line only.
	c, err = parseConfig("tambala serve", nil, []string{"TAMBALA_BACKUP=/tmp/x", "TAMBALA_VERSION=true"}, io.Discard)
	require.NoError(t, err)
	assert.Empty(t, c.backup)
	assert.False(t, c.showVersion)
}

func TestConfig_Refusals(t *testing.T) {
	for _, tc := range []struct {
		args, environ []string
		want          string
	}{
		{nil, []string{"TAMBALA_RATE=fast"}, `TAMBALA_RATE="fast"`},
		{nil, []string{"TAMBALA_BURST=0"}, "-rate and -burst must be positive"},
		{nil, []string{"TAMBALA_WORKER=maybe"}, "TAMBALA_WORKER"},
		{nil, []string{"TAMBALA_PAYOUT_DELAY=2"}, "TAMBALA_PAYOUT_DELAY"},
		{[]string{"-env", "prod"}, nil, `-env must be sandbox or production, not "prod"`},
		{[]string{"-rate", "-1"}, nil, "-rate and -burst must be positive"},
		{[]string{"-in-flight-per-org", "0"}, nil, "-in-flight-per-org must be positive, or negative for no limit"},
		{[]string{"extra"}, nil, "unexpected arguments"},
		{[]string{"-nope"}, nil, "flag provided but not defined: -nope"},
	} {
		_, err := parseConfig("tambala serve", tc.args, tc.environ, io.Discard)
		if assert.Error(t, err, "%v %v", tc.args, tc.environ) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	// A TAMBALA_ variable that is no setting (a typo) is named, not fatal.
	var warn bytes.Buffer
	_, err := parseConfig("tambala serve", nil, []string{"TAMBALA_ADMINADDR=x"}, &warn)
	require.NoError(t, err)
	assert.Contains(t, warn.String(), "TAMBALA_ADMINADDR is not a setting of this server")
}

// TestConfig_HelpNamesEveryVariable: -help prints each setting's variable,
// and the README's configuration table lists every one.
func TestConfig_HelpNamesEveryVariable(t *testing.T) {
	var help bytes.Buffer
	_, err := parseConfig("tambala serve", []string{"-help"}, nil, &help)
	require.ErrorIs(t, err, flag.ErrHelp)
	readme, err := os.ReadFile("../../../../README.md")
	require.NoError(t, err)
	for _, name := range settingFlags(t) {
		v := envName(name)
		assert.Contains(t, help.String(), "(env "+v+")", "-help names %s for -%s", v, name)
		assert.Regexp(t, "(?m)^\\| `-"+name+"` \\| `"+v+"` \\|", string(readme), "README's configuration table lists -%s", name)
	}
	for _, name := range commandLineOnly {
		assert.Contains(t, help.String(), "-"+name)
		assert.NotContains(t, help.String(), envName(name))
		assert.Regexp(t, "(?m)^\\| `-"+name+"` \\|", string(readme))
	}
}

func TestVersion(t *testing.T) {
	assert.NotEmpty(t, Version())
	defer func(v string) { version = v }(version)
	version = "v1.2.3"
	assert.True(t, strings.HasPrefix(Version(), "v1.2.3"), Version())
}

// TestLogger_NoSampling: every access line is written, however many
// alike (zap's production config would keep 100 a second of each).
func TestLogger_NoSampling(t *testing.T) {
	var buf bytes.Buffer
	log := newLogger(false, &buf)
	for range 1000 {
		log.Info("request", zap.String("path", "/v1/ping"))
	}
	assert.Equal(t, 1000, strings.Count(buf.String(), `"msg":"request"`))
	buf.Reset()
	quiet := newLogger(true, &buf)
	quiet.Info("request")
	quiet.Warn("warned")
	assert.NotContains(t, buf.String(), `"request"`)
	assert.Contains(t, buf.String(), `"warned"`)
}

// TestProduction_RefusesWithoutProvider: production names what is
// missing and touches nothing.
func TestProduction_RefusesWithoutProvider(t *testing.T) {
	data := filepath.Join(t.TempDir(), "prod")
	var out bytes.Buffer
	err := run(context.Background(), config{data: data, addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "production", rate: 1, burst: 1, logOut: io.Discard}, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "production needs a payout provider")
	assert.Contains(t, err.Error(), "run with -provider manual")
	assert.Empty(t, out.String())
	_, statErr := os.Stat(data)
	assert.ErrorIs(t, statErr, os.ErrNotExist, "the data folder is not even created")
}

// TestProduction_NoDemoOrganization: with a provider (here one the test
// gives; -provider manual in TestProduction_ManualRailStarts), production starts on an empty folder without creating any
// organization or printing the admin token, and is not ready until the
// institutions are synced.
func TestProduction_NoDemoOrganization(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	c := config{data: dir, env: "production", rate: 50, burst: 100, payouts: sandbox.New(nil)}
	a, err := setup(context.Background(), c, slog.New(slog.DiscardHandler), &out)
	require.NoError(t, err)
	defer a.store.Close()
	orgs, err := a.engine.Operator().Organizations(context.Background())
	require.NoError(t, err)
	assert.Empty(t, orgs)
	assert.Equal(t, tambala.Production, a.engine.Settings().Environment())
	assert.NotContains(t, out.String(), "API key")
	token, err := os.ReadFile(filepath.Join(dir, "admin-token"))
	require.NoError(t, err)
	assert.NotContains(t, out.String(), strings.TrimSpace(string(token)), "production never prints the admin token")
	assert.Contains(t, out.String(), "Admin token created in "+filepath.Join(dir, "admin-token"))
	assert.Contains(t, out.String(), "No organization yet")

	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	a.loops.start(&wg, "background_work", func() error { return a.engine.Run(ctx) })
	defer func() { cancel(); wg.Wait() }()
	status, body := get(t, a.public, "/readyz")
	assert.Equal(t, 503, status)
	assert.Contains(t, body, `"reference_data":"institution reference data has not been synced`)
	assert.Contains(t, body, `"loops":"ok"`)
	require.NoError(t, a.engine.Operator().SyncInstitutions(context.Background(), []payouts.Institution{{ID: 1, Name: "Bank", Rail: payouts.Bank}}))
	status, body = get(t, a.admin, "/readyz")
	assert.Equal(t, 200, status, body)
}

// get serves one request through h without a network.
func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", path, nil)
	require.NoError(t, err)
	rec := &recorder{header: http.Header{}}
	h.ServeHTTP(rec, req)
	return rec.status, rec.body.String()
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(s int) {
	if r.status == 0 {
		r.status = s
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(200)
	return r.body.Write(b)
}

func TestLoops_Readiness(t *testing.T) {
	var l loops
	assert.EqualError(t, l.ready(context.Background())["loops"], "not started yet")
	var wg sync.WaitGroup
	stopA := make(chan struct{})
	l.start(&wg, "a", func() error { <-stopA; return nil })
	l.start(&wg, "b", func() error { return errors.New("no provider") })
	require.Eventually(t, func() bool { return l.ready(context.Background())["loops"] != nil }, 5*time.Second, time.Millisecond)
	assert.EqualError(t, l.ready(context.Background())["loops"], "b stopped: no provider")
	close(stopA)
	wg.Wait()
	assert.EqualError(t, l.ready(context.Background())["loops"], "a stopped; b stopped: no provider")
}

// TestDataFolderInUse: a second process on a held data folder is told so,
// at start and for -backup.
func TestDataFolderInUse(t *testing.T) {
	dir := t.TempDir()
	st, err := boltstore.Open(dbFile(dir), nil)
	require.NoError(t, err)
	defer st.Close()

	_, err = setup(context.Background(), config{data: dir, env: "sandbox", rate: 1, burst: 1}, slog.New(slog.DiscardHandler), io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "data folder "+dir+" is in use by another tambala process (bbolt lock")
	assert.NotContains(t, err.Error(), "timeout")

	copyPath := filepath.Join(t.TempDir(), "copy.bolt")
	err = backupData(context.Background(), config{data: dir, adminAddr: "127.0.0.1:18181", backup: copyPath}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is in use by another tambala process")
	assert.Contains(t, err.Error(), "http://127.0.0.1:18181/admin/backup")
	_, statErr := os.Stat(copyPath)
	assert.ErrorIs(t, statErr, os.ErrNotExist, "no partial copy is left")
	entries, _ := os.ReadDir(filepath.Dir(copyPath))
	assert.Empty(t, entries, "no temporary file is left")
}

// TestBackupFlag: -backup copies a folder no process holds, refuses to
// overwrite a file, and the copy is a data folder's database.
func TestBackupFlag(t *testing.T) {
	dir := t.TempDir()
	a, err := setup(context.Background(), config{data: dir, env: "sandbox", rate: 1, burst: 1}, slog.New(slog.DiscardHandler), io.Discard)
	require.NoError(t, err)
	require.NoError(t, a.store.Close())

	copyPath := filepath.Join(t.TempDir(), "copy.bolt")
	var out bytes.Buffer
	require.NoError(t, backupData(context.Background(), config{data: dir, backup: copyPath}, &out))
	assert.Contains(t, out.String(), "written to "+copyPath)
	fi, err := os.Stat(copyPath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the copy holds key hashes: owner only")

	err = backupData(context.Background(), config{data: dir, backup: copyPath}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the file exists")
	err = backupData(context.Background(), config{data: t.TempDir(), backup: copyPath + "2"}, io.Discard)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no database in data folder")

	restored := t.TempDir()
	require.NoError(t, os.Rename(copyPath, dbFile(restored)))
	out.Reset()
	b, err := setup(context.Background(), config{data: restored, env: "sandbox", rate: 1, burst: 1}, slog.New(slog.DiscardHandler), &out)
	require.NoError(t, err)
	defer b.store.Close()
	orgs, err := b.engine.Operator().Organizations(context.Background())
	require.NoError(t, err)
	assert.Len(t, orgs, 1)
	assert.NotContains(t, out.String(), "API key", "a restored folder is not empty: no new demo organization")
	assert.Contains(t, out.String(), "already exists", "the restored demo organization is named")
}

// TestRun_ReadyBackupUnderLoadRestore is the README's "Operate it" walk:
// start the server, wait for /readyz, take GET /admin/backup while
// payouts are being made, start a second server on a folder holding the
// copy, and find every payout acknowledged before the backup began.
func TestRun_ReadyBackupUnderLoadRestore(t *testing.T) {
	var out, logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	dir := t.TempDir()
	c := config{data: dir, addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "sandbox",
		payoutDelay: 10 * time.Millisecond, rate: 1_000_000, burst: 1_000_000, logOut: &logs}
	go func() { done <- run(ctx, c, &out) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			require.NoError(t, <-done)
		}
	}
	t.Cleanup(stop)
	var pub, adm string
	require.Eventually(t, func() bool {
		p := regexp.MustCompile(`Public API on (http://\S+)`).FindStringSubmatch(out.String())
		a := regexp.MustCompile(`Admin API on (http://\S+)`).FindStringSubmatch(out.String())
		if p == nil || a == nil {
			return false
		}
		pub, adm = p[1], a[1]
		return true
	}, 5*time.Second, 10*time.Millisecond)
	key := regexp.MustCompile(`API key[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())[1]
	token := regexp.MustCompile(`Admin token[^:]*:\s+(\S+)`).FindStringSubmatch(out.String())[1]

	for _, base := range []string{pub, adm} {
		res, err := http.Get(base + "/readyz")
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, 200, res.StatusCode, string(b))
		assert.JSONEq(t, `{"status":"ready"}`, string(b))
	}

	// Load: clients make payouts to a test wallet; an id is recorded once
	// its 202 has arrived.
	var (
		mu    sync.Mutex
		acked []string
		halt  atomic.Bool
		wg    sync.WaitGroup
	)
	for cl := range 8 {
		wg.Go(func() {
			for i := 0; !halt.Load(); i++ {
				body := `{"amount_mwk":"100.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"Test Wallet"}`
				req, _ := http.NewRequest("POST", pub+"/v1/payouts/momo", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Idempotency-Key", fmt.Sprintf("load-%d-%d", cl, i))
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Errorf("client %d: %v", cl, err)
					return
				}
				var po struct {
					ID string `json:"id"`
				}
				err = json.NewDecoder(res.Body).Decode(&po)
				res.Body.Close()
				if res.StatusCode != 202 || err != nil {
					t.Errorf("client %d: %d %v", cl, res.StatusCode, err)
					return
				}
				mu.Lock()
				acked = append(acked, po.ID)
				mu.Unlock()
			}
		})
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
	require.Eventually(t, func() bool { return count() >= 200 }, 20*time.Second, time.Millisecond)
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	req, _ := http.NewRequest("GET", adm+"/admin/backup", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	restored := t.TempDir()
	f, err := os.Create(dbFile(restored))
	require.NoError(t, err)
	_, err = io.Copy(f, res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Equal(t, 200, res.StatusCode)
	require.NotEmpty(t, res.Header.Get("Request-Id"))
	after := count()
	require.Eventually(t, func() bool { return count() >= after+50 }, 20*time.Second, time.Millisecond, "the load goes on after the backup")
	halt.Store(true)
	wg.Wait()
	stop()

	// The log: one start line naming what an operator needs, and no secret.
	var started map[string]any
	for line := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(line, `"tambala server started"`) {
			require.Nil(t, started, "one start line")
			require.NoError(t, json.Unmarshal([]byte(line), &started))
		}
		assert.NotContains(t, line, key)
		assert.NotContains(t, line, key[16:])
		assert.NotContains(t, line, token)
	}
	require.NotNil(t, started, logs.String())
	abs, _ := filepath.Abs(dir)
	assert.Equal(t, Version(), started["version"])
	assert.Equal(t, "sandbox", started["environment"])
	assert.Equal(t, abs, started["data"])
	assert.Equal(t, "bbolt "+dbFile(dir), started["store"])
	assert.Equal(t, strings.TrimPrefix(pub, "http://"), started["addr"])
	assert.Equal(t, strings.TrimPrefix(adm, "http://"), started["admin_addr"])
	assert.Equal(t, 1, strings.Count(logs.String(), `"msg":"backup written"`))

	// The copy's ledger balances.
	copied, err := boltstore.Open(dbFile(restored), nil)
	require.NoError(t, err)
	require.NoError(t, ledger.CheckStore(context.Background(), copied))
	require.NoError(t, copied.Close())

	// Restore: a second server on the folder holding the copy.
	var out2 syncBuffer
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan error, 1)
	c2 := config{data: restored, addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "sandbox",
		payoutDelay: 10 * time.Millisecond, rate: 1_000_000, burst: 1_000_000, logOut: io.Discard}
	go func() { done2 <- run(ctx2, c2, &out2) }()
	defer func() { cancel2(); require.NoError(t, <-done2) }()
	var pub2 string
	require.Eventually(t, func() bool {
		p := regexp.MustCompile(`Public API on (http://\S+)`).FindStringSubmatch(out2.String())
		if p != nil {
			pub2 = p[1]
		}
		return p != nil
	}, 5*time.Second, 10*time.Millisecond)
	assert.NotContains(t, out2.String(), "API key", "no new demo organization")
	assert.Contains(t, out2.String(), "Demo organization \"Demo Organization\" (")
	for _, id := range before {
		req, _ := http.NewRequest("GET", pub2+"/v1/payouts/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+key) // the same key: it is in the copy
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, 200, res.StatusCode, "payout %s, acknowledged before the backup, in the restored server", id)
	}
	t.Logf("%d payouts acknowledged before the backup, all found after the restore; %d made in all", len(before), count())
}

// withoutTambalaEnv drops TAMBALA_ variables from env, so that a run of the
// binary sees only what the test sets.
func withoutTambalaEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TAMBALA_") {
			out = append(out, kv)
		}
	}
	return out
}

// failingWrapper is a store that fails the way pebblestore does: a closed
// Failed channel and an error from Err.
type failingWrapper struct {
	store.Store
	failed chan struct{}
}

func (f failingWrapper) Failed() <-chan struct{} { return f.failed }
func (f failingWrapper) Err() error              { return errors.New("commit 7: disk on fire") }

// TestStoreFailure_StopsTheServer: a store that stops taking updates ends
// the server with an error that says to start it again (a supervisor then
// reopens the store), after the usual graceful stop.
func TestStoreFailure_StopsTheServer(t *testing.T) {
	failed := make(chan struct{})
	log := &syncBuffer{}
	c := config{data: t.TempDir(), addr: "127.0.0.1:0", adminAddr: "127.0.0.1:0", env: "sandbox", rate: 1, burst: 1, noWorker: true,
		logOut: log, wrapStore: func(st store.Store) store.Store { return failingWrapper{Store: st, failed: failed} }}
	out := &syncBuffer{}
	errc := make(chan error, 1)
	go func() { errc <- run(context.Background(), c, out) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Admin API on") }, 10*time.Second, 10*time.Millisecond)
	close(failed)
	select {
	case err := <-errc:
		require.ErrorIs(t, err, errStoreFailed)
		require.ErrorContains(t, err, "disk on fire")
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
	require.Contains(t, out.String(), "Stopped.")
	require.Contains(t, log.String(), "store failed; stopping")

	// A store that never fails that way gives a channel that never delivers.
	require.Nil(t, storeFailure(context.Background(), memstore.New()))
}
