package tambala

import (
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
)

// deliveryRecord is an outbox row, as stored.
type deliveryRecord = codec.DeliveryRecord

// An attempt is stored as codec.AttemptRecord, field for field: Attempt
// converts to it and back.

// decodeAttempt decodes a stored attempt.
func decodeAttempt(raw []byte) (Attempt, error) {
	r, err := cache.DecodeJSON[codec.AttemptRecord](raw)
	return Attempt(r), err
}
