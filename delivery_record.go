package tambala

import (
	"github.com/tambalapay/tambala/internal/codec"
)

// deliveryRecord is an outbox row, as stored.
type deliveryRecord = codec.DeliveryRecord

// An attempt is stored as codec.AttemptRecord, field for field: Attempt
// converts to it and back.
