package server

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/httpapi"
	"github.com/tambalapay/tambala/store"
)

// version is the version set at build, which wins over the build info:
//
//	go build -ldflags "-X github.com/tambalapay/tambala/cmd/tambala/internal/server.version=v0.2.0" ./cmd/tambala
var version string

// Version is the program's version: the one set at build with -ldflags
// (see version), else the module version Go stamped into the binary
// (v0.3.0 for go install ...@v0.3.0), else "dev"; followed by the VCS
// revision and commit time the binary was built from whenever the build
// recorded them: the vcs.revision and vcs.time of a build in a git
// checkout (with "+dirty" for uncommitted changes), else those a
// pseudo-version encodes (go install ...@latest of an untagged commit
// stamps v0.0.0-20261128140000-abcdef123456 and no vcs settings).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(version, bi, ok)
}

// versionOf is Version for the version set at build and the build info
// (ok false: none).
func versionOf(set string, bi *debug.BuildInfo, ok bool) string {
	v := set
	if v == "" {
		v = "dev"
		if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	if !ok {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		rev, at = pseudoVersion(bi.Main.Version)
	}
	if rev == "" {
		return v // a release (v0.3.0): its tag names the commit
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	if at != "" {
		return v + " (" + rev + ", " + at + ")"
	}
	return v + " (" + rev + ")"
}

// pseudoRE matches a pseudo-version (golang.org/x/mod/module's forms:
// vX.0.0-TIME-REV, vX.Y.Z-PRE.0.TIME-REV, vX.Y.Z-0.TIME-REV, with an
// optional +build suffix) and captures its commit time and revision.
var pseudoRE = regexp.MustCompile(`^v[0-9]+\.(?:0\.0-|[0-9]+\.[0-9]+-(?:[^+]*\.)?0\.)([0-9]{14})-([0-9a-f]{12,})(?:\+[0-9A-Za-z.-]+)?$`)

// pseudoVersion returns the revision and the commit time (RFC 3339, UTC,
// as vcs.time) a pseudo-version encodes, or "" and "" for another version.
func pseudoVersion(v string) (rev, at string) {
	m := pseudoRE.FindStringSubmatch(v)
	if m == nil {
		return "", ""
	}
	t, err := time.Parse("20060102150405", m[1])
	if err != nil {
		return "", ""
	}
	return m[2], t.UTC().Format(time.RFC3339)
}

type config struct {
	data      string
	store     string // "" (bbolt), "pebble[:DIR]" or a postgres:// URL
	addr      string
	adminAddr string
	env       string
	quiet     bool
	// payoutDelay is how long the sandbox provider takes to pay.
	payoutDelay time.Duration
	// rate and burst size each organization's request token bucket.
	rate  float64
	burst int
	// inFlightPerOrg is each organization's share of the engine while
	// others are active (tambala.Limits.InFlightPerOrg).
	inFlightPerOrg int
	// noWorker leaves the payout worker stopped: payouts are accepted and
	// held, never submitted (for measuring the accept path alone).
	noWorker bool
	// cpuProfile is a file to write a CPU profile of the whole run to.
	cpuProfile string
	// publicURL is the public API's address as its callers reach it, for
	// absolute links (httpapi.Options.PublicBaseURL); empty, links are
	// relative.
	publicURL string
	// adminToken is the admin token, when given (-admin-token,
	// TAMBALA_ADMIN_TOKEN): every instance over one store needs the same.
	adminToken string
	// otlpEndpoint is the OTLP/HTTP collector's base URL spans are
	// exported to (tracing.go); otelEndpoint says a standard OTEL_ variable
	// names one, and otelOff that one turns tracing off.
	otlpEndpoint          string
	otelEndpoint, otelOff bool
	// tracerProvider receives the spans (nil: tracing off); run sets it.
	tracerProvider trace.TracerProvider

	// One-shot actions (command line only, never from the environment).
	backup      string // copy the data folder's database to this file, then exit
	showVersion bool

	// provider is the payout provider: "" (the sandbox's in the sandbox,
	// none in production), providerSandbox or providerManual.
	provider string

	// payouts is a payout provider for production when -provider names
	// none; no flag sets it: tests set it to exercise production mode with
	// a provider of their own.
	payouts tambala.PayoutProvider
	// webhookTransport, tests only, carries the webhook deliveries (nil:
	// the sender's default transport).
	webhookTransport http.RoundTripper
	// webhookAllow, tests only, lists address ranges webhooks may reach
	// although the destination rule refuses them
	// (tambala.Options.WebhookAllow): a test's https receiver on loopback
	// in production. No flag sets it.
	webhookAllow []netip.Prefix
	// listeners are the addresses the server listens on, refused as
	// webhook destinations in every environment
	// (tambala.Options.OwnListeners); run sets them once bound.
	listeners []netip.AddrPort
	// logOut receives the JSON log (default os.Stderr).
	logOut io.Writer
	// wrapStore, tests only, wraps the store the server opened.
	wrapStore func(store.Store) store.Store
}

// The payout providers -provider names.
const (
	// providerSandbox is the simulated provider: it pays the sandbox test
	// destinations only, so production refuses it.
	providerSandbox = "sandbox"
	// providerManual is the manual rail (adapters/manualrail): staff pay
	// each payout by hand and record the outcome through the admin API
	// (tambala payout resolve).
	providerManual = "manual"
)

// envPrefix starts the name of every setting's environment variable:
// -admin-addr is TAMBALA_ADMIN_ADDR.
const envPrefix = "TAMBALA_"

// commandLineOnly are the flags no environment variable sets: actions,
// which would otherwise run at every start.
var commandLineOnly = []string{"backup", "version"}

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// declare declares every flag into c and worker (-worker, which sets
// c.noWorker after parsing); each setting's usage names its environment
// variable.
func declare(name string, fs *flag.FlagSet, c *config, worker *bool) {
	fs.StringVar(&c.data, "data", "data", "data folder: the database (tambala.bolt) and the admin token (created if missing)")
	fs.StringVar(&c.store, "store", "", "the store: empty for bbolt in the data folder (the default), pebble or pebble:DIR (DIR default DATA/pebble), or a postgres:// URL (schema created or upgraded at start)")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "public API listen address")
	fs.StringVar(&c.adminAddr, "admin-addr", "127.0.0.1:8081", "admin API listen address (keep it private: loopback or an internal network)")
	fs.StringVar(&c.env, "env", "sandbox", "environment: sandbox or production")
	fs.BoolVar(&c.quiet, "quiet", false, "log warnings and errors only")
	fs.StringVar(&c.provider, "provider", "", "payout provider: sandbox (the default in the sandbox; refused in production) or manual (staff pay each payout by hand through the bank's or the mobile-money operator's portal and record the outcome with tambala payout resolve)")
	fs.DurationVar(&c.payoutDelay, "payout-delay", 2*time.Second, "sandbox: how long the simulated provider takes to pay")
	fs.Float64Var(&c.rate, "rate", 50, "requests per second allowed per organization (token bucket rate)")
	fs.IntVar(&c.burst, "burst", 100, "requests allowed in a burst per organization (token bucket size)")
	fs.IntVar(&c.inFlightPerOrg, "in-flight-per-org", 16, "while more than one organization is active, each may have at most this many requests in the engine at once; its others wait their turn (negative: no limit)")
	fs.BoolVar(worker, "worker", true, "run the payout worker (false: payouts stay held, for measuring the accept path alone)")
	fs.StringVar(&c.publicURL, "public-url", "", "the public API's address as its callers reach it (https://api.example.com), for absolute funding proof links; empty, links are relative (/files/proofs/...); never taken from a request's Host")
	fs.StringVar(&c.adminToken, "admin-token", "", "the admin token (32+ characters); instances over one store share one: give each the same, or none (the store keeps its hash; the first start makes one in DATA/admin-token). Prefer the variable: a flag shows in the process list")
	fs.StringVar(&c.otlpEndpoint, "otlp-endpoint", "", "export traces by OTLP/HTTP to this collector base URL (http://collector:4318; /v1/traces is added); empty, tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (read it with go tool pprof)")
	fs.StringVar(&c.backup, "backup", "", "write a consistent copy of the data folder's database to this new `file` and exit (refused while a server holds the folder: use tambala backup -from ADMIN_URL then)")
	fs.BoolVar(&c.showVersion, "version", false, "print the version and exit")
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(commandLineOnly, f.Name) {
			f.Usage += " (env " + envName(f.Name) + ")"
		}
	})
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: "+name+" [flags]\n\n"+
			"Runs the tambala engine: the public API and the admin API over its store\n"+
			"(a bbolt file in the data folder by default; pebble or PostgreSQL with -store).\n"+
			"Every setting can also come from its environment variable; a flag on the command line wins.\n\n")
		fs.PrintDefaults()
	}
}

