// Package codec holds the binary encodings of the engine's hot records
// that are not API: idempotency outcomes and per-minute payout window
// cells. Every decoder also reads the forms earlier versions wrote (JSON,
// and version 1 of the idempotency outcome), and damaged input is an
// error, never a panic.
package codec
