package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/cmd/tambala/internal/server"
	"github.com/tambalapay/tambala/internal/teststores"
	"github.com/tambalapay/tambala/store"
)

var idemSeq atomic.Int64

// payouts makes n mobile-money payouts to a sandbox test number through
// s's public API with its demo key, and returns their ids, each
// acknowledged (202).
func (s *testServer) payouts(t *testing.T, n int) []string {
	t.Helper()
	require.NotEmpty(t, s.DemoKey, "the server printed no demo key")
	var ids []string
	for range n {
		body := `{"amount_mwk":"5000.00","institution_id":101,"mobile_number":"111100000112","beneficiary_name":"Test Wallet"}`
		req, err := http.NewRequest("POST", s.PublicURL+"/v1/payouts/momo", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+s.DemoKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", fmt.Sprintf("store-test-%d-%d", time.Now().UnixNano(), idemSeq.Add(1)))
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusAccepted, res.StatusCode, string(b))
		var p struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(b, &p))
		require.NotEmpty(t, p.ID, string(b))
		ids = append(ids, p.ID)
	}
	return ids
}

// requirePayouts checks that every payout of ids is there on s (GET
// /v1/payouts/{id} with key, the demo key of the server backed up).
func (s *testServer) requirePayouts(t *testing.T, key string, ids []string) {
	t.Helper()
	require.NotEmpty(t, ids)
	for _, id := range ids {
		req, err := http.NewRequest("GET", s.PublicURL+"/v1/payouts/"+id, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode, "payout %s, acknowledged before the backup: %s", id, b)
	}
}

// requireLedgerChecks runs tambala ledger check on data and store.
func requireLedgerChecks(t *testing.T, data, store string) {
	t.Helper()
	code, out, errOut := tambala(t, nil, "ledger", "check", "-data", data, "-store", store)
	require.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, out, "Every invariant holds")
	assert.Regexp(t, `[1-9][0-9]* entries`, out)
}

// TestBackupRestore: on bbolt and pebble, payouts are made, a backup is
// taken through the running server (backup -from, GET /admin/backup), the
// offline commands refuse the store in use, the server stops, an offline
// backup is taken; each copy is restored into a new folder, a server
// started there has every payout acknowledged before its backup, and the
// ledger checks.
func TestBackupRestore(t *testing.T) {
	for _, kind := range []string{"bbolt", "pebble"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			storeArg := storeFlag(t, kind)
			s := startServer(t, "", storeArg)
			dir := t.TempDir()
			before := s.payouts(t, 3)

			online := filepath.Join(dir, "online.backup")
			code, out, errOut := tambala(t, nil, "backup", "-from", s.AdminURL, "-admin-token", s.Token, online)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "written to "+online)
			want := map[string]string{"bbolt": "restore -data NEWDATA " + online, "pebble": "restore -data NEWDATA -store pebble " + online}[kind]
			assert.Contains(t, out, want)

			// The route names the copy by its format.
			req, _ := http.NewRequest("GET", s.AdminURL+"/admin/backup", nil)
			req.Header.Set("Authorization", "Bearer "+s.Token)
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			name := map[string]string{"bbolt": "tambala.bolt", "pebble": "tambala-pebble.tar"}[kind]
			assert.Equal(t, `attachment; filename="`+name+`"`, res.Header.Get("Content-Disposition"))

			// The store is in use: the offline commands say so.
			offline := filepath.Join(dir, "offline.backup")
			code, _, errOut = tambala(t, nil, "backup", "-data", s.Data, "-store", storeArg, offline)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, "in use by another tambala process")
			assert.Contains(t, errOut, "tambala backup -from http://")
			assert.NoFileExists(t, offline)
			code, _, errOut = tambala(t, nil, "ledger", "check", "-data", s.Data, "-store", storeArg)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, "in use by another tambala process")

			after := s.payouts(t, 2)
			require.Equal(t, 0, s.Stop())

			code, out, errOut = tambala(t, nil, "backup", "-data", s.Data, "-store", storeArg, offline)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "written to "+offline)
			code, _, errOut = tambala(t, nil, "backup", "-data", s.Data, "-store", storeArg, offline)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, "the file exists")
			requireLedgerChecks(t, s.Data, storeArg)

			for _, c := range []struct {
				file string
				ids  []string
			}{{offline, append(append([]string{}, before...), after...)}, {online, before}} {
				data := filepath.Join(t.TempDir(), "restored")
				keepToken := c.file == offline
				if keepToken { // the old admin token put there first: allowed, and kept
					require.NoError(t, os.MkdirAll(data, 0o700))
					b, err := os.ReadFile(filepath.Join(s.Data, "admin-token"))
					require.NoError(t, err)
					require.NoError(t, os.WriteFile(filepath.Join(data, "admin-token"), b, 0o600))
				}
				code, out, errOut := tambala(t, nil, "restore", "-data", data, "-store", storeArg, c.file)
				require.Equal(t, 0, code, "%s%s", out, errOut)
				assert.Contains(t, out, "Its ledger checks")
				// Never over a store.
				code, _, errOut = tambala(t, nil, "restore", "-data", data, "-store", storeArg, c.file)
				assert.Equal(t, 1, code)
				assert.Contains(t, errOut, "is not empty")

				r := startServer(t, data, storeArg)
				assert.Empty(t, r.DemoKey, "a restored store has its organization: no new demo")
				if keepToken {
					assert.Empty(t, r.Token, "the admin token put there is kept")
					req, _ := http.NewRequest("GET", r.AdminURL+"/admin/orgs", nil)
					req.Header.Set("Authorization", "Bearer "+s.Token)
					res, err := http.DefaultClient.Do(req)
					require.NoError(t, err)
					res.Body.Close()
					assert.Equal(t, http.StatusOK, res.StatusCode, "the old admin token works on the restored server")
				}
				r.requirePayouts(t, s.DemoKey, c.ids)
				r.DemoKey = s.DemoKey
				r.payouts(t, 1) // it takes new ones too
				require.Equal(t, 0, r.Stop())
				requireLedgerChecks(t, data, storeArg)
			}

			// The other kind's -store is refused, saying which one to use.
			other := map[string]string{"bbolt": "pebble", "pebble": ""}[kind]
			code, _, errOut = tambala(t, nil, "restore", "-data", filepath.Join(t.TempDir(), "x"), "-store", other, offline)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, "is a backup of a "+kind+" store")
		})
	}
}

