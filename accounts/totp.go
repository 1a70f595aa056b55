package accounts

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
	"github.com/pquerna/otp/totp"

	"github.com/tambalapay/tambala/errcode"
)

// The TOTP profile (RFC 6238) every authenticator app reads: HMAC-SHA1, 6
// digits, a 30-second step, a 160-bit secret; a code is accepted one step
// either side of now, to allow for clocks a little apart.
const (
	TOTPPeriod      = 30 * time.Second
	TOTPDigits      = 6
	TOTPSkew        = 1
	TOTPSecretBytes = 20
)

// RecoveryCodeCount is how many recovery codes a set holds.
const RecoveryCodeCount = 10

// recoveryCodeBytes is the randomness of one recovery code: 80 bits, 16
// characters of base32.
const recoveryCodeBytes = 10

// recoverySaltBytes is the salt each recovery code is hashed with.
const recoverySaltBytes = 16

// recoveryAlphabet is Crockford's base32, lower-cased: no i, l, o or u.
const recoveryAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

var recoveryEncoding = base32.NewEncoding(recoveryAlphabet).WithPadding(base32.NoPadding)

// TOTP is a user's second factor. An enrolment begun (BeginTOTP) stores
// the secret with Enrolled false; a first valid code (ConfirmTOTP) makes it
// enrolled and brings the recovery codes.
type TOTP struct {
	// Secret is the shared secret, in unpadded base32 as the authenticator
	// app has it; empty when no enrolment was begun.
	Secret     string
	Enrolled   bool
	EnrolledAt time.Time
	// LastStep is the step (Unix time over TOTPPeriod) of the last code
	// accepted: a code for it or an earlier step is a replay.
	LastStep int64
	// RecoveryCodes are the hashes of the current set, used ones included.
	RecoveryCodes []RecoveryCode
}

// RecoveryCode is one recovery code as stored: the SHA-256 of its salt
// followed by its normalised text, and when it was used (zero while
// unused). An 80-bit code with a unique 128-bit salt needs no slower hash.
type RecoveryCode struct {
	Salt   [16]byte
	Hash   [32]byte
	UsedAt time.Time
}

// RecoveryCodesLeft is how many recovery codes are still unused.
func (t TOTP) RecoveryCodesLeft() int {
	n := 0
	for _, c := range t.RecoveryCodes {
		if c.UsedAt.IsZero() {
			n++
		}
	}
	return n
}

// Enrolment is what the user's authenticator app is given, once: the
// secret to type in and the otpauth URL its QR code encodes.
type Enrolment struct {
	Secret string
	URL    string
}

// BeginTOTP starts (or starts again) u's TOTP enrolment: a secret of
// TOTPSecretBytes read from random, stored pending, and its otpauth URL
// labelled issuer:email. The enrolment counts only once ConfirmTOTP has
// seen a valid code. conflict (ErrTOTPEnrolled) when u is enrolled
// already; validation_error (ErrInvalidIssuer) for an empty issuer or one
// with a colon; internal_error (ErrRandom) when random fails.
func (u User) BeginTOTP(issuer string, random io.Reader) (User, Enrolment, error) {
	if u.TOTP.Enrolled {
		return u, Enrolment{}, coded(errcode.Conflict, "Two-factor authentication is already set up.", ErrTOTPEnrolled)
	}
	if issuer == "" || strings.Contains(issuer, ":") {
		return u, Enrolment{}, coded(errcode.ValidationError, "The issuer must be set and may not contain a colon.", ErrInvalidIssuer)
	}
	secret, err := readRandom(random, TOTPSecretBytes)
	if err != nil {
		return u, Enrolment{}, err
	}
	key, err := totp.Generate(totp.GenerateOpts{
		Issuer: issuer, AccountName: u.Email, Period: uint(TOTPPeriod / time.Second),
		Secret: secret, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1,
	})
	if err != nil {
		return u, Enrolment{}, internal(err)
	}
	u.TOTP = TOTP{Secret: key.Secret()}
	return u, Enrolment{Secret: key.Secret(), URL: key.URL()}, nil
}

