package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SchemaVersion is the version of the tables this package reads and
// writes; Migrate brings a schema up to it. It is len(migrations).
const SchemaVersion = 1

// ErrSchemaTooNew is returned by Migrate (and Open) for a schema that a
// newer version of this package migrated: running on it could corrupt
// data the newer version relies on.
var ErrSchemaTooNew = errors.New("pgstore: the schema is newer than this version of pgstore")

// migrations[i] takes a schema from version i to version i+1. A released
// migration is never edited: changes are new entries.
var migrations = [SchemaVersion]func(schema string) []string{
	// 1: one table of every bucket's keys, in (bucket, key) order, which is
	// the port's byte order for bytea.
	func(schema string) []string {
		return []string{fmt.Sprintf(`CREATE TABLE %s (
	bucket bytea NOT NULL,
	key    bytea NOT NULL,
	value  bytea NOT NULL,
	PRIMARY KEY (bucket, key)
)`, qualify(schema, kvTable))}
	},
}

// Migrate creates the store's tables in schema (the connection's current
// schema when empty), creating the schema too, or upgrades them to
// SchemaVersion. It is idempotent, and safe to run from several processes
// at once: each runs the migration in one SERIALIZABLE transaction that
// reads and writes the version row, so of migrations racing one commits
// and the others fail to serialize (or collide on the catalog's DDL) and
// run again, to find the work done. No advisory lock: the SQL stays what
// PG-wire distributed databases accept (docs/decisions.md, "PostgreSQL
// under contention"). It refuses a schema whose version is newer than
// SchemaVersion with ErrSchemaTooNew.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = migrateOnce(ctx, pool, schema)
		if err == nil || attempt == migrateAttempts-1 || !migrationRace(err) || ctx.Err() != nil {
			break
		}
		// A short, growing pause lets the transaction that won commit.
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt+1) * 10 * time.Millisecond):
		}
	}
	if err != nil && !errors.Is(err, ErrSchemaTooNew) {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	return err
}

// migrateAttempts bounds the runs of a migration that lost races.
const migrateAttempts = 20

// migrationRace reports an error of a migration that ran beside another:
// it failed to serialize or deadlocked, or its DDL collided with the
// other's (a schema, table or type created meanwhile).
func migrationRace(err error) bool {
	switch sqlState(err) {
	case codeSerializationFailure, codeDeadlockDetected,
		"23505", // unique_violation: two CREATE ... IF NOT EXISTS at once collide in the catalog
		"42P06", // duplicate_schema
		"42P07", // duplicate_table
		"42710": // duplicate_object
		return true
	}
	return false
}

func migrateOnce(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.Serializable}, func(tx pgx.Tx) error {
		if schema != "" {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
				return err
			}
		}
		vt := qualify(schema, versionTable)
		if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+vt+" (version int NOT NULL)"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "SELECT version FROM "+vt+" FOR UPDATE")
		if err != nil {
			return err
		}
		versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return err
		}
		var version int
		switch len(versions) {
		case 0:
			if _, err := tx.Exec(ctx, "INSERT INTO "+vt+" (version) VALUES (0)"); err != nil {
				return err
			}
		case 1:
			version = versions[0]
		default:
			return fmt.Errorf("pgstore: %s has %d rows, want one", vt, len(versions))
		}
		if version > SchemaVersion {
			return fmt.Errorf("%w: schema %q is at version %d, this package knows up to %d", ErrSchemaTooNew, schema, version, SchemaVersion)
		}
		for v := version; v < SchemaVersion; v++ {
			for _, stmt := range migrations[v](schema) {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return fmt.Errorf("migration to version %d: %w", v+1, err)
				}
			}
		}
		if version < SchemaVersion {
			if _, err := tx.Exec(ctx, "UPDATE "+vt+" SET version = $1", SchemaVersion); err != nil {
				return err
			}
		}
		return nil
	})
}

// Version returns the version of the store's tables in schema, 0 when
// Migrate never ran there.
func Version(ctx context.Context, pool *pgxpool.Pool, schema string) (int, error) {
	var exists bool
	err := pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", qualify(schema, versionTable)).Scan(&exists)
	if err != nil || !exists {
		return 0, wrapMigrate(err)
	}
	var v int
	err = pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+qualify(schema, versionTable)).Scan(&v)
	return v, wrapMigrate(err)
}

func wrapMigrate(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("pgstore: %w", err)
}
