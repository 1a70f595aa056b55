// Command server is the tambala server: the same program as
// `tambala serve` (cmd/tambala), kept so that older instructions work.
// Every flag and variable is the same; see internal/server's package doc
// and README "Configuration".
//
//	go run ./examples/server
//	go run ./cmd/tambala serve   # the same
package main
