// Package codec holds the engine's stored records. The JSON records are
// types with their tags (OrgRecord, PayoutRecord, DeliveryRecord, ...),
// which the engine converts its own types to and from and stores through
// internal/records; their encoding is the bytes stores already hold. The
// records the domain packages (pure rules) leave to the engine are here
// too: an order's record (EncodeOrder, DecodeOrder), a quote's and a
// corridor's binary records (EncodeQuote, DecodeQuote, EncodeCorridor,
// DecodeCorridor), the stored forms of a payout's failure and of the
// payable institutions, and the reading of a payout back from its
// rendering (PayoutFromRendering, for idempotency outcomes earlier
// versions stored as response bytes). The hot records that are not API
// have binary encodings: idempotency outcomes and per-minute payout window
// cells. Every decoder also reads the forms earlier versions wrote (JSON,
// and version 1 of the idempotency outcome), and damaged input is an
// error, never a panic.
package codec
