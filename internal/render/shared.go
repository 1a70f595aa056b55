package render

import (
	"time"

	"github.com/tambalapay/tambala/payouts"
)

// Time renders t as every timestamp of the wire: UTC, millisecond
// precision (payouts.FormatTime, which the engine's records use too).
func Time(t time.Time) string { return payouts.FormatTime(t) }

// Failure is the rendering of why a payout, an order or a conversion
// failed: {"code","message"}.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// PayoutFailure is the rendering of a payout's failure (of /v1 and /v2
// payouts alike); nil renders as null.
func PayoutFailure(f *payouts.Failure) *Failure {
	if f == nil {
		return nil
	}
	return &Failure{Code: string(f.Code), Message: f.Message}
}
