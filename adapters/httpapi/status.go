package httpapi

import "github.com/tambalapay/tambala/errcode"

// statuses is the HTTP status of every error code, in errcode.Table's
// order (the reference's).
var statuses = map[errcode.Code]int{
	errcode.ValidationError:                 400,
	errcode.Unauthorized:                    401,
	errcode.InsufficientFunds:               402,
	errcode.Forbidden:                       403,
	errcode.OnboardingIncomplete:            403,
	errcode.AccessSuspended:                 403,
	errcode.CorridorNotEnabled:              403,
	errcode.SandboxOnly:                     403,
	errcode.NotFound:                        404,
	errcode.MethodNotAllowed:                405,
	errcode.Conflict:                        409,
	errcode.QuoteUsed:                       409,
	errcode.ClientRefUsed:                   409,
	errcode.ProofNotExpected:                409,
	errcode.PayloadTooLarge:                 413,
	errcode.UnsupportedMediaType:            415,
	errcode.UnsupportedPair:                 422,
	errcode.UnsupportedAsset:                422,
	errcode.UnsupportedNetwork:              422,
	errcode.InvalidWalletAddress:            422,
	errcode.AmountBelowMinimum:              422,
	errcode.LimitExceeded:                   422,
	errcode.QuoteExpired:                    422,
	errcode.BeneficiaryRequired:             422,
	errcode.BeneficiaryNotAllowed:           422,
	errcode.UnknownBank:                     422,
	errcode.UnknownOperator:                 422,
	errcode.UnknownInstitution:              422,
	errcode.InvalidMobileNumber:             422,
	errcode.MobileNumberInstitutionMismatch: 422,
	errcode.InvalidAccountNumber:            422,
	errcode.AmountLimitExceeded:             422,
	errcode.RateLimited:                     429,
	errcode.OrgLimitExceeded:                429,
	errcode.InternalError:                   500,
	errcode.RailDisabled:                    503,
	errcode.RateUnavailable:                 503,
	errcode.ServiceUnavailable:              503,
	errcode.ServiceIncident:                 503,
	errcode.ServiceMaintenance:              503,
}

// Status is the HTTP status an error with code c is answered with; a code
// the table does not know is answered as internal_error (500).
func Status(c errcode.Code) int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return statuses[errcode.InternalError]
}
