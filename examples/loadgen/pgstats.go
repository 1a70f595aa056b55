package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
)

// rowCounts are a database's row counters in pg_stat_database: rows
// fetched (by index scans), inserted, updated and deleted, and
// transactions committed.
type rowCounts struct {
	fetched, inserted, updated, deleted, commits int64
}

func (a rowCounts) minus(b rowCounts) rowCounts {
	return rowCounts{a.fetched - b.fetched, a.inserted - b.inserted, a.updated - b.updated, a.deleted - b.deleted, a.commits - b.commits}
}

// pgStats reads the row counters of the server's PostgreSQL database
// (-pg-stats) around the load, so that the rows each accept costs are
// printed beside the throughput.
type pgStats struct {
	conn *pgx.Conn
}

// pgStatsWait is how long a read waits first: a PostgreSQL backend
// reports its counters at most once a second while busy, and only
// PGSTAT_IDLE_INTERVAL (ten seconds) after it goes idle, so counters read
// sooner miss the last of the work (and would look still meanwhile).
var pgStatsWait = 11 * time.Second

// openPGStats connects to url; nil without -pg-stats.
func openPGStats(ctx context.Context, url string) (*pgStats, error) {
	if url == "" {
		return nil, nil
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("-pg-stats: %w", err)
	}
	return &pgStats{conn: conn}, nil
}

func (p *pgStats) close(ctx context.Context) {
	if p != nil {
		_ = p.conn.Close(ctx)
	}
}

// read returns the counters after waiting wait: what every backend had
// done by then.
func (p *pgStats) read(ctx context.Context, wait time.Duration) (rowCounts, error) {
	var c rowCounts
	select {
	case <-ctx.Done():
		return c, ctx.Err()
	case <-time.After(wait):
	}
	err := p.conn.QueryRow(ctx, `SELECT tup_fetched, tup_inserted, tup_updated, tup_deleted, xact_commit
FROM pg_stat_database WHERE datname = current_database()`).Scan(&c.fetched, &c.inserted, &c.updated, &c.deleted, &c.commits)
	return c, err
}

// printPGStats prints the rows per accepted payout the load cost the
// database (its counters after the load, less before).
func printPGStats(out io.Writer, d rowCounts, accepted int) {
	if accepted <= 0 {
		return
	}
	per := func(n int64) float64 { return float64(n) / float64(accepted) }
	tw := newTable(out)
	fmt.Fprintf(tw, "rows per accept\tfetched %.2f, inserted %.2f, updated %.2f, deleted %.2f (pg_stat_database, the load only)\n",
		per(d.fetched), per(d.inserted), per(d.updated), per(d.deleted))
	fmt.Fprintf(tw, "accepts per commit\t%.1f\n", float64(accepted)/float64(max(d.commits, 1)))
	tw.Flush()
}
