package codec

import "github.com/tambalapay/tambala/payouts"

// Failure is the stored form of why a payout, an order or a conversion
// failed: {"code","message"}.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// StorePayoutFailure is the stored form of a payout's failure; nil stays
// nil.
func StorePayoutFailure(f *payouts.Failure) *Failure {
	if f == nil {
		return nil
	}
	return &Failure{Code: string(f.Code), Message: f.Message}
}

// PayoutFailure reads a payout's failure back; nil stays nil.
func (f *Failure) PayoutFailure() *payouts.Failure {
	if f == nil {
		return nil
	}
	return &payouts.Failure{Code: payouts.FailureCode(f.Code), Message: f.Message}
}
