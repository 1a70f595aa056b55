// Package codec holds the encodings of the engine's stored records that
// are not API, and that the domain packages (pure rules) leave to the
// engine: the binary idempotency outcomes and per-minute payout window
// cells, an order's record (EncodeOrder, DecodeOrder), a quote's and a
// corridor's binary records (EncodeQuote, DecodeQuote, EncodeCorridor,
// DecodeCorridor), the stored forms of a payout's failure and of the
// payable institutions that the engine's own records embed, and the
// reading of a payout back from its rendering (PayoutFromRendering, for
// idempotency outcomes earlier versions stored as response bytes). Every
// decoder also reads the forms earlier versions wrote (JSON, and version 1
// of the idempotency outcome), and damaged input is an error, never a
// panic.
package codec
