// Package archtest holds the tests that keep the layering of
// docs/architecture.md true: the pure domain packages do no I/O and know no
// storage, logging or transport, and render, decode and store no JSON (no
// json struct tag, no encoding/json or internal/strictjson import: the
// renderings are internal/render's, the stored forms internal/codec's, a
// body's decoding the transport's); the ledger knows storage only through the
// store port; the root package (the engine) imports no transport, logger or
// adapter; and no exported method of the engine's faces (*Engine,
// *Client, *Operator) takes or returns a request or response body or an
// HTTP status (checked with go/types over everything the method sets
// reach), nor has a face more than 45 methods. The godoc of every package
// but the transports (adapters/httpapi, examples/...) names no HTTP route
// or status, only the engine's error codes and Go calls; and the design
// notes' bookkeeping (their section numbers and decision ids) stays in
// docs/. The root package's non-test files import no JSON package and
// carry no json struct tag: renderings live in internal/render, stored
// records in internal/codec.
package archtest