// parseConfig reads the command line args over the environment (environ
// is os.Environ's form): a flag given on the command line wins over its
// variable, a variable over the default. Warnings (a TAMBALA_ variable
// that is no setting) go to stderr. It returns flag.ErrHelp after printing
// the usage for -h or -help.
func parseConfig(cmdName string, args, environ []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet(cmdName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	worker := true
	declare(cmdName, fs, &c, &worker)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) {
			continue
		}
		f := flagOf(fs, name)
		if f == nil {
			fmt.Fprintf(stderr, "%s: %s is not a setting of this server (ignored); run with -help for the list\n", cmdName, name)
			continue
		}
		if set[f.Name] {
			continue // the command line wins
		}
		if err := fs.Set(f.Name, value); err != nil {
			return c, fmt.Errorf("%s=%q: not a valid value for -%s (%v)", name, value, f.Name, err)
		}
	}
	c.noWorker = !worker
	c.otelEndpoint, c.otelOff = otelTracing(environ)
	switch {
	case c.rate <= 0 || c.burst <= 0:
		return c, errors.New("-rate and -burst must be positive")
	case c.inFlightPerOrg == 0:
		return c, errors.New("-in-flight-per-org must be positive, or negative for no limit")
	case c.env != string(tambala.Sandbox) && c.env != string(tambala.Production):
		return c, fmt.Errorf("-env must be sandbox or production, not %q", c.env)
	case c.provider != "" && c.provider != providerSandbox && c.provider != providerManual:
		return c, fmt.Errorf("-provider must be sandbox or manual, not %q", c.provider)
	case c.payoutDelay < 0:
		return c, errors.New("-payout-delay must not be negative")
	case c.data == "":
		return c, errors.New("-data must name a folder")
	}
	if c.otlpEndpoint != "" {
		if err := checkOTLPEndpoint(c.otlpEndpoint); err != nil {
			return c, fmt.Errorf("-otlp-endpoint: %w", err)
		}
	}
	if c.publicURL != "" {
		if err := httpapi.CheckPublicBaseURL(c.publicURL); err != nil {
			return c, fmt.Errorf("-public-url: %w", err)
		}
	}
	return c, nil
}

// CheckArgs reads the command line args as Main would, over no
// environment, without running anything: every flag must be a setting and
// every value valid. name is the command's name in messages.
func CheckArgs(name string, args []string) error {
	_, err := parseConfig(name, args, nil, io.Discard)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// flagOf returns the flag an environment variable sets, or nil.
func flagOf(fs *flag.FlagSet, envVar string) *flag.Flag {
	var found *flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(commandLineOnly, f.Name) && envName(f.Name) == envVar {
			found = f
		}
	})
	return found
}
