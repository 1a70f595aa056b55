// Package codec holds the engine's stored records. The JSON records are
// types with their tags (OrgRecord, PayoutRecord, DeliveryRecord, ...),
// which the engine converts its own types to and from and stores through
// internal/records; their encoding is the bytes stores already hold. The
// hot records that are not API have binary encodings: idempotency
// outcomes and per-minute payout window cells, whose decoders also read
// the forms earlier versions wrote (JSON, and version 1 of the idempotency
// outcome); damaged input is an error, never a panic.
package codec
