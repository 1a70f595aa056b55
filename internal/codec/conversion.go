package codec

import (
	"time"

	"github.com/tambalapay/tambala/conversions"
	"github.com/tambalapay/tambala/internal/jsonw"
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

// AppendJSON appends r as encoding/json's Marshal writes it, byte for
// byte (TestConversionRecordAppendJSONMatchesEncodingJSON), and its error
// for a time that has no JSON form; storage.Encode and PutJSON use it. A
// conversion's create writes its record twice (stored, and as its
// idempotent outcome), and reflection was a twelfth of the create.
func (r ConversionRecord) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = jsonw.String(b, r.ID)
	b = append(b, `,"org":`...)
	b = jsonw.String(b, r.Org)
	b = append(b, `,"from_asset":`...)
	b = jsonw.String(b, r.FromAsset)
	b = append(b, `,"from_amount":`...)
	b = jsonw.String(b, r.FromAmount)
	b = append(b, `,"to_asset":`...)
	b = jsonw.String(b, r.ToAsset)
	b = append(b, `,"to_amount":`...)
	b = jsonw.String(b, r.ToAmount)
	b = append(b, `,"rate":`...)
	b = jsonw.String(b, r.Rate)
	b = append(b, `,"status":`...)
	b = jsonw.String(b, string(r.Status))
	if r.Failure != nil {
		b = r.Failure.appendJSON(append(b, `,"failure":`...))
	}
	b = append(b, `,"created_at":`...)
	if b, err = jsonw.Time(b, r.CreatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"updated_at":`...)
	if b, err = jsonw.Time(b, r.UpdatedAt); err != nil {
		return nil, err
	}
	if r.DueAt != nil {
		b = append(b, `,"due_at":`...)
		if b, err = jsonw.Time(b, *r.DueAt); err != nil {
			return nil, err
		}
	}
	if r.Submitted {
		b = append(b, `,"submitted":true`...)
	}
	if r.Attempts != 0 {
		b = append(b, `,"attempts":`...)
		b = jsonw.Int(b, int64(r.Attempts))
	}
	return append(b, '}'), nil
}