// TestBackupRestorePostgres: the commands refuse PostgreSQL with the
// pg_dump and pg_restore lines; those lines, run, back up the schema of a
// server with payouts (while it runs) and restore it into a new database,
// where a server finds every payout and the ledger checks.
func TestBackupRestorePostgres(t *testing.T) {
	storeArg := storeFlag(t, "postgres")
	for _, tool := range []string{"pg_dump", "pg_restore", "createdb"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing: CI must have PostgreSQL's client tools (%v)", tool, err)
			}
			t.Skipf("%s is missing: %v", tool, err)
		}
	}
	s := startServer(t, "", storeArg)
	ids := s.payouts(t, 3)
	dir := t.TempDir()
	file := filepath.Join(dir, "tambala.dump")

	code, _, errOut := tambala(t, nil, "backup", "-store", storeArg, file)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, shellLine(pgDumpArgs(storeArg, file)))
	assert.Contains(t, errOut, "pg_restore --no-owner")
	code, _, errOut = tambala(t, nil, "restore", "-store", storeArg, file)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, shellLine(pgRestoreArgs(storeArg, file)))

	// The running server's route says where to turn.
	code, _, errOut = tambala(t, nil, "backup", "-from", s.AdminURL, "-admin-token", s.Token, file)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "use pg_dump")
	assert.NoFileExists(t, file)

	runTool(t, storeArg, pgDumpArgs(storeArg, file))
	require.Equal(t, 0, s.Stop())

	// A pg_dump archive given to restore is named for what it is.
	code, _, errOut = tambala(t, nil, "restore", "-data", filepath.Join(dir, "x"), file)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "is a pg_dump archive")

	db := fmt.Sprintf("tambala_t_restore_%d", time.Now().UnixNano())
	runTool(t, storeArg, pgCreatedbArgs(storeArg, db))
	t.Cleanup(func() { dropDatabase(t, db) })
	restored := withDatabase(storeArg, db)
	runTool(t, storeArg, pgRestoreArgs(restored, file))

	code, out, errOut := tambala(t, nil, "migrate", "-store", restored)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "nothing to do")
	r := startServer(t, "", restored)
	assert.Empty(t, r.DemoKey)
	r.requirePayouts(t, s.DemoKey, ids)
	require.Equal(t, 0, r.Stop())
	requireLedgerChecks(t, t.TempDir(), restored)
}

