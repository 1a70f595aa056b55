package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"time"
)

// pgbenchRun is the pgbench baseline a load run prints beside its own
// figure: PostgreSQL's own tpcb-like workload on the same machine, with
// as many clients, as a yardstick that carries across machines.
type pgbenchRun struct {
	bin      string        // the pgbench executable
	db       string        // a scratch database (libpq URL or name): pgbench makes its tables there
	clients  int           // concurrent clients, as the load's
	duration time.Duration // how long the workload runs
}

var tpsLine = regexp.MustCompile(`(?m)^tps = ([0-9]+(?:\.[0-9]+)?)`)

// tps initializes pgbench's tables (scale 10) in the scratch database and
// runs the tpcb-like workload, returning its transactions per second.
func (p pgbenchRun) tps(ctx context.Context) (float64, error) {
	run := func(args ...string) ([]byte, error) {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, p.bin, append(args, p.db)...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s %v: %w\n%s", p.bin, args, err, tail(out.Bytes(), 600))
		}
		return out.Bytes(), nil
	}
	if _, err := run("-i", "-s", "10", "-q"); err != nil {
		return 0, err
	}
	secs := max(1, int(p.duration.Round(time.Second)/time.Second))
	out, err := run("-b", "tpcb-like", "-c", strconv.Itoa(p.clients), "-j", "2", "-T", strconv.Itoa(secs))
	if err != nil {
		return 0, err
	}
	return parseTPS(out)
}

// parseTPS reads the "tps = N" line of pgbench's report.
func parseTPS(out []byte) (float64, error) {
	m := tpsLine.FindSubmatch(out)
	if m == nil {
		return 0, errors.New("pgbench printed no tps line:\n" + string(tail(out, 600)))
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// printBaseline prints the baseline and, once the load has run, the
// ratio of its accepts per second to it.
func printBaseline(out io.Writer, tps float64, p pgbenchRun, accepted int, wall time.Duration) {
	tw := newTable(out)
	fmt.Fprintf(tw, "baseline pgbench\t%.1f tps (tpcb-like, %d clients, %s)\n", tps, p.clients, p.duration)
	if secs := wall.Seconds(); secs > 0 && tps > 0 {
		fmt.Fprintf(tw, "accepted/s ÷ pgbench\t%.2f\n", float64(accepted)/secs/tps)
	}
	tw.Flush()
}
