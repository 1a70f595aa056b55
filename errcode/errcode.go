package errcode

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-branchable error code.
type Code string

// The rejection codes.
const (
	ValidationError                 Code = "validation_error"
	Unauthorized                    Code = "unauthorized"
	InsufficientFunds               Code = "insufficient_funds"
	Forbidden                       Code = "forbidden"
	OnboardingIncomplete            Code = "onboarding_incomplete"
	AccessSuspended                 Code = "access_suspended"
	CorridorNotEnabled              Code = "corridor_not_enabled"
	SandboxOnly                     Code = "sandbox_only"
	NotFound                        Code = "not_found"
	MethodNotAllowed                Code = "method_not_allowed"
	Conflict                        Code = "conflict"
	QuoteUsed                       Code = "quote_used"
	ClientRefUsed                   Code = "client_ref_used"
	ProofNotExpected                Code = "proof_not_expected"
	PayloadTooLarge                 Code = "payload_too_large"
	UnsupportedMediaType            Code = "unsupported_media_type"
	UnsupportedPair                 Code = "unsupported_pair"
	UnsupportedAsset                Code = "unsupported_asset"
	UnsupportedNetwork              Code = "unsupported_network"
	InvalidWalletAddress            Code = "invalid_wallet_address"
	AmountBelowMinimum              Code = "amount_below_minimum"
	LimitExceeded                   Code = "limit_exceeded"
	QuoteExpired                    Code = "quote_expired"
	BeneficiaryRequired             Code = "beneficiary_required"
	BeneficiaryNotAllowed           Code = "beneficiary_not_allowed"
	UnknownBank                     Code = "unknown_bank"
	UnknownOperator                 Code = "unknown_operator"
	UnknownInstitution              Code = "unknown_institution"
	InvalidMobileNumber             Code = "invalid_mobile_number"
	MobileNumberInstitutionMismatch Code = "mobile_number_institution_mismatch"
	InvalidAccountNumber            Code = "invalid_account_number"
	AmountLimitExceeded             Code = "amount_limit_exceeded"
	RateLimited                     Code = "rate_limited"
	OrgLimitExceeded                Code = "org_limit_exceeded"
	InternalError                   Code = "internal_error"
	RailDisabled                    Code = "rail_disabled"
	RateUnavailable                 Code = "rate_unavailable"
	ServiceUnavailable              Code = "service_unavailable"
	ServiceIncident                 Code = "service_incident"
	ServiceMaintenance              Code = "service_maintenance"
)

// The sentinels, one per code: ErrX matches, with errors.Is, every error
// whose code is X, however it is made (New, Newf, Wrap, a domain cause)
// and wrapped, as errors.Is(err, New(X)) does (Error.Is). Each is New(X):
// its text is the code and the default message. Never assign to them.
var (
	ErrValidationError                 error = New(ValidationError)
	ErrUnauthorized                    error = New(Unauthorized)
	ErrInsufficientFunds               error = New(InsufficientFunds)
	ErrForbidden                       error = New(Forbidden)
	ErrOnboardingIncomplete            error = New(OnboardingIncomplete)
	ErrAccessSuspended                 error = New(AccessSuspended)
	ErrCorridorNotEnabled              error = New(CorridorNotEnabled)
	ErrSandboxOnly                     error = New(SandboxOnly)
	ErrNotFound                        error = New(NotFound)
	ErrMethodNotAllowed                error = New(MethodNotAllowed)
	ErrConflict                        error = New(Conflict)
	ErrQuoteUsed                       error = New(QuoteUsed)
	ErrClientRefUsed                   error = New(ClientRefUsed)
	ErrProofNotExpected                error = New(ProofNotExpected)
	ErrPayloadTooLarge                 error = New(PayloadTooLarge)
	ErrUnsupportedMediaType            error = New(UnsupportedMediaType)
	ErrUnsupportedPair                 error = New(UnsupportedPair)
	ErrUnsupportedAsset                error = New(UnsupportedAsset)
	ErrUnsupportedNetwork              error = New(UnsupportedNetwork)
	ErrInvalidWalletAddress            error = New(InvalidWalletAddress)
	ErrAmountBelowMinimum              error = New(AmountBelowMinimum)
	ErrLimitExceeded                   error = New(LimitExceeded)
	ErrQuoteExpired                    error = New(QuoteExpired)
	ErrBeneficiaryRequired             error = New(BeneficiaryRequired)
	ErrBeneficiaryNotAllowed           error = New(BeneficiaryNotAllowed)
	ErrUnknownBank                     error = New(UnknownBank)
	ErrUnknownOperator                 error = New(UnknownOperator)
	ErrUnknownInstitution              error = New(UnknownInstitution)
	ErrInvalidMobileNumber             error = New(InvalidMobileNumber)
	ErrMobileNumberInstitutionMismatch error = New(MobileNumberInstitutionMismatch)
	ErrInvalidAccountNumber            error = New(InvalidAccountNumber)
	ErrAmountLimitExceeded             error = New(AmountLimitExceeded)
	ErrRateLimited                     error = New(RateLimited)
	ErrOrgLimitExceeded                error = New(OrgLimitExceeded)
	ErrInternalError                   error = New(InternalError)
	ErrRailDisabled                    error = New(RailDisabled)
	ErrRateUnavailable                 error = New(RateUnavailable)
	ErrServiceUnavailable              error = New(ServiceUnavailable)
	ErrServiceIncident                 error = New(ServiceIncident)
	ErrServiceMaintenance              error = New(ServiceMaintenance)
)

