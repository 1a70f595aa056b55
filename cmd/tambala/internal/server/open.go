package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/store"
)

// The kinds of store -store names.
const (
	StoreBolt     = "bbolt"
	StorePebble   = "pebble"
	StorePostgres = "postgres"
)

// StoreLocation is where the store of a -data and a -store lives.
type StoreLocation struct {
	Kind string // StoreBolt, StorePebble or StorePostgres
	// Path is the bbolt file (DATA/tambala.bolt), the pebble directory,
	// or the PostgreSQL URL.
	Path string
}

// Desc names the location for messages (a URL without its password).
func (l StoreLocation) Desc() string {
	if l.Kind == StorePostgres {
		return "postgres " + redactURL(l.Path)
	}
	return l.Kind + " " + l.Path
}

// LocateStore says where the store of the data folder data and the
// -store flag store lives, as tambala serve reads them, without opening
// anything.
func LocateStore(data, store string) (StoreLocation, error) {
	switch {
	case store == "" || store == "bolt" || store == "bbolt":
		return StoreLocation{StoreBolt, dbFile(data)}, nil
	case store == "pebble" || strings.HasPrefix(store, "pebble:"):
		dir := strings.TrimPrefix(strings.TrimPrefix(store, "pebble"), ":")
		if dir == "" {
			dir = filepath.Join(data, "pebble")
		}
		return StoreLocation{StorePebble, dir}, nil
	case strings.HasPrefix(store, "postgres://") || strings.HasPrefix(store, "postgresql://"):
		return StoreLocation{StorePostgres, store}, nil
	}
	return StoreLocation{}, fmt.Errorf("-store must be empty (bbolt), pebble, pebble:DIR or a postgres:// URL, not %q", store)
}

// Exists reports whether a bbolt or pebble store is at l (a file, a
// directory with something in it). A PostgreSQL store always exists: its
// schema is created or upgraded when it is opened.
func (l StoreLocation) Exists() (bool, error) {
	switch l.Kind {
	case StoreBolt:
		_, err := os.Stat(l.Path)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	case StorePebble:
		entries, err := os.ReadDir(l.Path)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return len(entries) > 0, err
	}
	return true, nil
}

// OpenStore opens the store of the data folder data and the -store flag
// store as tambala serve does (bbolt in DATA/tambala.bolt, pebble, or
// PostgreSQL with its schema created or upgraded), saying so plainly when
// another process holds a bbolt file or a pebble directory. desc names
// the store for messages. A bbolt or pebble store that does not exist is
// created: check LocateStore's Exists first where that is wrong.
func OpenStore(ctx context.Context, data, store string) (st store.Store, desc string, err error) {
	return openConfiguredStore(ctx, config{data: data, store: store})
}

// PostgresVersion returns the version of the store's tables at the
// PostgreSQL URL (in its search_path's schema), 0 when none were created
// there yet. It changes nothing.
func PostgresVersion(ctx context.Context, rawURL string) (int, error) {
	pool, err := pgxpool.New(ctx, rawURL)
	if err != nil {
		return 0, fmt.Errorf("opening PostgreSQL: %w", err)
	}
	defer pool.Close()
	v, err := pgstore.Version(ctx, pool, "")
	if err != nil {
		return 0, fmt.Errorf("reading the schema version: %w", err)
	}
	return v, nil
}

// PostgresSchema returns the schema a PostgreSQL URL's store lives in:
// the URL's search_path (its first entry), or "" for the server's default
// (public).
func PostgresSchema(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	sp := u.Query().Get("search_path")
	first, _, _ := strings.Cut(sp, ",")
	return strings.Trim(strings.TrimSpace(first), `"`)
}

// LibpqURL returns the PostgreSQL URL as libpq's tools (pg_dump,
// pg_restore, psql) take it: without the parameters only pgx knows
// (search_path, pool_*), which libpq refuses.
func LibpqURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	q := u.Query()
	for k := range q {
		if k == "search_path" || strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
