// Command server runs the engine's sandbox: the public API and the
// operator's admin API on two loopback listeners, over a bbolt file in a
// data folder.
//
//	go run ./examples/server
//
// On an empty data folder it creates a demo organization with MWK and USDT
// enabled and a funded balance, and prints its API key and the admin token
// once. Later starts reuse the folder (the admin token stays in
// DATA/admin-token, readable only by its owner). SIGINT or SIGTERM shuts it
// down gracefully.
//
// For a load run (see examples/loadgen), -rate and -burst size each
// organization's request rate limit (default 50/s, burst 100), and
// -worker=false leaves the payout worker off so only the accept path is
// measured. -cpuprofile FILE writes a CPU profile of the whole run at
// shutdown, for go tool pprof.
package main
