package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/tambalapay/tambala/internal/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := server.Main(ctx, "server", os.Args[1:], os.Environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
