package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one subcommand: its words ("org create"), a line for the
// list, and what it does.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, cl *cli, args []string) error
}

// cli is what a subcommand runs with: its streams and the environment.
type cli struct {
	name    string   // the subcommand's words, for messages and -h
	environ []string // os.Environ's form
	stdout  io.Writer
	stderr  io.Writer
	// checkOnly makes the subcommand stop once its command line is read:
	// parse returns errChecked, and so does the admin API's first call
	// (checkArgs).
	checkOnly bool
}

// errChecked ends a subcommand run with checkOnly: its command line was
// read and found right; nothing was done.
var errChecked = errors.New("command line checked; not run")

// getenv returns the environment variable key, or "".
func (c *cli) getenv(key string) string {
	for i := len(c.environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(c.environ[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// flags returns a flag set for the subcommand: errors and -h go to
// stderr, usage names the subcommand and its arguments.
func (c *cli) flags(argsUsage, about string) *flag.FlagSet {
	fs := flag.NewFlagSet("tambala "+c.name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: tambala %s [flags]%s\n\n%s\n", c.name, prefixSpace(argsUsage), about)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(fs.Output(), "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

func prefixSpace(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}

// usageError is a wrong command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// usagef makes a usageError.
func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// parse parses args into fs and checks the number of positional
// arguments: between min and max (max < 0: any). With checkOnly it then
// returns errChecked.
func (c *cli) parse(fs *flag.FlagSet, args []string, min, max int) ([]string, error) {
	rest, err := parse(fs, args, min, max)
	if err == nil && c.checkOnly {
		return nil, errChecked
	}
	return rest, err
}

// parse parses args into fs and checks the number of positional
// arguments: between min and max (max < 0: any).
func parse(fs *flag.FlagSet, args []string, min, max int) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, flagError{err}
	}
	rest := fs.Args()
	switch {
	case len(rest) < min:
		return nil, usagef("missing arguments (run with -h)")
	case max >= 0 && len(rest) > max:
		return nil, usagef("unexpected arguments %q (flags go before arguments; run with -h)", rest[max:])
	}
	return rest, nil
}

// commands are every subcommand, in the order -h lists them.
func commands() []command {
	return slices.Concat(serverCommands, storeCommands, adminCommands)
}

// run runs the command line args and returns the exit status: 0 done (or
// help), 1 the command failed, 2 a wrong command line.
func run(ctx context.Context, args, environ []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || isHelp(args[0]) {
		usage(stdout, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	found, words := lookup(cmds, args)
	if found == nil {
		fmt.Fprintf(stderr, "tambala: unknown command %q\n", strings.Join(firstWords(args), " "))
		var near []string
		for _, c := range cmds {
			if strings.HasPrefix(c.name, args[0]+" ") {
				near = append(near, c.name)
			}
		}
		if len(near) > 0 {
			fmt.Fprintf(stderr, "%q has: %s\n", args[0], strings.Join(near, ", "))
		}
		fmt.Fprintln(stderr, "Run tambala -h for the list.")
		return 2
	}
	c := &cli{name: found.name, environ: environ, stdout: stdout, stderr: stderr}
	err := found.run(ctx, c, args[words:])
	var ue usageError
	var ex exitStatus
	switch {
	case errors.As(err, &ex):
		return int(ex) // the command said why
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "tambala %s: %v\n", found.name, err)
		return 2
	case isFlagError(err):
		return 2 // the flag package printed it and the usage
	default:
		fmt.Fprintf(stderr, "tambala %s: %v\n", found.name, err)
		return 1
	}
}

// isHelp reports whether arg asks for the list of commands.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// lookup returns the longest command of cmds whose words start args, and
// how many words it has (nil, 0: none).
func lookup(cmds []command, args []string) (*command, int) {
	var found *command
	words := 0
	for i := range cmds {
		w := strings.Fields(cmds[i].name)
		if len(w) > len(args) || !slices.Equal(w, args[:len(w)]) || len(w) <= words {
			continue
		}
		found, words = &cmds[i], len(w)
	}
	return found, words
}

// checkArgs reads the command line args as run would, without running
// the command: the subcommand must exist, and its flags, their values as
// far as the flag set checks them, and its number of arguments must be
// right; the command stops before it touches a store or calls the admin
// API. It is how the documentation's command lines are checked against
// the program (docs_test.go). -h is right.
func checkArgs(ctx context.Context, args []string) error {
	cmds := commands()
	if len(args) == 0 {
		return usagef("no command")
	}
	if isHelp(args[0]) {
		return nil
	}
	found, words := lookup(cmds, args)
	if found == nil {
		return usagef("unknown command %q", strings.Join(firstWords(args), " "))
	}
	var stderr strings.Builder
	c := &cli{name: found.name, stdout: io.Discard, stderr: &stderr, checkOnly: true}
	err := found.run(ctx, c, args[words:])
	switch {
	case errors.Is(err, errChecked), errors.Is(err, flag.ErrHelp):
		return nil
	case err == nil:
		return fmt.Errorf("tambala %s ran instead of stopping after reading its command line", found.name)
	case isFlagError(err):
		return fmt.Errorf("tambala %s: %w\n%s", found.name, err, stderr.String())
	}
	return fmt.Errorf("tambala %s: %w", found.name, err)
}

// exitStatus ends a command that printed its own messages with a status.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// flagError marks an error the flag package printed already.
type flagError struct{ error }

func (e flagError) Unwrap() error { return e.error }

func isFlagError(err error) bool {
	var fe flagError
	return errors.As(err, &fe)
}

func firstWords(args []string) []string {
	var w []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || len(w) == 2 {
			break
		}
		w = append(w, a)
	}
	if len(w) == 0 {
		w = args[:1]
	}
	return w
}

func usage(w io.Writer, cmds []command) {
	fmt.Fprint(w, "Usage: tambala <command> [flags] [arguments]\n\n"+
		"The tambala payments engine: its server, its store, and the operator's\n"+
		"everyday tasks through a running server's admin API.\n\nCommands:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range cmds {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, "\nRun tambala <command> -h for a command's flags.\n")
}

func (c *cli) println(a ...any) (int, error) { return fmt.Fprintln(c.stdout, a...) }