// Spec is a code's row in the table: the code and its default message.
// The HTTP binding keeps the status each code is sent with
// (adapters/httpapi.Status).
type Spec struct {
	Code    Code
	Message string
}

// Table lists every code, in the reference's order.
var Table = []Spec{
	{ValidationError, "The request is malformed."},
	{Unauthorized, "Missing, malformed, revoked or unknown API key."},
	{InsufficientFunds, "The available balance does not cover this amount."},
	{Forbidden, "This request is not allowed."},
	{OnboardingIncomplete, "Multi-asset access is not set up for this organization yet."},
	{AccessSuspended, "Multi-asset access is paused for this organization."},
	{CorridorNotEnabled, "This asset or operation is not enabled for this organization."},
	{SandboxOnly, "This endpoint is available only in the sandbox."},
	{NotFound, "No such resource."},
	{MethodNotAllowed, "This method is not allowed on this path."},
	{Conflict, "The Idempotency-Key was used with a different body, or the original request is still in progress."},
	{QuoteUsed, "The quote was already executed."},
	{ClientRefUsed, "The client_ref is already used by another order."},
	{ProofNotExpected, "The order is not waiting for a funding proof."},
	{PayloadTooLarge, "The request body is too large."},
	{UnsupportedMediaType, "This content type is not accepted."},
	{UnsupportedPair, "A pair must be one corridor currency and one stablecoin."},
	{UnsupportedAsset, "This asset is not supported."},
	{UnsupportedNetwork, "This network is not supported."},
	{InvalidWalletAddress, "The wallet address is not valid for the network."},
	{AmountBelowMinimum, "The amount is below the minimum."},
	{LimitExceeded, "The amount is above the maximum."},
	{QuoteExpired, "The quote has expired."},
	{BeneficiaryRequired, "A to-bank order needs a beneficiary."},
	{BeneficiaryNotAllowed, "A from-bank order must not have a beneficiary."},
	{UnknownBank, "No payable bank has this bank_uuid."},
	{UnknownOperator, "No payable operator has this operator_ref_id."},
	{UnknownInstitution, "No payable institution has this institution_id on this rail."},
	{InvalidMobileNumber, "The mobile number is not valid."},
	{MobileNumberInstitutionMismatch, "The mobile number belongs to another institution."},
	{InvalidAccountNumber, "The account number is not valid for this bank."},
	{AmountLimitExceeded, "The amount is above the per-payout maximum."},
	{RateLimited, "Too many requests."},
	{OrgLimitExceeded, "The organization's payout limit was reached."},
	{InternalError, "Internal error. Retry with the same Idempotency-Key."},
	{RailDisabled, "This rail is paused."},
	{RateUnavailable, "No fresh rate is available."},
	{ServiceUnavailable, "The service is temporarily unavailable."},
	{ServiceIncident, "The API is paused because of an incident."},
	{ServiceMaintenance, "The API is paused for maintenance."},
}

var byCode = func() map[Code]Spec {
	m := make(map[Code]Spec, len(Table))
	for _, s := range Table {
		if _, dup := m[s.Code]; dup {
			panic("errcode: duplicate code " + string(s.Code))
		}
		m[s.Code] = s
	}
	return m
}()

// Lookup returns the table row of c; unknown codes read as internal_error.
func Lookup(c Code) Spec {
	if s, ok := byCode[c]; ok {
		return s
	}
	return byCode[InternalError]
}

// Known reports whether c is in the table.
func Known(c Code) bool { _, ok := byCode[c]; return ok }

// Error is an error with a stable code. Message, when empty, is the code's
// default message. Err is an optional cause kept for logs, never shown to
// API callers.
type Error struct {
	Code    Code
	Message string
	Err     error
}

// New returns an error with code c and its default message.
func New(c Code) *Error { return &Error{Code: c} }

// Newf returns an error with code c and a specific message.
func Newf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code c, the default message, and cause err.
func Wrap(c Code, err error) *Error { return &Error{Code: c, Err: err} }

func (e *Error) Error() string {
	msg := e.PublicMessage()
	if e.Err != nil {
		return string(e.Code) + ": " + msg + ": " + e.Err.Error()
	}
	return string(e.Code) + ": " + msg
}

// PublicMessage is the message shown to API callers.
func (e *Error) PublicMessage() string {
	if e.Message != "" {
		return e.Message
	}
	return Lookup(e.Code).Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, errcode.New(c)) match any error with code c.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == "" && t.Err == nil
}

// Of returns the code of err: that of the first *Error in its chain, or
// internal_error when there is none. For every code c in Table,
// errors.Is(err, New(c)), errors.As(err, &e) with e.Code == c and
// Of(err) == c agree, because every coded error is an *Error.
func Of(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return InternalError
}

// Message returns the public message of err: that of the *Error Of takes
// the code from when its code is in the table, else the default of its
// code. Messages of uncoded errors are never exposed.
func Message(err error) string {
	var e *Error
	if !errors.As(err, &e) {
		return Lookup(InternalError).Message
	}
	if Known(e.Code) {
		return e.PublicMessage()
	}
	return Lookup(e.Code).Message
}
