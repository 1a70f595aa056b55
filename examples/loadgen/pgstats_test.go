package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/internal/teststores"
)

func TestPGStatsPrintsRowsPerAccept(t *testing.T) {
	var out bytes.Buffer
	d := rowCounts{fetched: 1150, inserted: 910, updated: 370, deleted: 0, commits: 4}.minus(rowCounts{fetched: 50, inserted: 10, updated: 70, commits: 1})
	assert.Equal(t, rowCounts{fetched: 1100, inserted: 900, updated: 300, commits: 3}, d)
	printPGStats(&out, d, 100)
	assert.Equal(t, "fetched 11.00, inserted 9.00, updated 3.00, deleted 0.00 (pg_stat_database, the load only)", field(t, out.String(), "rows per accept"))
	assert.Equal(t, "33.3", field(t, out.String(), "accepts per commit"))

	out.Reset()
	printPGStats(&out, d, 0)
	assert.Empty(t, out.String(), "no accept, no rows per accept")
}

// TestPGStatsAroundALoad runs a load on an engine over PostgreSQL with
// -pg-stats on the same database: the report gives the rows per accept.
// Other tests share the database and its counters, so only the floor is
// asserted: every accept inserts its payout, hold, ledger lines and
// idempotency outcome.
func TestPGStatsAroundALoad(t *testing.T) {
	url := teststores.NewPGSchemaURL(t)
	st, err := pgstore.Open(t.Context(), url, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	s := newServer(t, serverOptions{limits: unlimited(), store: st})
	c := s.config()
	c.N, c.PGStats = 100, url
	var out bytes.Buffer
	start := time.Now()
	require.NoError(t, run(t.Context(), c, &out))
	t.Logf("took %s", time.Since(start))
	line := field(t, out.String(), "rows per accept")
	inserted, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(line)[3], ","), 64)
	require.NoError(t, err, line)
	assert.GreaterOrEqual(t, inserted, 5.0, line)
}

func TestPGStatsNeedsPayoutMode(t *testing.T) {
	c := config{Clients: 1, N: 1, Timeout: time.Second, Amount: "1500.00", Rail: "momo", Mode: modeOrder, PGStats: "postgres://x"}
	_, err := c.validate()
	assert.ErrorContains(t, err, "-pg-stats")
}
