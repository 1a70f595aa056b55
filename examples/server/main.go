package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/money"
)

type config struct {
	data      string
	addr      string
	adminAddr string
	env       string
	quiet     bool
	// payoutDelay is how long the sandbox provider takes to pay.
	payoutDelay time.Duration
	// rate and burst size each organization's request token bucket; zero
	// takes the engine's defaults (50/s, burst 100).
	rate  float64
	burst int
	// noWorker leaves the payout worker stopped: payouts are accepted and
	// held, never submitted (for measuring the accept path alone).
	noWorker bool
}

func main() {
	var c config
	flag.StringVar(&c.data, "data", "data", "data folder (created if missing)")
	flag.StringVar(&c.addr, "addr", "127.0.0.1:8080", "public API listen address")
	flag.StringVar(&c.adminAddr, "admin-addr", "127.0.0.1:8081", "admin API listen address")
	flag.StringVar(&c.env, "env", "sandbox", "environment: sandbox or production")
	flag.BoolVar(&c.quiet, "quiet", false, "log warnings and errors only")
	flag.DurationVar(&c.payoutDelay, "payout-delay", 2*time.Second, "sandbox: how long the simulated provider takes to pay")
	flag.Float64Var(&c.rate, "rate", 50, "requests per second allowed per organization (token bucket rate)")
	flag.IntVar(&c.burst, "burst", 100, "requests allowed in a burst per organization (token bucket size)")
	worker := flag.Bool("worker", true, "run the payout worker (false: payouts stay held, for measuring the accept path alone)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (read it with go tool pprof)")
	flag.Parse()
	c.noWorker = !*worker
	if c.rate <= 0 || c.burst <= 0 {
		fmt.Fprintln(os.Stderr, "server: -rate and -burst must be positive")
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "server: -cpuprofile:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c, os.Stdout); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// app is the assembled server: what main listens with and tests call.
type app struct {
	store  *boltstore.Store
	engine *tambala.Engine
	public http.Handler
	admin  http.Handler
	log    *zap.Logger
}

func newLogger(quiet bool) (*zap.Logger, error) {
	cfg := zap.NewProductionConfig()
	if quiet {
		cfg.Level = zap.NewAtomicLevelAt(zap.WarnLevel)
	}
	return cfg.Build()
}

// setup opens the data folder and builds the engine and handlers; on an
// empty folder it bootstraps the demo organization and prints its key and
// the admin token to out.
func setup(ctx context.Context, c config, log *zap.Logger, out io.Writer) (*app, error) {
	if err := os.MkdirAll(c.data, 0o700); err != nil {
		return nil, err
	}
	st, err := boltstore.Open(filepath.Join(c.data, "tambala.bolt"), nil)
	if err != nil {
		return nil, err
	}
	opts := &tambala.Options{
		Logger: slog.New(zapslog.NewHandler(log.Core())), Environment: tambala.Environment(c.env), Webhooks: webhookhttp.NewSender(nil),
		Limits: tambala.Limits{RatePerSecond: c.rate, RateBurst: c.burst},
	}
	if c.env == string(tambala.Sandbox) {
		// The sandbox provider pays the test destinations after a short delay.
		opts.Payouts = sandbox.New(&sandbox.Options{Delay: c.payoutDelay, Store: st}) // its submissions survive a restart
	}
	eng, err := tambala.New(st, opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	token, fresh, err := adminToken(c.data)
	if err != nil {
		st.Close()
		return nil, err
	}
	admin, err := httpapi.NewAdmin(eng, token, &httpapi.Options{Logger: log})
	if err != nil {
		st.Close()
		return nil, err
	}
	a := &app{store: st, engine: eng, public: httpapi.New(eng, &httpapi.Options{Logger: log}), admin: admin, log: log}
	orgs, err := eng.Organizations(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	if len(orgs) == 0 {
		key, org, err := bootstrap(ctx, eng)
		if err != nil {
			st.Close()
			return nil, err
		}
		fmt.Fprintf(out, "Demo organization %q (%s) created, funded with 1000000.00 MWK and 10000.000000 USDT.\n", org.Name, org.ID)
		fmt.Fprintf(out, "API key (shown once, store it now):  %s\n", key)
	}
	if fresh {
		fmt.Fprintf(out, "Admin token (shown once; kept in %s): %s\n", filepath.Join(c.data, "admin-token"), token)
	}
	return a, nil
}

// adminToken reads DATA/admin-token, or makes one; fresh says it was made now.
func adminToken(dir string) (token string, fresh bool, err error) {
	path := filepath.Join(dir, "admin-token")
	b, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(b)), false, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", false, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", false, err
	}
	token = "adm_" + base64.RawURLEncoding.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", false, err
	}
	return token, true, nil
}

func bootstrap(ctx context.Context, eng *tambala.Engine) (string, tambala.Organization, error) {
	org, err := eng.CreateOrganization(ctx, tambala.NewOrganization{
		Name:     "Demo Organization",
		V2Access: tambala.V2Enabled,
		Assets: []tambala.AssetAccess{
			{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
			{Asset: "USDT", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
		},
		BalanceFloorMWK: "10000.00",
	})
	if err != nil {
		return "", org, err
	}
	if err := eng.Fund(ctx, org.ID, money.FromInt(money.MWK, 1_000_000), "demo-opening-balance"); err != nil {
		return "", org, err
	}
	if err := eng.Fund(ctx, org.ID, money.FromInt(money.USDT, 10_000), "demo-opening-balance"); err != nil {
		return "", org, err
	}
	key, _, err := eng.CreateKey(ctx, org.ID)
	return key, org, err
}

// run serves until ctx is done, then shuts down gracefully.
func run(ctx context.Context, c config, out io.Writer) error {
	log, err := newLogger(c.quiet)
	if err != nil {
		return err
	}
	defer log.Sync() //nolint:errcheck
	a, err := setup(ctx, c, log, out)
	if err != nil {
		return err
	}
	defer a.store.Close()
	pub, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	adm, err := net.Listen("tcp", c.adminAddr)
	if err != nil {
		pub.Close()
		return err
	}
	servers := []*http.Server{
		{Handler: a.public, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute},
		{Handler: a.admin, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second},
	}
	fmt.Fprintf(out, "Public API on http://%s  (try: curl -H \"Authorization: Bearer $KEY\" http://%s/v1/ping)\n", pub.Addr(), pub.Addr())
	fmt.Fprintf(out, "Admin API on http://%s\n", adm.Addr())
	errc := make(chan error, 2)
	go func() { errc <- servers[0].Serve(pub) }()
	go func() { errc <- servers[1].Serve(adm) }()
	// The engine's background work stops when loopCtx ends; the store is
	// closed only after every loop has finished its pass.
	loopCtx, stopLoops := context.WithCancel(ctx)
	var loops sync.WaitGroup
	defer func() { stopLoops(); loops.Wait() }()
	if c.env == string(tambala.Sandbox) && !c.noWorker {
		loops.Go(func() {
			if err := a.engine.Run(loopCtx); err != nil {
				log.Error("engine background work", zap.Error(err))
			}
		})
	} else { // no payout worker: webhooks and idempotency pruning only
		loops.Go(func() {
			if err := a.engine.RunDispatcher(loopCtx, 500*time.Millisecond); err != nil {
				log.Error("webhook dispatcher", zap.Error(err))
			}
		})
		loops.Go(func() { a.housekeeping(loopCtx) })
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			log.Error("listener failed", zap.Error(err))
		}
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdownCtx)
	}
	stopLoops()
	loops.Wait()
	fmt.Fprintln(out, "Stopped.")
	return nil
}

// housekeeping prunes expired idempotency records every few minutes when
// the server does not run the engine's whole background work (Run).
func (a *app) housekeeping(ctx context.Context) {
	t := time.NewTicker(5 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := a.engine.PruneIdempotency(ctx, 1000); err != nil && ctx.Err() == nil {
				a.log.Warn("pruning idempotency records", zap.Error(err))
			}
		}
	}
}
