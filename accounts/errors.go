package accounts

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tambalapay/tambala/errcode"
)

// The causes of this package's errors. Every error the package returns is
// an *errcode.Error with a code of errcode.Table and a fixed public message
// (PublicMessage, what a page shows); its cause (Unwrap) is one of these.
// So a caller branches either on the code, errors.Is(err,
// errcode.New(errcode.Unauthorized)), or on the rule, errors.Is(err,
// accounts.ErrCodeReplayed). A cause is for the caller's branches and its
// audit log, never for the person signing in.
var (
	// ErrInvalidEmail: not a plausible email address (validation_error).
	ErrInvalidEmail = errors.New("accounts: invalid email address")
	// ErrInvalidRole: an unknown role, or a role without the organization
	// it needs (validation_error).
	ErrInvalidRole = errors.New("accounts: invalid role")
	// ErrInvalidID: a user or invitation without its id (validation_error).
	ErrInvalidID = errors.New("accounts: missing id")

	// ErrPasswordTooShort: fewer than MinPasswordLength code points
	// (validation_error).
	ErrPasswordTooShort = errors.New("accounts: password too short")
	// ErrPasswordTooLong: more than MaxPasswordLength code points
	// (validation_error).
	ErrPasswordTooLong = errors.New("accounts: password too long")
	// ErrPasswordIsEmail: the password is the user's email address or its
	// local part (validation_error).
	ErrPasswordIsEmail = errors.New("accounts: password is the email address")
	// ErrPasswordCharacters: not valid UTF-8, or a control character
	// (validation_error).
	ErrPasswordCharacters = errors.New("accounts: password has invalid characters")

	// ErrInvalidCredentials: an unknown email, a wrong password or a
	// disabled account at sign-in, deliberately one cause for all three
	// (unauthorized, "The email or password is incorrect.").
	ErrInvalidCredentials = errors.New("accounts: invalid credentials")
	// ErrWrongPassword: the current password given to change it is wrong
	// (unauthorized).
	ErrWrongPassword = errors.New("accounts: wrong current password")
	// ErrThrottled: too many failed sign-ins from the account or the
	// address (rate_limited, "Too many sign-in attempts; try again in N
	// minutes.").
	ErrThrottled = errors.New("accounts: sign-in throttled")
	// ErrBusy: too many password checks are running or waiting, in all or
	// for the attempt's address or account; refused before any hashing
	// (rate_limited, "Too many sign-in attempts at once; try again in a
	// moment.").
	ErrBusy = errors.New("accounts: too many password checks at once")

	// ErrInvitationUnknown: a malformed token, or one that is not this
	// invitation's (unauthorized).
	ErrInvitationUnknown = errors.New("accounts: unknown invitation")
	// ErrInvitationUsed: the invitation was already accepted
	// (unauthorized; revoking it is conflict).
	ErrInvitationUsed = errors.New("accounts: invitation already accepted")
	// ErrInvitationExpired: the invitation's time ran out (unauthorized).
	ErrInvitationExpired = errors.New("accounts: invitation expired")
	// ErrInvitationRevoked: the operator revoked the invitation
	// (unauthorized).
	ErrInvitationRevoked = errors.New("accounts: invitation revoked")
	// ErrInvalidTTL: an invitation lifetime outside its bounds
	// (validation_error).
	ErrInvalidTTL = errors.New("accounts: invalid invitation lifetime")

	// ErrInvalidCode: a wrong, malformed or used TOTP or recovery code
	// (unauthorized, "The authentication code is incorrect.").
	ErrInvalidCode = errors.New("accounts: invalid authentication code")
	// ErrCodeReplayed: a right TOTP code for a step at or before the last
	// one accepted. It wraps ErrInvalidCode and shows the same message; the
	// cause lets the caller log the replay.
	ErrCodeReplayed = fmt.Errorf("%w: code already used", ErrInvalidCode)
	// ErrInvalidIssuer: an empty TOTP issuer or one with a colon
	// (validation_error).
	ErrInvalidIssuer = errors.New("accounts: invalid TOTP issuer")
	// ErrTOTPEnrolled: TOTP is already enrolled; reset it first (conflict).
	ErrTOTPEnrolled = errors.New("accounts: TOTP already enrolled")
	// ErrTOTPNotEnrolled: TOTP is not enrolled (conflict).
	ErrTOTPNotEnrolled = errors.New("accounts: TOTP not enrolled")
	// ErrNoPendingTOTP: a confirmation without an enrolment begun
	// (conflict).
	ErrNoPendingTOTP = errors.New("accounts: no TOTP enrolment begun")
	// ErrTOTPRequired: the organization requires TOTP and the user has
	// none, or the session is at StageEnrolTOTP: enrolment comes before
	// anything else (forbidden).
	ErrTOTPRequired = errors.New("accounts: TOTP enrolment required")
	// ErrSecondFactorRequired: the session is waiting for a TOTP or
	// recovery code (unauthorized).
	ErrSecondFactorRequired = errors.New("accounts: second factor required")

	// ErrSessionUnknown: a malformed session token, or a session that is
	// not the token's (unauthorized).
	ErrSessionUnknown = errors.New("accounts: unknown session")
	// ErrSessionExpired: the session passed its idle or absolute limit
	// (unauthorized).
	ErrSessionExpired = errors.New("accounts: session expired")
	// ErrSessionEnded: the session was logged out, revoked or rotated
	// (unauthorized).
	ErrSessionEnded = errors.New("accounts: session ended")
	// ErrUserDisabled: the session's user is disabled (unauthorized).
	ErrUserDisabled = errors.New("accounts: user disabled")
	// ErrInvalidStage: a session stage this package does not know
	// (validation_error).
	ErrInvalidStage = errors.New("accounts: invalid session stage")
	// ErrCSRF: a missing or wrong CSRF token (forbidden).
	ErrCSRF = errors.New("accounts: CSRF token mismatch")

	// ErrRandom: the random source failed or ran short (internal_error).
	ErrRandom = errors.New("accounts: random source failed")
	// ErrInvalidParams: argon2id parameters out of bounds (internal_error:
	// a configuration fault, not the person's).
	ErrInvalidParams = errors.New("accounts: invalid password hashing parameters")
	// ErrMalformedHash: a stored password hash that does not parse
	// (internal_error).
	ErrMalformedHash = errors.New("accounts: malformed password hash")
)

