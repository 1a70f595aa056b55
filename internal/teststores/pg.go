package teststores

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvPGURL names the environment variable with the URL of the PostgreSQL
// server the tests use. Set, the server must answer; unset, DefaultPGURL
// is tried and the PostgreSQL tests are skipped if nothing answers there.
const EnvPGURL = "TAMBALA_PG_URL"

// DefaultPGURL is the server tried when EnvPGURL is unset: the one CI
// machines run, trust auth on loopback.
const DefaultPGURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// schemaPrefix starts the name of every schema the tests create; the
// creation time follows, so that schemas left by killed runs can be
// recognized and swept.
const schemaPrefix = "tambala_t_"

// sweepAfter is the age beyond which a test schema is a leftover.
const sweepAfter = 6 * time.Hour

const pingTimeout = 3 * time.Second

var probes sync.Map // url -> func() error, the first probe's outcome

// PGURL returns the URL of the PostgreSQL server for t, applying the
// availability rule: with EnvPGURL set, a server that does not answer
// fails t; unset, t is skipped when nothing answers at DefaultPGURL.
// The server is probed once per process and URL.
func PGURL(t testing.TB) string {
	t.Helper()
	url, v := availability(os.LookupEnv, probe)
	switch v.action {
	case fail:
		t.Fatal(v.message)
	case skip:
		t.Skip(v.message)
	}
	return url
}

// PGAvailable reports whether PostgreSQL tests run, by the rule of PGURL,
// without skipping t: false when nothing answers and EnvPGURL is unset.
// With EnvPGURL set and no server answering, it fails t.
func PGAvailable(t testing.TB) bool {
	t.Helper()
	_, v := availability(os.LookupEnv, probe)
	if v.action == fail {
		t.Fatal(v.message)
	}
	return v.action == run
}

type action int

const (
	run action = iota
	skip
	fail
)

type verdict struct {
	action  action
	message string
}

// availability is the rule: the URL to use and what to do with the
// tests that need it.
func availability(lookupEnv func(string) (string, bool), probe func(url string) error) (string, verdict) {
	url, required := lookupEnv(EnvPGURL)
	if !required || url == "" {
		url, required = DefaultPGURL, false
	}
	err := probe(url)
	switch {
	case err == nil:
		return url, verdict{action: run}
	case required:
		return url, verdict{fail, fmt.Sprintf("teststores: %s=%q does not answer: %v", EnvPGURL, url, err)}
	}
	return url, verdict{skip, fmt.Sprintf("teststores: no PostgreSQL at %s (%v); set %s to require one", url, err, EnvPGURL)}
}

// probe connects to url once per process and URL and returns the outcome.
func probe(url string) error {
	p, _ := probes.LoadOrStore(url, sync.OnceValue(func() error { return probeAndSweep(url) }))
	return p.(func() error)()
}

// probeAndSweep connects to url and drops the test schemas that runs
// killed before their cleanup left behind.
func probeAndSweep(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := conn.Ping(ctx); err != nil {
		return err
	}
	rows, err := conn.Query(ctx, "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)", schemaPrefix)
	if err != nil {
		return err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, name := range names {
		ts, _, ok := strings.Cut(strings.TrimPrefix(name, schemaPrefix), "_")
		sec, perr := strconv.ParseInt(ts, 10, 64)
		if !ok || perr != nil || time.Since(time.Unix(sec, 0)) < sweepAfter {
			continue
		}
		// Another process may sweep the same schema: errors are ignored.
		_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
	}
	return nil
}

// NewPGSchema returns the URL of the server (see PGURL) and the name of
// a schema no other test uses, dropped with everything in it when t ends.
// The schema itself is created by whoever opens a store in it (Migrate).
// Register it before opening stores in it, so that they are closed (the
// cleanups run last first) before it is dropped.
func NewPGSchema(t testing.TB) (url, schema string) {
	t.Helper()
	url = PGURL(t)
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	schema = fmt.Sprintf("%s%d_%s", schemaPrefix, time.Now().Unix(), hex.EncodeToString(rnd[:]))
	t.Cleanup(func() { DropPGSchema(t, url, schema) })
	return url, schema
}

// DropPGSchema drops schema and everything in it.
func DropPGSchema(t testing.TB, url, schema string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Errorf("teststores: dropping schema %s: %v", schema, err)
		return
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		t.Errorf("teststores: dropping schema %s: %v", schema, err)
	}
}

// NewPGSchemaURL creates a fresh schema of the test's own (see
// NewPGSchema) and returns a URL of the server whose search_path is that
// schema: a store opened on it, by a server process or a command, lives
// there.
func NewPGSchemaURL(t testing.TB) string {
	t.Helper()
	base, schema := NewPGSchema(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u, err := neturl.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