// runTool runs a PostgreSQL client tool's command line (its password, if
// the URL has one, through PGPASSWORD).
func runTool(t *testing.T, rawURL string, args []string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = os.Environ()
	if u, err := url.Parse(rawURL); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok {
			cmd.Env = append(cmd.Env, "PGPASSWORD="+pw)
		}
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s: %s", shellLine(args), out)
}

func dropDatabase(t *testing.T, db string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, teststores.PGURL(t))
	if err != nil {
		t.Errorf("dropping %s: %v", db, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); err != nil {
		t.Errorf("dropping %s: %v", db, err)
	}
}

// TestMigrate: migrate creates a store's schema, and says there is
// nothing to do the second time, on every store.
func TestMigrate(t *testing.T) {
	first := map[string]string{"bbolt": "created (bbolt keeps no schema version", "pebble": "created, layout pebblestore/1", "postgres": "schema created at version 1"}
	again := map[string]string{"bbolt": "opened: nothing to migrate", "pebble": "layout checked, layout pebblestore/1", "postgres": "schema at version 1, the current one: nothing to do"}
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			storeArg := storeFlag(t, kind)
			data := filepath.Join(t.TempDir(), "data")
			code, out, errOut := tambala(t, nil, "migrate", "-data", data, "-store", storeArg)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, first[kind])
			code, out, errOut = tambala(t, []string{"TAMBALA_DATA=" + data, "TAMBALA_STORE=" + storeArg}, "migrate")
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, again[kind])
			// A server starts on it; migrate refuses a store in use (bbolt, pebble).
			s := startServer(t, data, storeArg)
			code, _, errOut = tambala(t, nil, "migrate", "-data", data, "-store", storeArg)
			if kind == "postgres" {
				assert.Equal(t, 0, code, errOut)
			} else {
				assert.Equal(t, 1, code)
				assert.Contains(t, errOut, "in use by another tambala process")
			}
			require.Equal(t, 0, s.Stop())
		})
	}
}

// TestLedgerCheckViolation: a balance changed behind the ledger's back
// (as the ledger's own tests do) makes ledger check print the violation
// and exit 1; a missing store is an error, not an empty ledger.
func TestLedgerCheckViolation(t *testing.T) {
	for _, kind := range storeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			storeArg := storeFlag(t, kind)
			s := startServer(t, "", storeArg)
			s.payouts(t, 1)
			require.Equal(t, 0, s.Stop())
			requireLedgerChecks(t, s.Data, storeArg)

			ctx := context.Background()
			st, _, err := server.OpenStore(ctx, s.Data, storeArg)
			require.NoError(t, err)
			bucket := []byte("ledger.balances")
			var key, old []byte
			require.NoError(t, st.View(ctx, func(tx store.Tx) error {
				return tx.Scan(bucket, store.ScanOptions{}, func(k, v []byte) (bool, error) {
					if bytes.Contains(k, []byte("\x00MWK\x00available")) {
						key, old = append([]byte{}, k...), append([]byte{}, v...)
						return false, nil
					}
					return true, nil
				})
			}))
			require.NotNil(t, key, "the balances bucket layout changed; update this test")
			require.NoError(t, st.Update(ctx, func(tx store.Tx) error {
				return tx.Put(bucket, key, append([]byte{old[0]}, "1.00"...))
			}))
			require.NoError(t, st.Close())

			code, out, errOut := tambala(t, nil, "ledger", "check", "-data", s.Data, "-store", storeArg)
			assert.Equal(t, 1, code)
			assert.Contains(t, out, "1 violations:")
			assert.Regexp(t, `account org/\S+/available/MWK holds 1\.00, its journal sums to`, out)
			assert.Contains(t, errOut, "the ledger breaks its invariants")
		})
	}
	code, _, errOut := tambala(t, nil, "ledger", "check", "-data", filepath.Join(t.TempDir(), "none"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no bbolt store at")
}

// TestServeBackupFlag: tambala serve -backup FILE, the older offline
// route, shares backup's code: it copies a pebble store too, as a tar.
func TestServeBackupFlag(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	code, _, errOut := tambala(t, nil, "migrate", "-data", data, "-store", "pebble")
	require.Equal(t, 0, code, errOut)
	file := filepath.Join(t.TempDir(), "copy")
	code, out, errOut := tambala(t, nil, "serve", "-data", data, "-store", "pebble", "-backup", file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "written to "+file)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "pebble", sniffBackup(b[:512]))
	code, out, errOut = tambala(t, nil, "restore", "-data", filepath.Join(t.TempDir(), "restored"), "-store", "pebble", file)
	assert.Equal(t, 0, code, "%s%s", out, errOut)
}
