package orgs

import (
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// checkMWK checks that a set amount is of MWK, zero or more, and within
// the integer digits the wire allows (so that its stored text reads back);
// what names it in the message.
func checkMWK(what string, a money.Amount) error {
	if !a.IsSet() {
		return nil
	}
	if a.Asset() != money.MWK || a.Sign() < 0 || a.Exceeds(money.MaxIntegerDigits) {
		return errcode.Newf(errcode.ValidationError, "%s must be an MWK amount of zero or more", what)
	}
	return nil
}

// CheckFloor checks a balance floor: unset, or an MWK amount of zero or
// more (validation_error).
func CheckFloor(floor money.Amount) error { return checkMWK("the balance floor", floor) }

// PayoutLimits are an organization's business limits on /v1 payouts,
// measured on the amount alone. A field left at its zero value is unset
// and the default applies (PayoutLimitsInForce).
type PayoutLimits struct {
	MaxPerPayoutMWK money.Amount // amount_limit_exceeded above it
	DailyVolumeMWK  money.Amount // rolling 24 hours; org_limit_exceeded
	HourlyCount     int          // rolling hour; org_limit_exceeded
}

// DefaultPayoutLimits apply to an organization with none set.
func DefaultPayoutLimits() PayoutLimits {
	return PayoutLimits{
		MaxPerPayoutMWK: money.FromInt(money.MWK, 5_000_000),
		DailyVolumeMWK:  money.FromInt(money.MWK, 50_000_000),
		HourlyCount:     1000,
	}
}

// Check checks the limits: each amount unset or an MWK amount of zero or
// more, and the hourly count not negative (validation_error).
func (l PayoutLimits) Check() error {
	if err := checkMWK("max_per_payout_mwk", l.MaxPerPayoutMWK); err != nil {
		return err
	}
	if err := checkMWK("daily_volume_mwk", l.DailyVolumeMWK); err != nil {
		return err
	}
	if l.HourlyCount < 0 {
		return errcode.Newf(errcode.ValidationError, "hourly_count must not be negative")
	}
	return nil
}

// PayoutLimitsInForce returns the limits the organization's /v1 payouts
// are held to: DefaultPayoutLimits, with each amount the organization set
// and a positive hourly count in place of the default's.
func (o *Organization) PayoutLimitsInForce() PayoutLimits {
	l := DefaultPayoutLimits()
	if o.PayoutLimits != nil {
		if o.PayoutLimits.MaxPerPayoutMWK.IsSet() {
			l.MaxPerPayoutMWK = o.PayoutLimits.MaxPerPayoutMWK
		}
		if o.PayoutLimits.DailyVolumeMWK.IsSet() {
			l.DailyVolumeMWK = o.PayoutLimits.DailyVolumeMWK
		}
		if o.PayoutLimits.HourlyCount > 0 {
			l.HourlyCount = o.PayoutLimits.HourlyCount
		}
	}
	return l
}
