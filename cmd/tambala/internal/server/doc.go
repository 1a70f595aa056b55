// Package server is the tambala server, `tambala serve` (cmd/tambala):
// it runs the engine: the public API and the operator's admin
// API on two listeners (loopback by default), over its store: a bbolt file
// in a data folder by default, pebble or PostgreSQL with -store.
//
//	go run ./cmd/tambala serve
//
// On an empty data folder in the sandbox it creates a demo organization
// with MWK and USDT enabled and a funded balance, and prints its API key
// and the admin token once. Both addresses are bound first, so a start
// that cannot listen creates and prints nothing; servers starting
// together on one empty database create one demo organization between
// them. Later starts reuse the folder (the admin token stays in
// DATA/admin-token, readable only by its owner; the store keeps its hash,
// so every instance over one store answers the same token, and
// -admin-token / TAMBALA_ADMIN_TOKEN supplies it instead). SIGINT or
// SIGTERM shuts it down gracefully.
//
// -public-url (TAMBALA_PUBLIC_URL) is the public API's address as its
// callers reach it: funding proof links are absolute on it, and relative
// without it; they are never built from a request's Host.
//
// Every setting is a flag and an environment variable (-admin-addr and
// TAMBALA_ADMIN_ADDR); a flag on the command line wins. -help lists them,
// -version prints Version.
//
// Both listeners answer GET /healthz (the process is up) and GET /readyz
// (the store answers a read, the background loops run, and in production
// the institutions are synced) without credentials. Every response carries
// a Request-Id, which every log line of the request names. Logs are JSON
// lines on stderr, never sampled, with one line at start (version,
// environment, data folder, listeners). On the pebble store a failed
// commit stops the server with exit status 1 (the store takes no update
// until it is reopened: start the server again).
//
// GET /admin/backup streams a consistent copy of the database while the
// server runs; tambala backup and tambala restore copy a store no server
// holds (bbolt and pebble).
//
// -provider (TAMBALA_PROVIDER) is the payout provider: sandbox, the
// simulated provider and the sandbox's default, or manual, the manual rail
// (adapters/manualrail): staff pay each payout by hand and record the
// outcome with tambala payout resolve (POST /admin/payouts/{id}/resolve).
//
// -env production never creates a demo organization and does not print
// the admin token; it refuses to start without a payout provider or with
// the sandbox's: run it with -provider manual, or embed the engine with
// your rail's adapter (README "Embed it").
//
// For a load run (see examples/loadgen), -rate and -burst size each
// organization's request rate limit (default 50/s, burst 100), and
// -worker=false leaves the payout worker off so only the accept path is
// measured. -cpuprofile FILE writes a CPU profile of the whole run at
// shutdown, for go tool pprof.
package server
