// Command loadgen drives a running tambala server over HTTP with concurrent
// /v1 payouts (or, with -mode, one of the /v2 creates) and checks
// afterwards, through the API, that no money was lost or doubled.
//
//	go run ./cmd/tambala serve -data /tmp/lg -rate 1000000 -burst 1000000 -worker=false -quiet &
//	go run ./examples/loadgen -data /tmp/lg -clients 64 -n 50000 -ids /tmp/ids.txt
//
// Unless -key names an existing API key, it first creates a fresh
// organization through the admin API (token from -admin-token, or
// DATA/admin-token), an API key for it (printed, for -verify later), funds
// it for every payout of the run plus a margin (priced with POST
// /v1/fees/quote), and raises its payout limits so they do not throttle the
// run. The server's per-organization request rate limit does: start the
// server with a large -rate and -burst.
//
// Then -clients workers POST /v1/payouts/momo (or bank with -rail bank), each
// request with its own Idempotency-Key, to the sandbox provider's test
// destinations, until -n payouts were sent or -duration has passed. It
// prints wall time, accepted and requests per second, latency percentiles of
// every request, and errors by HTTP status and error code (429s included;
// nothing is retried during the run). A request whose outcome is unknown
// (a transport error or a 5xx) is replayed after the run with the same key
// and body, as the API's idempotency rules say, so every payout is either
// known accepted or known rejected.
//
// The balance check reads GET /v1/balance before and after: the final
// available balance must equal the starting one minus the hold (total
// debit) of every accepted payout, plus what settled payouts gave back (a
// failed payout releases its hold). When the figures differ from the plain
// subtraction (the payout worker settled some while running) it reads every
// accepted payout with GET /v1/payouts/{id} and accounts for each by
// status; a payout not found is a failure. It prints PASS or FAIL and exits
// non-zero on FAIL. Use an organization nothing else pays from.
//
// -orgs N creates N organizations that way instead of one (each funded,
// its limits raised, its own API key; their keys are not printed) and
// spreads the clients over them: client i pays from organization i modulo
// N, and with more organizations than clients takes turns over
// organizations i, i+clients, i+2×clients… so every one is paid from.
// Besides the overall figures it prints requests, accepts per second and
// latency percentiles per group of organizations (each one when there are
// at most 8, else 8 runs of consecutive ones), and checks every
// organization's balance as above: PASS only when all pass, and each
// failing one's check is printed.
//
//	go run ./examples/loadgen -data /tmp/lg -clients 64 -duration 10s -orgs 1000
//
// -hot (with -duration) creates two organizations: a hot one that all
// clients but one flood at full speed, and a quiet one that the last client
// pays from one request at a time, one every -quiet-every (10ms). The quiet
// one first runs alone for -duration, then as long beside the flood; the
// report gives its p50 and p99 alone (unloaded) and beside the flood
// (loaded), and the loaded p99 over the unloaded one. The overall and
// per-organization (hot, quiet) figures are those of the flood. The
// server's per-organization rate limit must throttle neither: start it
// with a large -rate and -burst. -orgs and -hot create their
// organizations, so they exclude -key, and -ids (read back by -verify
// with one API key) needs a single organization.
//
// -mode picks what each request does; payout (the default) is all of the
// above. The /v2 modes, each as BenchmarkV2Create drives the engine:
//
//   - order: POST /v2/orders/quotes (1 USDT to MWK), then POST /v2/orders
//     with that quote, a fresh client_ref and a beneficiary (to-bank); one
//     operation, timed as one, is both requests;
//   - conversion: POST /v2/conversions/quotes (1 USDT to MWK), then POST
//     /v2/conversions;
//   - payout-v2: POST /v2/payouts, 5 USDT from USDT to a sandbox tron
//     wallet;
//   - payout-fx: POST /v2/payouts, -amount MWK to a momo test wallet, paid
//     from USDT at the corridor's rate;
//   - desk-move: orders are made first (as the order mode, for -duration
//     or -n of them, their figures printed on one line), then each is moved
//     accepted -> processing with POST /admin/orders/{id}/processing
//     (admin token); the run ends at -duration or when every order was
//     moved.
//
// Every POST carries its own Idempotency-Key (a quote's too). Besides
// the MWK funding and payout limits above, a /v2 mode enables /v2 on the
// organization (PUT /admin/orgs/{org}/v2-access), gives it payout,
// collection and convert on MWK and USDT, funds it with 10 USDT per create
// the run could make, and opens the MWK corridor (1750.5 off-ramp, 1800
// on-ramp, 1000.00 minimum) unless one is open. Accepts per second count
// operations (a quote and its create are one; a desk move is one). A
// create whose outcome is unknown is replayed with its key and body as
// above, a desk move repeated (a repeat is no change); a quote that fails
// is only counted.
//
// The money check of a /v2 mode reads GET /v2/balances (MWK and USDT)
// before and after: each accepted create holds its from_amount (orders,
// conversions) or source_amount (payouts), and a desk move moves no money.
// When the end balances are not the start less those holds, it reads every
// order, conversion or payout, the balances, and every one still moving
// again, and accounts for each by status (a completed conversion's hold
// captured and its to_amount credited, a failed one's released, a settled
// same-asset payout's amount and fee gone): the server's conversion worker
// runs even with -worker=false. What settled between the two readings
// makes the expected figures a range (held only falls, available only
// grows, as they settle); otherwise they are exact. A settled FX
// payout, or an order the desk moved further, cannot be accounted for
// from the API and fails the check: run the server with -worker=false.
// The /v2 modes use one organization of their own: they exclude -key,
// -orgs, -hot and -ids.
//
//	go run ./examples/loadgen -data /tmp/lg -clients 64 -duration 8s -mode order
//
// -url may list several public API bases, comma-separated (servers sharing
// one store, say two over one PostgreSQL database): client i sends to
// base i modulo their number, and the setup, the balance check and the
// replays go through the first.
//
// -pgbench URL first runs PostgreSQL's pgbench (the tpcb-like workload,
// scale 10, as many clients as the load, -pgbench-time long) on that
// scratch database, where it creates its tables, and prints its tps and
// the load's accepts per second divided by it: a baseline that carries
// across machines.
//
// -bare, instead of a load run, serves a bare net/http handler in this
// process on an ephemeral loopback port: it reads the /v1 payout request,
// decodes it with encoding/json and answers a 202 of a payout's shape and
// size, with no store and no engine. The same clients, -clients, -n or
// -duration and -timeout drive it, and it prints the same report. With
// -bare-baseline a load run first does the same for -bare-time (10s) and
// prints the bare requests/s and the load's accepts per second divided by
// it: the headroom left in the HTTP path on this machine. It may be given
// with -pgbench.
//
//	go run ./examples/loadgen -bare -clients 64 -duration 5s
//
// -verify FILE -key KEY reads every payout id in FILE (as written by -ids)
// and reports how many the server finds: run it after restarting the server
// on the same data folder to check that accepted payouts were durable.
//
// It refuses a target whose host is not loopback (every resolved address
// must be), before sending anything, unless -allow-remote is given; the
// dialer enforces the same rule on every connection and redirects are not
// followed.
package main