// The public messages that several errors share.
const (
	msgInvalidCredentials = "The email or password is incorrect."
	msgInvalidCode        = "The authentication code is incorrect."
	msgSessionEnded       = "Your session has ended; sign in again."
	msgInvalidEmail       = "The email address is not valid."
)

func coded(c errcode.Code, msg string, cause error) *errcode.Error {
	return &errcode.Error{Code: c, Message: msg, Err: cause}
}

func invalidCredentials() error {
	return coded(errcode.Unauthorized, msgInvalidCredentials, ErrInvalidCredentials)
}

// InvalidCredentials is the error of a refused sign-in, the one
// Authenticate returns (unauthorized, ErrInvalidCredentials): for a store
// that refuses an attempt without a verification of its own, when the
// user record changed after the password was verified against it.
func InvalidCredentials() error { return invalidCredentials() }

// WrongPassword is the error of a refused password change, the one
// User.ChangePassword returns for a wrong current password (unauthorized,
// ErrWrongPassword): for a store that refuses a change without a
// verification of its own, when the password hash changed after the
// current password was verified against it.
func WrongPassword() error {
	return coded(errcode.Unauthorized, "The current password is incorrect.", ErrWrongPassword)
}

func invalidCode(cause error) error { return coded(errcode.Unauthorized, msgInvalidCode, cause) }

func sessionError(cause error) error { return coded(errcode.Unauthorized, msgSessionEnded, cause) }

func internal(cause error) error { return errcode.Wrap(errcode.InternalError, cause) }

// Throttled is the error of a refused sign-in attempt that may be tried
// again after wait: rate_limited, "Too many sign-in attempts; try again in
// N minutes." with N the wait in whole minutes, rounded up, at least 1
// minute. The message is the same whether or not the account exists.
func Throttled(wait time.Duration) error {
	n := int64((wait + time.Minute - 1) / time.Minute)
	if n < 1 {
		n = 1
	}
	unit := "minutes"
	if n == 1 {
		unit = "minute"
	}
	return coded(errcode.RateLimited,
		fmt.Sprintf("Too many sign-in attempts; try again in %d %s.", n, unit), ErrThrottled)
}

// Busy is the error of an attempt refused because too many password
// checks are under way (ErrBusy): nothing was hashed, and the attempt is
// no failure of the account or the address.
func Busy() error {
	return coded(errcode.RateLimited, "Too many sign-in attempts at once; try again in a moment.", ErrBusy)
}

func readRandom(random io.Reader, n int) ([]byte, error) {
	if random == nil {
		return nil, internal(ErrRandom)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(random, b); err != nil {
		return nil, internal(fmt.Errorf("%w: %w", ErrRandom, err))
	}
	return b, nil
}
