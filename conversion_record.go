package tambala

import "github.com/tambalapay/tambala/internal/codec"

// conversionRecord is a conversion as stored, with the worker's
// bookkeeping.
type conversionRecord = codec.ConversionRecord

func toConversionRecord(c Conversion) conversionRecord {
	var f *codec.Failure
	if c.Failure != nil {
		f = &codec.Failure{Code: c.Failure.Code, Message: c.Failure.Message}
	}
	return conversionRecord{ID: c.ID, Org: c.Org, FromAsset: string(c.From.Asset().Code), FromAmount: c.From.String(),
		ToAsset: string(c.To.Asset().Code), ToAmount: c.To.String(), Rate: c.Rate.String(), Status: c.Status,
		Failure: f, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}