// ConfirmTOTP completes u's enrolment with a valid code from the app
// (checked as VerifyTOTP does) and returns u enrolled, with its first
// RecoveryCodeCount recovery codes, to be shown once. conflict
// (ErrTOTPEnrolled, ErrNoPendingTOTP) when u is enrolled or has begun no
// enrolment; unauthorized (ErrInvalidCode) for a wrong code.
func (u User) ConfirmTOTP(code string, random io.Reader, now time.Time) (User, []string, error) {
	if u.TOTP.Enrolled {
		return u, nil, coded(errcode.Conflict, "Two-factor authentication is already set up.", ErrTOTPEnrolled)
	}
	if u.TOTP.Secret == "" {
		return u, nil, coded(errcode.Conflict, "Two-factor authentication set-up was not started.", ErrNoPendingTOTP)
	}
	step, err := matchTOTP(u.TOTP, code, now)
	if err != nil {
		return u, nil, err
	}
	codes, stored, err := newRecoveryCodes(random)
	if err != nil {
		return u, nil, err
	}
	u.TOTP = TOTP{Secret: u.TOTP.Secret, Enrolled: true, EnrolledAt: now, LastStep: step, RecoveryCodes: stored}
	return u, codes, nil
}

// VerifyTOTP checks a code from u's app at now and returns u with the
// code's step recorded. A code is 6 digits (spaces ignored), valid for the
// step of now or one step either side, and accepted only for a step after
// LastStep, so a code is never used twice. conflict (ErrTOTPNotEnrolled)
// when u is not enrolled; unauthorized (ErrInvalidCode, or ErrCodeReplayed
// for a right code whose step was used) otherwise. Callers count a wrong
// code as a failed sign-in on the account's Throttle.
func (u User) VerifyTOTP(code string, now time.Time) (User, error) {
	if !u.TOTP.Enrolled {
		return u, coded(errcode.Conflict, "Two-factor authentication is not set up.", ErrTOTPNotEnrolled)
	}
	step, err := matchTOTP(u.TOTP, code, now)
	if err != nil {
		return u, err
	}
	u.TOTP.LastStep = step
	return u, nil
}

// TOTPStep is the step of t: its Unix time over TOTPPeriod.
func TOTPStep(t time.Time) int64 {
	s := t.Unix()
	p := int64(TOTPPeriod / time.Second)
	if s < 0 {
		return (s - p + 1) / p
	}
	return s / p
}

// TOTPCode is the code of secret for the step of t, as an authenticator
// app shows it.
func TOTPCode(secret string, t time.Time) (string, error) {
	c, err := hotp.GenerateCodeCustom(secret, uint64(TOTPStep(t)), hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return "", internal(err)
	}
	return c, nil
}

// matchTOTP returns the step, after t.LastStep and within TOTPSkew steps
// of now, whose code is code. Every candidate step is computed and compared
// in constant time.
func matchTOTP(t TOTP, code string, now time.Time) (int64, error) {
	code = strings.ReplaceAll(code, " ", "")
	if len(code) != TOTPDigits || strings.Trim(code, "0123456789") != "" {
		return 0, invalidCode(ErrInvalidCode)
	}
	cur := TOTPStep(now)
	var fresh, replayed bool
	var step int64
	for s := cur - TOTPSkew; s <= cur+TOTPSkew; s++ {
		if s < 0 {
			continue
		}
		want, err := hotp.GenerateCodeCustom(t.Secret, uint64(s), hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			return 0, internal(err)
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) != 1 {
			continue
		}
		switch {
		case s <= t.LastStep:
			replayed = true
		case !fresh:
			fresh, step = true, s
		}
	}
	switch {
	case fresh:
		return step, nil
	case replayed:
		return 0, invalidCode(ErrCodeReplayed)
	}
	return 0, invalidCode(ErrInvalidCode)
}

