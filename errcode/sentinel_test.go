package errcode_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/errcode"
)

// sentinels is every sentinel by the code it stands for.
var sentinels = map[errcode.Code]error{
	errcode.ValidationError:                 errcode.ErrValidationError,
	errcode.Unauthorized:                    errcode.ErrUnauthorized,
	errcode.InsufficientFunds:               errcode.ErrInsufficientFunds,
	errcode.Forbidden:                       errcode.ErrForbidden,
	errcode.OnboardingIncomplete:            errcode.ErrOnboardingIncomplete,
	errcode.AccessSuspended:                 errcode.ErrAccessSuspended,
	errcode.CorridorNotEnabled:              errcode.ErrCorridorNotEnabled,
	errcode.SandboxOnly:                     errcode.ErrSandboxOnly,
	errcode.NotFound:                        errcode.ErrNotFound,
	errcode.MethodNotAllowed:                errcode.ErrMethodNotAllowed,
	errcode.Conflict:                        errcode.ErrConflict,
	errcode.QuoteUsed:                       errcode.ErrQuoteUsed,
	errcode.ClientRefUsed:                   errcode.ErrClientRefUsed,
	errcode.ProofNotExpected:                errcode.ErrProofNotExpected,
	errcode.PayloadTooLarge:                 errcode.ErrPayloadTooLarge,
	errcode.UnsupportedMediaType:            errcode.ErrUnsupportedMediaType,
	errcode.UnsupportedPair:                 errcode.ErrUnsupportedPair,
	errcode.UnsupportedAsset:                errcode.ErrUnsupportedAsset,
	errcode.UnsupportedNetwork:              errcode.ErrUnsupportedNetwork,
	errcode.InvalidWalletAddress:            errcode.ErrInvalidWalletAddress,
	errcode.AmountBelowMinimum:              errcode.ErrAmountBelowMinimum,
	errcode.LimitExceeded:                   errcode.ErrLimitExceeded,
	errcode.QuoteExpired:                    errcode.ErrQuoteExpired,
	errcode.BeneficiaryRequired:             errcode.ErrBeneficiaryRequired,
	errcode.BeneficiaryNotAllowed:           errcode.ErrBeneficiaryNotAllowed,
	errcode.UnknownBank:                     errcode.ErrUnknownBank,
	errcode.UnknownOperator:                 errcode.ErrUnknownOperator,
	errcode.UnknownInstitution:              errcode.ErrUnknownInstitution,
	errcode.InvalidMobileNumber:             errcode.ErrInvalidMobileNumber,
	errcode.MobileNumberInstitutionMismatch: errcode.ErrMobileNumberInstitutionMismatch,
	errcode.InvalidAccountNumber:            errcode.ErrInvalidAccountNumber,
	errcode.AmountLimitExceeded:             errcode.ErrAmountLimitExceeded,
	errcode.RateLimited:                     errcode.ErrRateLimited,
	errcode.OrgLimitExceeded:                errcode.ErrOrgLimitExceeded,
	errcode.InternalError:                   errcode.ErrInternalError,
	errcode.RailDisabled:                    errcode.ErrRailDisabled,
	errcode.RateUnavailable:                 errcode.ErrRateUnavailable,
	errcode.ServiceUnavailable:              errcode.ErrServiceUnavailable,
	errcode.ServiceIncident:                 errcode.ErrServiceIncident,
	errcode.ServiceMaintenance:              errcode.ErrServiceMaintenance,
}

// TestSentinels pins one sentinel per code of the table, each matched by
// errors.Is against any error of its code, however it is made and
// wrapped, and by no error of another code; its text is its code's.
func TestSentinels(t *testing.T) {
	assert.Len(t, sentinels, len(errcode.Table), "one sentinel per code")
	cause := errors.New("detail kept for logs")
	for _, spec := range errcode.Table {
		c := spec.Code
		sentinel, ok := sentinels[c]
		if !assert.True(t, ok, "no sentinel for %s", c) {
			continue
		}
		assert.Equal(t, errcode.New(c).Error(), sentinel.Error(), c)
		assert.Equal(t, c, errcode.Of(sentinel))
		for how, err := range map[string]error{
			"New":     errcode.New(c),
			"Newf":    fmt.Errorf("use case: %w", errcode.Newf(c, "specific %d", 1)),
			"Wrap":    errcode.Wrap(c, cause),
			"cause":   fmt.Errorf("a: %w", &errcode.Error{Code: c, Message: "m", Err: cause}),
			"joined":  errors.Join(errors.New("uncoded"), errcode.Newf(c, "m")),
			"itself":  sentinel,
			"wrapped": fmt.Errorf("b: %w", sentinel),
		} {
			assert.ErrorIs(t, err, sentinel, "%s/%s", c, how)
			for other, s := range sentinels {
				if other != c {
					assert.NotErrorIs(t, err, s, "%s/%s matches %s", c, how, other)
				}
			}
		}
		assert.NotErrorIs(t, errors.New(string(c)), sentinel, "an uncoded error never matches")
	}
}
