package main

import (
	"context"

	"github.com/tambalapay/tambala/cmd/tambala/internal/server"
)

var serverCommands = []command{
	{"serve", "run the server: the public API and portal, the admin API and console, over a store", serve},
	{"version", "print the version and the source revision it was built from", printVersion},
}

// serve is the server (cmd/tambala/internal/server): every flag of it, each also an
// environment variable, is listed by tambala serve -h.
func serve(ctx context.Context, c *cli, args []string) error {
	if c.checkOnly {
		if err := server.CheckArgs("tambala serve", args); err != nil {
			return flagError{err}
		}
		return errChecked
	}
	if code := server.Main(ctx, "tambala serve", args, c.environ, c.stdout, c.stderr); code != 0 {
		return exitStatus(code)
	}
	return nil
}

func printVersion(_ context.Context, c *cli, args []string) error {
	fs := c.flags("", "Prints the version: the one set at build, else the module version\n"+
		"(go install ...@v0.3.0, or a pseudo-version for ...@latest of an untagged\n"+
		"commit), else dev; then the revision and time of the commit it was built\n"+
		"from whenever the build recorded them (a build in a git checkout, or the\n"+
		"pseudo-version's).")
	if _, err := c.parse(fs, args, 0, 0); err != nil {
		return err
	}
	_, err := c.println("tambala", server.Version())
	return err
}