// NewRecoveryCodes replaces u's recovery codes with a new set of
// RecoveryCodeCount, returned to be shown once; the old set no longer
// works. conflict (ErrTOTPNotEnrolled) when u is not enrolled.
func (u User) NewRecoveryCodes(random io.Reader) (User, []string, error) {
	if !u.TOTP.Enrolled {
		return u, nil, coded(errcode.Conflict, "Two-factor authentication is not set up.", ErrTOTPNotEnrolled)
	}
	codes, stored, err := newRecoveryCodes(random)
	if err != nil {
		return u, nil, err
	}
	u.TOTP.RecoveryCodes = stored
	return u, codes, nil
}

// UseRecoveryCode checks code against u's unused recovery codes and
// returns u with the matching one used at now: each code works once.
// Codes are read as shown, xxxx-xxxx-xxxx-xxxx, ignoring case, hyphens
// and spaces, with o read as 0 and i and l as 1. conflict
// (ErrTOTPNotEnrolled) when u is not enrolled; unauthorized
// (ErrInvalidCode) for a wrong or used code. Callers count a wrong code as
// a failed sign-in on the account's Throttle.
func (u User) UseRecoveryCode(code string, now time.Time) (User, error) {
	if !u.TOTP.Enrolled {
		return u, coded(errcode.Conflict, "Two-factor authentication is not set up.", ErrTOTPNotEnrolled)
	}
	norm, ok := normalizeRecoveryCode(code)
	if !ok {
		return u, invalidCode(ErrInvalidCode)
	}
	found := -1
	for i, c := range u.TOTP.RecoveryCodes {
		h := recoveryHash(c.Salt, norm)
		if subtle.ConstantTimeCompare(h[:], c.Hash[:]) == 1 && c.UsedAt.IsZero() && found < 0 {
			found = i
		}
	}
	if found < 0 {
		return u, invalidCode(ErrInvalidCode)
	}
	u.TOTP.RecoveryCodes = slices.Clone(u.TOTP.RecoveryCodes)
	u.TOTP.RecoveryCodes[found].UsedAt = now
	return u, nil
}

// ResetTOTP returns u without TOTP: no secret, no recovery codes. An
// administrator's or the operator's act for a user who lost their device;
// the store ends the user's sessions with it, and if the organization
// requires TOTP the next sign-in enrols again.
func (u User) ResetTOTP() User {
	u.TOTP = TOTP{}
	return u
}

func newRecoveryCodes(random io.Reader) ([]string, []RecoveryCode, error) {
	b, err := readRandom(random, RecoveryCodeCount*(recoveryCodeBytes+recoverySaltBytes))
	if err != nil {
		return nil, nil, err
	}
	codes := make([]string, RecoveryCodeCount)
	stored := make([]RecoveryCode, RecoveryCodeCount)
	for i := range codes {
		chunk := b[i*(recoveryCodeBytes+recoverySaltBytes):]
		norm := recoveryEncoding.EncodeToString(chunk[:recoveryCodeBytes])
		copy(stored[i].Salt[:], chunk[recoveryCodeBytes:recoveryCodeBytes+recoverySaltBytes])
		stored[i].Hash = recoveryHash(stored[i].Salt, norm)
		codes[i] = norm[0:4] + "-" + norm[4:8] + "-" + norm[8:12] + "-" + norm[12:16]
	}
	return codes, stored, nil
}

func recoveryHash(salt [16]byte, norm string) [32]byte {
	return sha256.Sum256(append(salt[:], norm...))
}

// normalizeRecoveryCode returns code in the form it is hashed in.
func normalizeRecoveryCode(code string) (string, bool) {
	code = strings.Map(func(r rune) rune {
		switch r {
		case '-', ' ':
			return -1
		case 'o', 'O':
			return '0'
		case 'i', 'I', 'l', 'L':
			return '1'
		}
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, code)
	if len(code) != 16 {
		return "", false
	}
	if b, err := recoveryEncoding.DecodeString(code); err != nil || len(b) != recoveryCodeBytes {
		return "", false
	}
	return code, true
}
