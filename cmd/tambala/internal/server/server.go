package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/boltstore"
	"github.com/tambalapay/tambala/adapters/console"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/adapters/manualrail"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/adapters/pgstore"
	"github.com/tambalapay/tambala/adapters/portal"
	"github.com/tambalapay/tambala/adapters/prommetrics"
	"github.com/tambalapay/tambala/adapters/sandbox"
	"github.com/tambalapay/tambala/adapters/webhookhttp"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/quotes"
	"github.com/tambalapay/tambala/store"
)

// Main runs the server: it parses args over the environment environ
// (os.Environ's form), serves until ctx ends, and returns the process's
// exit status: 0 after a clean stop or -help, 1 when the server failed,
// 2 for a bad setting. name is the command's name in messages and -help
// ("tambala serve", "server"). Messages go to stderr, the start lines (the
// demo key, the admin token, the addresses) to stdout.
func Main(ctx context.Context, name string, args, environ []string, stdout, stderr io.Writer) int {
	c, err := parseConfig(name, args, environ, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	if c.logOut == nil {
		c.logOut = stderr
	}
	if c.showVersion {
		fmt.Fprintln(stdout, "tambala", Version())
		return 0
	}
	gcPercent()
	if c.backup != "" {
		if err := backupData(ctx, c, stdout); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		return 0
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: -cpuprofile: %v\n", name, err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(ctx, c, stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}

// failingStore is a store that can stop taking updates after a failed
// commit until it is reopened (pebblestore).
type failingStore interface {
	Failed() <-chan struct{}
	Err() error
}

// storeFailure returns a channel that delivers st's failure, or nil (a
// channel that never delivers) when st never fails that way.
func storeFailure(ctx context.Context, st store.Store) <-chan error {
	f, ok := st.(failingStore)
	if !ok {
		return nil
	}
	c := make(chan error, 1)
	go func() {
		select {
		case <-f.Failed():
			c <- f.Err()
		case <-ctx.Done():
		}
	}()
	return c
}

// errStoreFailed ends a server whose store stopped taking updates.
var errStoreFailed = errors.New("the store failed and takes no more updates; start the server again to reopen it")

// app is the assembled server: what main listens with and tests call.
type app struct {
	store store.Store
	// storeDesc names the store for the start line.
	storeDesc string
	engine    *tambala.Engine
	public    http.Handler
	admin     http.Handler
	loops     *loops
}

// newLogger is zap's production JSON logger writing to w, without
// sampling: every access line is kept (zap's production config would drop
// repeats of a message beyond 100 a second).
func newLogger(quiet bool, w io.Writer) *zap.Logger {
	level := zap.InfoLevel
	if quiet {
		level = zap.WarnLevel
	}
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	core := zapcore.NewCore(enc, zapcore.Lock(zapcore.AddSync(w)), level)
	return zap.New(core, zap.AddCaller(), zap.AddStacktrace(zap.ErrorLevel))
}

// slogOf is the *slog.Logger every part of the server is given (the
// engine, both handlers, the portal, the console, the manual rail): log's
// core behind zap's slog handler, with the caller and, from Error up, the
// stack, as log writes them.
func slogOf(log *zap.Logger) *slog.Logger {
	return slog.New(zapslog.NewHandler(log.Core(), zapslog.WithCaller(true), zapslog.AddStacktraceAt(slog.LevelError)))
}

// dbFile is the database's file in a data folder.
func dbFile(data string) string { return filepath.Join(data, "tambala.bolt") }

// errNoProvider says what production lacks.
var errNoProvider = errors.New("production needs a payout provider: the payout worker submits every accepted payout to one; " +
	"run with -provider manual (staff pay each payout by hand through the bank's or the mobile-money operator's portal " +
	"and record the outcome with tambala payout resolve, README \"Production with the manual rail\"), " +
	"embed the engine with your rail's adapter in tambala.Options.Payouts (README \"Embed it\"), or run -env sandbox")

// errSandboxInProduction refuses the sandbox provider in production.
var errSandboxInProduction = errors.New("production refuses -provider sandbox: the sandbox provider pays test destinations only; " +
	"run with -provider manual, or run -env sandbox")

// openStore opens the data folder's database, saying so plainly when
// another process holds it.
func openStore(data string) (*boltstore.Store, error) {
	st, err := boltstore.Open(dbFile(data), &boltstore.Options{OpenTimeout: 2 * time.Second})
	if boltstore.Locked(err) {
		return nil, fmt.Errorf("data folder %s is in use by another tambala process (bbolt lock on %s): stop that process, or use another -data", data, dbFile(data))
	}
	return st, err
}

// openConfiguredStore opens the store -store names: bbolt in the data
// folder by default, pebble in a directory, or PostgreSQL (its schema
// created or upgraded first). desc names it for the start line.
func openConfiguredStore(ctx context.Context, c config) (st store.Store, desc string, err error) {
	loc, err := LocateStore(c.data, c.store)
	if err != nil {
		return nil, "", err
	}
	switch loc.Kind {
	case StoreBolt:
		b, err := openStore(c.data)
		if err != nil {
			return nil, "", err
		}
		return b, loc.Desc(), nil
	case StorePebble:
		p, err := pebblestore.Open(loc.Path, nil)
		if errors.Is(err, pebblestore.ErrLocked) {
			return nil, "", fmt.Errorf("pebble directory %s is in use by another tambala process: stop that process, or use another -store", loc.Path)
		}
		return p, loc.Desc(), err
	default: // StorePostgres
		// 16 connections unless the URL says (pool_max_conns): group
		// commit shares one transaction among many updates, and 64
		// clients on a 2-core machine ran 1,931 accepts/s on pgx's default
		// of 4 against 2,019-2,038 on 16 (docs/performance.md).
		var opts pgstore.Options
		if u, err := url.Parse(loc.Path); err == nil && !u.Query().Has("pool_max_conns") {
			opts.MaxConns = 16
		}
		p, err := pgstore.Open(ctx, loc.Path, &opts)
		if err != nil {
			return nil, "", fmt.Errorf("opening PostgreSQL: %w", err)
		}
		return p, loc.Desc(), nil
	}
}

// redactURL drops a URL's password for the log.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// setup opens the data folder and builds the engine and handlers. On an
// empty store in the sandbox it bootstraps the demo organization (one
// transaction, once per store, see bootstrap) and prints its key to out
// (a later start, or another server on the store, names it as existing);
// a fresh admin token is printed in the sandbox,
// and only named (DATA/admin-token) in production, where stdout may be
// collected with the logs. Production never creates a demo organization,
// and refuses to start without a payout provider (-provider manual, or
// c.payouts from a test) or with the sandbox's, before it touches the data
// folder. Every part (the engine, the manual rail, both handlers, the
// portal, the console) logs to log.
func setup(ctx context.Context, c config, log *slog.Logger, out io.Writer) (*app, error) {
	production := c.env == string(tambala.Production)
	var provider tambala.PayoutProvider
	switch {
	case c.provider == providerManual:
		// The queue of payouts to pay by hand is the engine's list of
		// payouts in flight; the staff finish each through the admin API.
		provider = manualrail.New(&manualrail.Options{Logger: log})
	case production && c.provider == providerSandbox:
		return nil, errSandboxInProduction
	case production:
		provider = c.payouts
	}
	if production && provider == nil {
		return nil, errNoProvider
	}
	if err := os.MkdirAll(c.data, 0o700); err != nil {
		return nil, err
	}
	st, desc, err := openConfiguredStore(ctx, c)
	if err != nil {
		return nil, err
	}
	if c.wrapStore != nil {
		st = c.wrapStore(st)
	}
	// Metrics: the engine counts through prommetrics, the store is timed,
	// and both handlers observe every request; GET /metrics on the admin
	// listener serves them (with the Go runtime's and the process's).
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	pm := prommetrics.New(reg)
	opts := &tambala.Options{Metrics: pm,
		Logger: log, Environment: tambala.Environment(c.env), Webhooks: webhookhttp.NewSender(c.webhookTransport),
		// No webhook goes to the server's own listeners (the sandbox lets
		// other loopback receivers in; production refuses every private
		// destination).
		OwnListeners: c.listeners, WebhookAllow: c.webhookAllow,
		Limits: tambala.Limits{RatePerSecond: c.rate, RateBurst: c.burst, InFlightPerOrg: c.inFlightPerOrg}, Payouts: provider,
		TracerProvider: c.tracerProvider, // nil: tracing off (tracing.go)
	}
	if !production {
		if provider == nil {
			// The sandbox provider pays the test destinations after a short delay.
			opts.Payouts = sandbox.New(&sandbox.Options{Delay: c.payoutDelay, Store: st}) // its submissions survive a restart
		}
		// Deterministic deposit addresses for GET /v2/deposit-addresses.
		opts.DepositIssuer = sandbox.NewIssuer(nil)
		// The sandbox converter completes /v2 conversions after the same
		// delay (USDT→MWK at the corridor's rate); Run drives it.
		opts.Converter = sandbox.NewConverter(&sandbox.ConverterOptions{Delay: c.payoutDelay, Store: st})
	}
	eng, err := tambala.New(pm.InstrumentStore(st, strings.Fields(desc)[0]), opts)
	if err != nil {
		st.Close()
		return nil, err
	}
	cred, err := resolveAdminToken(ctx, st, c.data, c.adminToken)
	if err != nil {
		st.Close()
		return nil, err
	}
	lp := &loops{}
	prommetrics.RegisterBacklog(reg, eng)
	hopts := &httpapi.Options{Logger: log, Ready: lp.ready, PublicBaseURL: c.publicURL, Observe: func(route string, status int, code string, d time.Duration) {
		pm.ObserveHTTP("public", route, status, code, d)
	}}
	aopts := *hopts
	aopts.Observe = func(route string, status int, code string, d time.Duration) {
		pm.ObserveHTTP("admin", route, status, code, d)
	}
	aopts.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	if b, ok := st.(httpapi.Backuper); ok {
		aopts.Backup = b // GET /admin/backup copies the bbolt file
	}
	admin := httpapi.NewAdminTokenHash(eng, cred.hash, &aopts)
	// The public listener serves the API and, under /portal/, the
	// organization admins' portal (plain-HTTP cookies only for a sandbox
	// on loopback).
	public := http.NewServeMux()
	public.Handle("/", httpapi.New(eng, hopts))
	public.Handle("/portal/", portal.New(eng, &portal.Options{Logger: log,
		InsecureCookies: !production && loopback(c.addr)}))
	// The admin listener serves the admin API and, under /console/, the
	// operator's console for the staff (plain-HTTP cookies only for a
	// sandbox on loopback).
	adminMux := http.NewServeMux()
	adminMux.Handle("/", admin)
	adminMux.Handle("/console/", console.New(eng, &console.Options{Logger: log,
		InsecureCookies: !production && loopback(c.adminAddr)}))
	a := &app{store: st, storeDesc: desc, engine: eng, public: public, admin: adminMux, loops: lp}
	orgs, err := eng.Operator().Organizations(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	switch {
	case production && len(orgs) == 0:
		fmt.Fprintln(out, "No organization yet: create one with tambala org create NAME, and sync the institutions with tambala institutions sync FILE.")
	case production: // a later production start: nothing to say
	default:
		// Every sandbox start asks for the demo organization: the bootstrap
		// creates it on an empty store, else finds the one a start before
		// this one (or another server on the same database) created.
		demo, err := bootstrap(ctx, eng)
		if err != nil {
			st.Close()
			return nil, err
		}
		if demo.Created {
			fmt.Fprintf(out, "Demo organization %q (%s) created, funded with 1000000.00 MWK and 10000.000000 USDT.\n", demo.Organization.Name, demo.Organization.ID)
			fmt.Fprintf(out, "API key (shown once, store it now):  %s\n", demo.Key)
			link, err := inviteDemoAdmin(ctx, eng, demo.Organization.ID, c)
			if err != nil {
				st.Close()
				return nil, err
			}
			fmt.Fprintf(out, "Portal: the demo admin (%s) sets a password at (shown once, for 72 hours):\n  %s\n", demoAdminEmail, link)
		} else if demo.Organization.ID != "" {
			fmt.Fprintf(out, "Demo organization %q (%s) already exists: the start that created it printed its key once (tambala key create %s makes another).\n",
				demo.Organization.Name, demo.Organization.ID, demo.Organization.ID)
		}
	}
	switch {
	case cred.fresh && production:
		fmt.Fprintf(out, "Admin token created in %s (readable only by its owner).\n", tokenFile(c.data))
	case cred.fresh:
		fmt.Fprintf(out, "Admin token (shown once; kept in %s): %s\n", tokenFile(c.data), cred.token)
	case cred.token == "":
		// Another instance over the same store made the token: this data
		// folder has no copy, and the tambala command reads it from there.
		fmt.Fprintf(out, "Admin token: the one this store's first instance made (in its data folder's admin-token) or was given (TAMBALA_ADMIN_TOKEN).\n"+
			"  %s does not exist, so the tambala command run here fails until you copy that admin-token file there (mode 0600) or set TAMBALA_ADMIN_TOKEN.\n",
			tokenFile(c.data))
	}
	if c.provider == providerManual {
		fmt.Fprintln(out, "Payouts go to the manual rail: pay each payout in flight by hand (tambala payout in-flight), then record its outcome (tambala payout resolve ID).")
	}
	return a, nil
}

// demoAdminEmail is the demo organization's first admin in the sandbox.
const demoAdminEmail = "admin@demo.example"

// inviteDemoAdmin invites the demo organization's admin and returns the
// link where they set a password, on the public base URL when one is set,
// else on the public listen address.
func inviteDemoAdmin(ctx context.Context, eng *tambala.Engine, org string, c config) (string, error) {
	inv, err := eng.People().InviteUser(ctx, tambala.InviteUser{Org: org, Email: demoAdminEmail})
	if err != nil {
		return "", fmt.Errorf("inviting the demo admin: %w", err)
	}
	base := strings.TrimSuffix(c.publicURL, "/")
	if base == "" {
		base = "http://" + c.addr
	}
	return base + "/portal/invitations/accept?token=" + url.QueryEscape(inv.Token), nil
}

// listenAddr is a listener's address: 0.0.0.0 or :: when it listens on
// every address.
func listenAddr(l net.Listener) netip.AddrPort {
	if a, ok := l.Addr().(*net.TCPAddr); ok {
		return a.AddrPort()
	}
	ap, _ := netip.ParseAddrPort(l.Addr().String())
	return ap
}

// loopback reports whether the listen address addr is on loopback only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// demoMarker records the demo organization in the store, so that servers
// starting together on one empty database create one between them. The
// key keeps its first name (the server lived in examples/server): it is
// stored, and stored bytes do not move.
const demoMarker = "examples/server.demo"

// bootstrap creates the demo organization, funded, with one open MWK
// corridor and an API key, in one storage transaction: unless the store
// already records a demo organization or holds any organization.
func bootstrap(ctx context.Context, eng *tambala.Engine) (tambala.Bootstrapped, error) {
	// One open MWK corridor, so that the desk quotes and takes orders at
	// once: 1750.5 MWK per USDT to-bank, 1800 from-bank, orders from
	// 1000.00 MWK.
	return eng.Operator().BootstrapOrganization(ctx, tambala.Bootstrap{
		Marker: demoMarker,
		Organization: tambala.NewOrganization{
			Name:     "Demo Organization",
			V2Access: tambala.V2Enabled,
			Assets: []tambala.AssetAccess{
				{Asset: "MWK", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
				{Asset: "USDT", Operations: []string{tambala.OpPayout, tambala.OpCollection, tambala.OpConvert}},
			},
			BalanceFloorMWK: money.FromInt(money.MWK, 10_000),
		},
		Funding: []tambala.Funding{
			{Amount: money.FromInt(money.MWK, 1_000_000), Ref: "demo-opening-balance"},
			{Amount: money.FromInt(money.USDT, 10_000), Ref: "demo-opening-balance"},
		},
		Corridors: []quotes.Corridor{{Asset: money.MWK, RateOffRamp: money.MustRate("1750.5"), RateOnRamp: money.MustRate("1800"),
			Min: money.FromInt(money.MWK, 1000), Open: true}},
	})
}

// loops tracks the server's background loops for GET /readyz: each is
// ready from its start until it returns. A loop that returns while the
// server runs makes the server not ready.
type loops struct {
	mu    sync.Mutex
	state map[string]error // nil: running
}

var errStopped = errors.New("stopped")

// start runs fn in wg under name.
func (l *loops) start(wg *sync.WaitGroup, name string, fn func() error) {
	l.mu.Lock()
	if l.state == nil {
		l.state = map[string]error{}
	}
	l.state[name] = nil
	l.mu.Unlock()
	wg.Go(func() {
		err := fn()
		if err == nil {
			err = errStopped
		} else {
			err = fmt.Errorf("stopped: %w", err)
		}
		l.mu.Lock()
		l.state[name] = err
		l.mu.Unlock()
	})
}

// ready is the server's httpapi.Options.Ready: "loops" fails until the
// loops are started and once one of them has returned.
func (l *loops) ready(context.Context) map[string]error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.state) == 0 {
		return map[string]error{"loops": errors.New("not started yet")}
	}
	var failed []string
	for name, err := range l.state {
		if err != nil {
			failed = append(failed, name+" "+err.Error())
		}
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		return map[string]error{"loops": errors.New(strings.Join(failed, "; "))}
	}
	return map[string]error{"loops": nil}
}

// run serves until ctx is done, then shuts down gracefully.
func run(ctx context.Context, c config, out io.Writer) error {
	logOut := c.logOut
	if logOut == nil {
		logOut = os.Stderr
	}
	zl := newLogger(c.quiet, logOut)
	defer zl.Sync()   //nolint:errcheck
	log := slogOf(zl) // the one zap core behind every line the server writes
	// Both addresses are bound before the data folder is touched: a start
	// that cannot listen creates and prints no key or token that the next
	// start would not print again.
	pub, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("public API (-addr): %w; nothing was created", err)
	}
	adm, err := net.Listen("tcp", c.adminAddr)
	if err != nil {
		pub.Close()
		return fmt.Errorf("admin API (-admin-addr): %w; nothing was created", err)
	}
	tp, stopTracing, err := startTracing(ctx, c, log)
	if err != nil {
		pub.Close()
		adm.Close()
		return err
	}
	defer stopTracing() // last: after the listeners and the loops have stopped
	c.tracerProvider = tp
	c.listeners = append(c.listeners, listenAddr(pub), listenAddr(adm))
	a, err := setup(ctx, c, log, out)
	if err != nil {
		pub.Close()
		adm.Close()
		return err
	}
	defer a.store.Close()
	// The engine's background work stops when loopCtx ends; the store is
	// closed only after every loop has finished its pass.
	loopCtx, stopLoops := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopLoops(); wg.Wait() }()
	// Every loop of the engine (the payout worker, the webhook dispatcher,
	// the conversion worker, the order expiry sweep, pruning), or all but
	// the payout worker with -worker=false; Run returns only when loopCtx
	// ends (or at once if a port is missing).
	var loops []tambala.Loop
	if c.noWorker {
		loops = []tambala.Loop{tambala.LoopDeliveries, tambala.LoopConversions, tambala.LoopOrderExpiry, tambala.LoopPruning}
	}
	a.loops.start(&wg, "background_work", func() error {
		err := a.engine.Run(loopCtx, loops...)
		if err != nil {
			log.LogAttrs(loopCtx, slog.LevelError, "engine background work", slog.Any("error", err))
		}
		return err
	})
	servers := []*http.Server{
		{Handler: a.public, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute},
		// GET /admin/backup lifts its own write deadline.
		{Handler: a.admin, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second},
	}
	abs, _ := filepath.Abs(c.data)
	log.LogAttrs(ctx, slog.LevelInfo, "tambala server started",
		slog.String("version", Version()), slog.String("environment", c.env),
		slog.String("data", abs), slog.String("store", a.storeDesc),
		slog.String("addr", pub.Addr().String()), slog.String("admin_addr", adm.Addr().String()),
		slog.Bool("worker", !c.noWorker), slog.Float64("rate", c.rate), slog.Int("burst", c.burst))
	fmt.Fprintf(out, "Public API on http://%s  (try: curl -H \"Authorization: Bearer $KEY\" http://%s/v1/ping)\n", pub.Addr(), pub.Addr())
	fmt.Fprintf(out, "Admin API on http://%s  (probes: GET /healthz, GET /readyz on both)\n", adm.Addr())
	errc := make(chan error, 2)
	go func() { errc <- servers[0].Serve(pub) }()
	go func() { errc <- servers[1].Serve(adm) }()
	var failed error
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			log.LogAttrs(ctx, slog.LevelError, "listener failed", slog.Any("error", err))
		}
	case err := <-storeFailure(loopCtx, a.store):
		// Every update fails from now on (reads still answer): stop, so
		// that a supervisor starts the server again on a reopened store.
		log.LogAttrs(ctx, slog.LevelError, "store failed; stopping", slog.Any("error", err))
		failed = fmt.Errorf("%w: %w", errStoreFailed, err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdownCtx)
	}
	stopLoops()
	wg.Wait()
	log.Info("tambala server stopped")
	fmt.Fprintln(out, "Stopped.")
	return failed
}

// gcPercent runs the garbage collector at GOGC=400 unless the GOGC
// variable says otherwise: a server's live heap is small and its garbage
// is mostly per request, so the default of 100 spends about a tenth of
// its CPU collecting (see docs/decisions.md, "Garbage collection in the
// example programs").
func gcPercent() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
