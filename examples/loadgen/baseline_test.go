package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakePGBench writes a pgbench stand-in that logs its arguments to log and
// prints report after a run (nothing after -i).
func fakePGBench(t *testing.T, report string, exit int) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "pgbench"), filepath.Join(dir, "args")
	script := "#!/bin/sh\necho \"$@\" >> " + log + "\n" +
		"case \"$1\" in -i) exit 0;; esac\n" +
		"cat <<'OUT'\n" + report + "\nOUT\nexit " + strconv.Itoa(exit) + "\n"
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin, log
}

// With -pgbench the run first initializes pgbench's tables in the scratch
// database, runs the tpcb-like workload with as many clients, and prints
// its tps and the load's ratio to it.
func TestPGBenchBaseline(t *testing.T) {
	bin, log := fakePGBench(t, "transaction type: <builtin: TPC-B (sort of)>\nnumber of clients: 8\ntps = 1234.5 (without initial connection time)", 0)
	s := newServer(t, serverOptions{limits: unlimited()})
	c := s.config()
	c.PGBench, c.PGBenchBin, c.PGBenchTime = "postgres://127.0.0.1/scratch", bin, 2*time.Second
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), c, &out), out.String())
	report := out.String()
	require.Equal(t, "1234.5 tps (tpcb-like, 8 clients, 2s)", field(t, report, "baseline pgbench"))
	ratio, err := strconv.ParseFloat(field(t, report, "accepted/s ÷ pgbench"), 64)
	require.NoError(t, err)
	acceptedPerSecond, err := strconv.ParseFloat(field(t, report, "accepted/s"), 64)
	require.NoError(t, err)
	require.InDelta(t, acceptedPerSecond/1234.5, ratio, 0.01)
	args, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Equal(t, []string{
		"-i -s 10 -q postgres://127.0.0.1/scratch",
		"-b tpcb-like -c 8 -j 2 -T 2 postgres://127.0.0.1/scratch",
	}, strings.Split(strings.TrimSpace(string(args)), "\n"))
	require.Equal(t, "PASS", field(t, report, "balance check"))
}

// A baseline that cannot run stops the command before any payout is sent.
func TestPGBenchBaselineFails(t *testing.T) {
	bin, _ := fakePGBench(t, "connection to server failed", 1)
	s := newServer(t, serverOptions{limits: unlimited()})
	c := s.config()
	c.PGBench, c.PGBenchBin = "postgres://127.0.0.1/scratch", bin
	var out bytes.Buffer
	err := run(context.Background(), c, &out)
	require.ErrorContains(t, err, "the pgbench baseline")
	require.ErrorContains(t, err, "connection to server failed")
	require.NotContains(t, out.String(), "accepted/s")
}

func TestParseTPS(t *testing.T) {
	tps, err := parseTPS([]byte("latency average = 20.1 ms\ninitial connection time = 30.2 ms\ntps = 3230.617626 (without initial connection time)\n"))
	require.NoError(t, err)
	require.InDelta(t, 3230.617626, tps, 1e-9)
	_, err = parseTPS([]byte("pgbench: error: nothing"))
	require.Error(t, err)
}
