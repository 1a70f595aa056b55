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

// Spec is a code's row in the table.
type Spec struct {
	Code       Code
	HTTPStatus int
	Message    string
}

// Table lists every code, in the reference's order.
var Table = []Spec{
	{ValidationError, 400, "The request is malformed."},
	{Unauthorized, 401, "Missing, malformed, revoked or unknown API key."},
	{InsufficientFunds, 402, "The available balance does not cover this amount."},
	{Forbidden, 403, "This request is not allowed."},
	{OnboardingIncomplete, 403, "Multi-asset access is not set up for this organization yet."},
	{AccessSuspended, 403, "Multi-asset access is paused for this organization."},
	{CorridorNotEnabled, 403, "This asset or operation is not enabled for this organization."},
	{SandboxOnly, 403, "This endpoint is available only in the sandbox."},
	{NotFound, 404, "No such resource."},
	{MethodNotAllowed, 405, "This method is not allowed on this path."},
	{Conflict, 409, "The Idempotency-Key was used with a different body, or the original request is still in progress."},
	{QuoteUsed, 409, "The quote was already executed."},
	{ClientRefUsed, 409, "The client_ref is already used by another order."},
	{ProofNotExpected, 409, "The order is not waiting for a funding proof."},
	{PayloadTooLarge, 413, "The request body is too large."},
	{UnsupportedMediaType, 415, "This content type is not accepted."},
	{UnsupportedPair, 422, "A pair must be one corridor currency and one stablecoin."},
	{UnsupportedAsset, 422, "This asset is not supported."},
	{UnsupportedNetwork, 422, "This network is not supported."},
	{InvalidWalletAddress, 422, "The wallet address is not valid for the network."},
	{AmountBelowMinimum, 422, "The amount is below the minimum."},
	{LimitExceeded, 422, "The amount is above the maximum."},
	{QuoteExpired, 422, "The quote has expired."},
	{BeneficiaryRequired, 422, "A to-bank order needs a beneficiary."},
	{BeneficiaryNotAllowed, 422, "A from-bank order must not have a beneficiary."},
	{UnknownBank, 422, "No payable bank has this bank_uuid."},
	{UnknownOperator, 422, "No payable operator has this operator_ref_id."},
	{UnknownInstitution, 422, "No payable institution has this institution_id on this rail."},
	{InvalidMobileNumber, 422, "The mobile number is not valid."},
	{MobileNumberInstitutionMismatch, 422, "The mobile number belongs to another institution."},
	{InvalidAccountNumber, 422, "The account number is not valid for this bank."},
	{AmountLimitExceeded, 422, "The amount is above the per-payout maximum."},
	{RateLimited, 429, "Too many requests."},
	{OrgLimitExceeded, 429, "The organization's payout limit was reached."},
	{InternalError, 500, "Internal error. Retry with the same Idempotency-Key."},
	{RailDisabled, 503, "This rail is paused."},
	{RateUnavailable, 503, "No fresh rate is available."},
	{ServiceUnavailable, 503, "The service is temporarily unavailable."},
	{ServiceIncident, 503, "The API is paused because of an incident."},
	{ServiceMaintenance, 503, "The API is paused for maintenance."},
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
