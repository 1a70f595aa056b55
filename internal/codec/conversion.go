package codec

import (
	"time"

	"github.com/tambalapay/tambala/conversions"
)

// ConversionRecord is a conversion as stored (the engine's Conversion,
// amounts and rate as decimal text), with the worker's bookkeeping: when
// it is next due, whether the converter accepted it (Submitted) and how
// many calls in a row failed; those three are absent when unset, and so is
// the failure until there is one.
type ConversionRecord struct {
	ID         string             `json:"id"`
	Org        string             `json:"org"`
	FromAsset  string             `json:"from_asset"`
	FromAmount string             `json:"from_amount"`
	ToAsset    string             `json:"to_asset"`
	ToAmount   string             `json:"to_amount"`
	Rate       string             `json:"rate"`
	Status     conversions.Status `json:"status"`
	Failure    *Failure           `json:"failure,omitempty"`
	CreatedAt  time.Time          `json:"created_at"`
	UpdatedAt  time.Time          `json:"updated_at"`
	DueAt      *time.Time         `json:"due_at,omitempty"`
	Submitted  bool               `json:"submitted,omitempty"`
	Attempts   int                `json:"attempts,omitempty"`
}
