package pgstore

import (
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Table names inside the schema.
const (
	kvTable      = "tambala_kv"
	versionTable = "tambala_schema"
)

const (
	beginSerializable = "BEGIN ISOLATION LEVEL SERIALIZABLE, READ WRITE"
	beginReadOnly     = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"
	setTimeout        = "SELECT set_config('statement_timeout', $1, true)"
	commitSQL         = "COMMIT"
	rollbackSQL       = "ROLLBACK"
)

// statements are the SQL texts of one store, with its schema's tables.
type statements struct {
	get, upsert, del string
	// lockRows writes the lock rows of the keys given (see hotSet), in
	// the reserved bucket "" (no caller's bucket has an empty name), in
	// key order; lockKeys locks the rows of the keys given that exist, in
	// key order, and returns them.
	lockRows, lockKeys string
	// existing returns the keys given that exist.
	existing string
	// getKeys returns the keys given of one bucket that exist, with
	// their values: one unique-key lookup per key. The lookup is a
	// LATERAL subquery with LIMIT so that the planner cannot flatten it
	// into a join over the whole bucket: a plan made while the table was
	// small (and kept for the prepared statement) scanned the bucket for
	// every read, as `key = ANY($2)` and a plain join did.
	getKeys string
	// scans[reverse][lower][upper] selects a page of keys, with the bounds
	// that are set as parameters after the bucket, then the limit.
	scans [2][2][2]string
}

// qualify returns the quoted name of table in schema ("" for the
// connection's current schema).
func qualify(schema, table string) string {
	if schema == "" {
		return pgx.Identifier{table}.Sanitize()
	}
	return pgx.Identifier{schema, table}.Sanitize()
}

func newStatements(schema string) statements {
	kv := qualify(schema, kvTable)
	s := statements{
		get: fmt.Sprintf("SELECT value FROM %s WHERE bucket = $1 AND key = $2", kv),
		upsert: fmt.Sprintf(`INSERT INTO %s AS t (bucket, key, value)
SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bytea[])
ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value`, kv),
		del: fmt.Sprintf(`DELETE FROM %s AS t USING unnest($1::bytea[], $2::bytea[]) AS d(bucket, key)
WHERE t.bucket = d.bucket AND t.key = d.key`, kv),
		lockRows: fmt.Sprintf(`INSERT INTO %s (bucket, key, value)
SELECT ''::bytea, k, ''::bytea FROM unnest($1::bytea[]) AS k ORDER BY k
ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value`, kv),
		existing: fmt.Sprintf(`SELECT bucket, key FROM %s
WHERE (bucket, key) IN (SELECT * FROM unnest($1::bytea[], $2::bytea[]))`, kv),
		getKeys: fmt.Sprintf("SELECT d.key, t.value FROM unnest($2::bytea[]) AS d(key) CROSS JOIN LATERAL (SELECT value FROM %s WHERE bucket = $1 AND key = d.key LIMIT 1) AS t", kv),
		lockKeys: fmt.Sprintf(`SELECT bucket, key, value FROM %s
WHERE (bucket, key) IN (SELECT * FROM unnest($1::bytea[], $2::bytea[]))
ORDER BY bucket, key FOR UPDATE`, kv),
	}
	for r := range 2 {
		for lo := range 2 {
			for up := range 2 {
				var q strings.Builder
				fmt.Fprintf(&q, "SELECT key, value FROM %s WHERE bucket = $1", kv)
				n := 2
				if lo == 1 {
					fmt.Fprintf(&q, " AND key >= $%d", n)
					n++
				}
				if up == 1 {
					fmt.Fprintf(&q, " AND key < $%d", n)
					n++
				}
				q.WriteString(" ORDER BY key")
				if r == 1 {
					q.WriteString(" DESC")
				}
				fmt.Fprintf(&q, " LIMIT $%d", n)
				s.scans[r][lo][up] = q.String()
			}
		}
	}
	return s
}

func (s *statements) scan(reverse, lower, upper bool) string {
	return s.scans[b2i(reverse)][b2i(lower)][b2i(upper)]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
