// Command webhook-receiver receives the engine's webhook events: it
// verifies each delivery's Signature over the raw body (against the current
// secret and, during a rotation, the previous one), rejects a mismatch with
// 401, handles each event id once, and prints what arrived.
//
//	WEBHOOK_SECRET=whsec_... go run ./examples/webhook-receiver -addr 127.0.0.1:9090
//
// Register it on the sandbox's admin API:
//
//	curl -H "Authorization: Bearer $ADMIN" -X PUT localhost:8081/admin/orgs/$ORG/webhook \
//	  -H "Content-Type: application/json" -d '{"url":"http://127.0.0.1:9090/webhooks"}'
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tambalapay/tambala/adapters/webhookhttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9090", "listen address")
	flag.Parse()
	secrets := []string{os.Getenv("WEBHOOK_SECRET"), os.Getenv("WEBHOOK_SECRET_PREVIOUS")}
	if secrets[0] == "" {
		fmt.Fprintln(os.Stderr, "set WEBHOOK_SECRET (and WEBHOOK_SECRET_PREVIOUS during a rotation)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Addr: *addr, Handler: newMux(secrets, os.Stdout), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	fmt.Printf("receiving webhooks on http://%s/webhooks\n", *addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func newMux(secrets []string, out io.Writer) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/webhooks", &webhookhttp.Receiver{
		Secrets: func() []string { return secrets },
		Handle: func(_ context.Context, e webhookhttp.Event) error {
			// Real work belongs on a queue; answer within 10 seconds.
			fmt.Fprintf(out, "%s %s %s\n", e.EventType, e.ID, e.Data)
			return nil
		},
	})
	return mux
}
