package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

func main() {
	// The load generator shares the machine with the server it measures:
	// its collector runs at GOGC=400 unless GOGC says otherwise, as the
	// server's does (docs/decisions.md, "Garbage collection in the
	// example programs").
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	var c config
	flag.StringVar(&c.URL, "url", "http://127.0.0.1:8080", "public API base address; several, comma-separated (servers on one store), share the clients round-robin")
	flag.StringVar(&c.AdminURL, "admin-url", "http://127.0.0.1:8081", "admin API base address (used unless -key)")
	flag.StringVar(&c.AdminToken, "admin-token", "", "admin token (default: read from DATA/admin-token)")
	flag.StringVar(&c.DataDir, "data", "data", "the server's data folder, where admin-token is read from")
	flag.StringVar(&c.Key, "key", "", "use this API key instead of creating and funding an organization")
	flag.IntVar(&c.Clients, "clients", 64, "concurrent clients")
	flag.IntVar(&c.N, "n", 20000, "payouts to send (ignored when -duration is given, unless -n is given too)")
	flag.DurationVar(&c.Duration, "duration", 0, "send payouts for this long instead of -n")
	flag.StringVar(&c.Amount, "amount", "1500.00", "amount_mwk of each payout")
	flag.StringVar(&c.Rail, "rail", "momo", "payout rail: momo or bank")
	flag.BoolVar(&c.AllowRemote, "allow-remote", false, "allow a target whose host is not a loopback address")
	flag.StringVar(&c.IDsFile, "ids", "", "write every accepted payout id to this file, one per line")
	flag.StringVar(&c.VerifyFile, "verify", "", "instead of a load run, GET every payout id in this file and report found and missing (needs -key)")
	flag.DurationVar(&c.Timeout, "timeout", 10*time.Second, "timeout of each request")
	flag.DurationVar(&c.Settle, "settle", 0, "with -verify: also wait up to this long for every payout to be terminal (succeeded, failed or reversed), and fail if one is not")
	flag.StringVar(&c.PGBench, "pgbench", "", "before the load, run pgbench's tpcb-like workload with as many clients on this scratch database (a libpq URL; pgbench creates its tables there) and print its tps and the ratio beside the load's figure")
	flag.StringVar(&c.PGBenchBin, "pgbench-bin", "pgbench", "the pgbench executable")
	flag.DurationVar(&c.PGBenchTime, "pgbench-time", 10*time.Second, "how long the pgbench baseline runs")
	flag.BoolVar(&c.Bare, "bare", false, "instead of a load run, serve a bare net/http handler in this process on 127.0.0.1 (it decodes the /v1 payout request with encoding/json and answers a 202 of a payout's shape and size; no store, no engine) and drive it with the same clients, -n or -duration; prints its requests/s and latencies")
	flag.BoolVar(&c.BareBaseline, "bare-baseline", false, "before the load, run the -bare handler with as many clients for -bare-time and print its requests/s and the load's ratio to it: the headroom left in the HTTP path")
	flag.DurationVar(&c.BareTime, "bare-time", 10*time.Second, "how long the -bare-baseline runs")
	flag.StringVar(&c.PGStats, "pg-stats", "", "the server's PostgreSQL database (a libpq URL): read its row counters (pg_stat_database) before and after the load, each 11 s after the work before it (a backend reports its counters up to 10 s after it goes idle), and print the rows fetched, inserted, updated and deleted per accepted payout")
	flag.IntVar(&c.Orgs, "orgs", 1, "create this many organizations and spread the clients over them (client i pays from organization i modulo N); each one's money is checked")
	flag.BoolVar(&c.Hot, "hot", false, "two organizations: all clients but one flood a hot one, the last sends to a quiet one at a steady pace (-quiet-every), first alone for -duration, then beside the flood; prints the quiet one's p99 under load over its p99 alone (needs -duration)")
	flag.DurationVar(&c.QuietEvery, "quiet-every", defaultQuietEvery, "with -hot: the quiet organization sends one request at a time, one every this long")
	flag.StringVar(&c.Mode, "mode", modePayout, "what each request does: payout (/v1 payouts), order (a /v2 order quote, then the to-bank order), conversion (a /v2 conversion quote, then the conversion), payout-v2 (a /v2 USDT payout to a tron wallet), payout-fx (a /v2 payout of -amount MWK to a momo wallet, from USDT) or desk-move (orders made first, then each moved to processing through the admin API)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "loadgen: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	nGiven := false
	flag.Visit(func(f *flag.Flag) { nGiven = nGiven || f.Name == "n" })
	if c.Duration > 0 && !nGiven {
		c.N = 0 // the duration alone bounds the run
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second interrupt kills the command
	}()
	if err := run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}
