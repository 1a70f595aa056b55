// Package wire declares, once, the JSON shapes of the admin API that a Go
// client reads and sends: the request bodies the binding decodes and the
// answers it writes. The operator's command (cmd/tambala) decodes the
// admin API's answers into these types and encodes its requests from them.
//
// The renderings of people (users, invitations, portal settings, the
// audit trail) are encoded through these types by internal/render, so
// their shape is declared here only. The other answers are written by
// hand-written appenders (internal/render), byte for byte; the response
// types here are a client's reading of those bytes, and this package's
// tests pin each of them to the binding's real output (strict decoding,
// then a semantic comparison of the re-encoded value), so a field cannot
// drift.
//
// Amounts, rates and times stay the API's text: a client prints them as
// the server wrote them.
package wire
