package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/tambalapay/tambala/money"
)

// The bare baseline: a net/http server in this process, on loopback, whose
// handler reads the body of a /v1 payout request, decodes it with
// encoding/json and answers a 202 of the shape and size of a payout's
// answer. No store, no engine: driven by the same clients as a load run,
// its figure is what HTTP and JSON alone allow on this machine, and the
// load's figure divided by it is the headroom left in the HTTP path.

// bareRequest has the fields of a /v1 payout request.
type bareRequest struct {
	AmountMWK       json.RawMessage `json:"amount_mwk"`
	InstitutionID   int             `json:"institution_id"`
	MobileNumber    string          `json:"mobile_number,omitempty"`
	AccountNumber   string          `json:"account_number,omitempty"`
	BeneficiaryName string          `json:"beneficiary_name"`
}

// bareResponse has the shape of a payout's answer.
type bareResponse struct {
	ID          string  `json:"id"`
	AmountMWK   string  `json:"amount_mwk"`
	Fee         *string `json:"fee"`
	Rail        string  `json:"rail"`
	Status      string  `json:"status"`
	Destination struct {
		InstitutionID   int     `json:"institution_id"`
		AccountNumber   *string `json:"account_number,omitempty"`
		MobileNumber    *string `json:"mobile_number,omitempty"`
		BeneficiaryName string  `json:"beneficiary_name"`
	} `json:"destination"`
	Failure *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"failure"`
	CreatedAt  string  `json:"created_at"`
	TerminalAt *string `json:"terminal_at"`
}

// bareHandler answers every POST /v1/payouts/RAIL as a payout would be
// accepted: the body read and decoded, a 202 with a fresh id, the amount
// and destination of the request, status held, no fee yet and the created
// time, as the engine renders a payout just accepted.
func bareHandler(rail string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/payouts/"+rail {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") == "" || r.Header.Get("Idempotency-Key") == "" {
			http.Error(w, "missing headers", http.StatusBadRequest)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var in bareRequest
		if err := json.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var amount string
		if err := json.Unmarshal(in.AmountMWK, &amount); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id, err := uuid.NewV7() // as the engine's ids
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out := bareResponse{ID: id.String(), AmountMWK: amount, Rail: rail, Status: "held",
			CreatedAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")}
		out.Destination.InstitutionID = in.InstitutionID
		out.Destination.BeneficiaryName = in.BeneficiaryName
		if in.MobileNumber != "" {
			out.Destination.MobileNumber = &in.MobileNumber
		}
		if in.AccountNumber != "" {
			out.Destination.AccountNumber = &in.AccountNumber
		}
		res, err := json.Marshal(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(res)
	})
}

// bareServer is the bare handler served on an ephemeral loopback port.
type bareServer struct {
	srv  *http.Server
	done chan struct{}
	url  string // where the payouts go
}

func startBare(rail string) (*bareServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the bare server: %w", err)
	}
	s := &bareServer{
		srv:  &http.Server{Handler: bareHandler(rail), ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}),
		url:  "http://" + ln.Addr().String() + "/v1/payouts/" + rail,
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

func (s *bareServer) close() {
	_ = s.srv.Close()
	<-s.done
}

// runBareLoad serves the bare handler and drives it with c's clients, -n
// and duration, with the same client, bodies and workers as a load run.
func runBareLoad(ctx context.Context, c config, amount money.Amount, n int, duration time.Duration) (*result, string, error) {
	s, err := startBare(c.Rail)
	if err != nil {
		return nil, "", err
	}
	defer s.close()
	hc := newHTTPClient(c.Clients, c.Timeout, false)
	defer hc.CloseIdleConnections()
	plan := make([]client, c.Clients)
	for i := range plan {
		plan[i] = client{url: s.url, orgs: []int{0}}
	}
	res := runLoad(ctx, hc, loadParams{clients: plan, keys: []string{"bare"}, bodies: payoutBodies(c.Rail, amount), n: n, duration: duration})
	return res, s.url, nil
}

// runBare is -bare: the bare handler's figure, reported as a load run's.
func runBare(ctx context.Context, c config, amount money.Amount, out io.Writer) error {
	res, url, err := runBareLoad(ctx, c, amount, c.N, c.Duration)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%-*s%s (bare net/http + encoding/json, no store), %s MWK each, %d clients, %s\n", labelWidth, "target",
		url, amount, c.Clients, bounds(c))
	printReport(out, res)
	if len(res.errors) > 0 {
		return errors.New("the bare server answered with errors")
	}
	return nil
}

// bareFigure is the bare baseline a load run prints beside its own figure.
type bareFigure struct {
	clients  int
	duration time.Duration
	rate     float64 // requests per second
}

// bareBaseline runs the bare handler with the run's clients for
// -bare-time when -bare-baseline is given, before the load.
func (c *config) bareBaseline(ctx context.Context, amount money.Amount) (bareFigure, error) {
	if !c.BareBaseline {
		return bareFigure{}, nil
	}
	d := c.BareTime
	if d <= 0 {
		d = 10 * time.Second
	}
	res, _, err := runBareLoad(ctx, *c, amount, 0, d)
	if err != nil {
		return bareFigure{}, fmt.Errorf("the bare baseline: %w", err)
	}
	if len(res.errors) > 0 {
		for k, v := range res.errors {
			return bareFigure{}, fmt.Errorf("the bare baseline: %d × %s %s", v, k, res.firstErr)
		}
	}
	if ctx.Err() != nil {
		return bareFigure{}, fmt.Errorf("the bare baseline: %w", ctx.Err())
	}
	return bareFigure{clients: c.Clients, duration: d, rate: float64(len(res.latencies)) / res.wall.Seconds()}, nil
}

// printBare prints the bare baseline and the ratio of the load's accepts
// per second to it.
func printBare(out io.Writer, b bareFigure, accepted int, wall time.Duration) {
	tw := newTable(out)
	fmt.Fprintf(tw, "baseline bare HTTP\t%.1f req/s (net/http + encoding/json, %d clients, %s)\n", b.rate, b.clients, b.duration)
	if secs := wall.Seconds(); secs > 0 && b.rate > 0 {
		fmt.Fprintf(tw, "accepted/s ÷ bare HTTP\t%.2f\n", float64(accepted)/secs/b.rate)
	}
	tw.Flush()
}
