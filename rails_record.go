package tambala

import (
	"github.com/tambalapay/tambala/internal/cache"
	"github.com/tambalapay/tambala/internal/codec"
)

// The rail switches are stored as codec.RailsRecord, field for field:
// Rails converts to it and back.

// decodeRails decodes the stored switches.
func decodeRails(raw []byte) (Rails, error) {
	r, err := cache.DecodeJSON[codec.RailsRecord](raw)
	return Rails(r), err
}
