// Command tambala is the operator's command for the tambala payments
// engine: the server, its store, and the everyday tasks of the operator
// through a running server's admin API.
//
//	go install github.com/tambalapay/tambala/cmd/tambala@latest
//	tambala serve                      # the sandbox, over ./data
//	tambala org list                   # the token is read from data/admin-token
//	tambala fund ORG 5000.00 MWK -ref wire-1
//	tambala -h                         # every command
//
// The subcommands, each with -h:
//
//   - serve: the server (cmd/tambala/internal/server): the public API and the portal,
//     the admin API and the console, over bbolt, pebble or PostgreSQL.
//   - version: the version and the VCS revision from the build info.
//   - migrate, ledger check, backup, restore: a store no server holds.
//   - org, key, user invite, staff invite, fund, approvals, corridor,
//     order, payout, institutions, webhook set, pause: the admin API of a
//     running server (-admin-url, TAMBALA_ADMIN_URL; the token from
//     -admin-token, TAMBALA_ADMIN_TOKEN or DATA/admin-token). Tables for
//     people, -json for scripts (the API's own answer).
//
// Exit status: 0 done or -h, 1 the command failed (the reason on
// stderr), 2 a wrong command line. The standard library's flag package
// parses every subcommand (docs/decisions.md, "The operator's command").
package main
