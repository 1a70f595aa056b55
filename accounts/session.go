package accounts

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"io"
	"time"

	"github.com/tambalapay/tambala/errcode"
)

// SessionTokenPrefix starts every session token, the cookie's value.
const SessionTokenPrefix = "ses_"

// The limits of a session. A session ends after IdleTimeout without a
// request and AbsoluteTimeout after the password check it descends from,
// whatever its requests; a session waiting for the second factor lasts at
// most SecondFactorTimeout.
const (
	IdleTimeout         = 30 * time.Minute
	AbsoluteTimeout     = 12 * time.Hour
	SecondFactorTimeout = 10 * time.Minute
)

// Stage is how far a session has come through sign-in.
type Stage string

const (
	// StageSecondFactor: the password was right; a TOTP or recovery code
	// is awaited, and nothing else is allowed.
	StageSecondFactor Stage = "second_factor"
	// StageEnrolTOTP: the password was right, the organization requires
	// TOTP and the user has none: enrolment comes before anything else.
	StageEnrolTOTP Stage = "enrol_totp"
	// StageSignedIn: signed in.
	StageSignedIn Stage = "signed_in"
)

func (s Stage) valid() bool {
	return s == StageSecondFactor || s == StageEnrolTOTP || s == StageSignedIn
}

// StageAfterPassword is where a sign-in stands once u's password was
// right: StageSecondFactor when u has TOTP enrolled (whatever the
// organization requires), else StageEnrolTOTP when totpRequired (the
// organization's setting), else StageSignedIn.
func StageAfterPassword(u User, totpRequired bool) Stage {
	switch {
	case u.TOTP.Enrolled:
		return StageSecondFactor
	case totpRequired:
		return StageEnrolTOTP
	}
	return StageSignedIn
}

// EndReason is why a session ended.
type EndReason string

const (
	// EndLogout: the user signed out.
	EndLogout EndReason = "logout"
	// EndRevoked: the session was ended for the user: every session of a
	// user is revoked when the user is disabled, their password is reset
	// or changed, or their TOTP is reset.
	EndRevoked EndReason = "revoked"
	// EndRotated: the session was replaced by one with a new token
	// (Rotate).
	EndRotated EndReason = "rotated"
)

// Session is one signed-in browser. Its token (the cookie) is shown once,
// when it is made; the session keeps only the token's SHA-256, by which
// the store finds it, and UserID, by which the store ends every session of
// a user.
type Session struct {
	TokenHash [32]byte
	UserID    string
	Stage     Stage
	// SignedInAt is when the password was checked; AbsoluteTimeout runs
	// from it, across rotations.
	SignedInAt time.Time
	// CreatedAt is when this token was made.
	CreatedAt time.Time
	// LastSeenAt is the last request's time (Touch); IdleTimeout runs
	// from it.
	LastSeenAt time.Time
	// EndedAt and EndReason are set when the session ends before it
	// expires.
	EndedAt   time.Time
	EndReason EndReason
}

// NewSession makes a session for the user with userID at stage, right
// after their password was checked (a new token at every sign-in), and
// returns it with its token: SessionTokenPrefix and the unpadded base64url
// of TokenBytes bytes read from random. validation_error (ErrInvalidID,
// ErrInvalidStage) for an empty user id or an unknown stage;
// internal_error (ErrRandom) when random fails.
func NewSession(userID string, stage Stage, random io.Reader, now time.Time) (Session, string, error) {
	if userID == "" {
		return Session{}, "", coded(errcode.ValidationError, "A session needs its user.", ErrInvalidID)
	}
	if !stage.valid() {
		return Session{}, "", coded(errcode.ValidationError, "The session stage is not valid.", ErrInvalidStage)
	}
	token, hash, err := newToken(SessionTokenPrefix, random)
	if err != nil {
		return Session{}, "", err
	}
	return Session{TokenHash: hash, UserID: userID, Stage: stage, SignedInAt: now, CreatedAt: now, LastSeenAt: now}, token, nil
}

// SessionTokenHash is the key the store finds a session by: the SHA-256
// of token, after checking its shape. unauthorized (ErrSessionUnknown)
// for a string that cannot be a token.
func SessionTokenHash(token string) ([32]byte, error) {
	h, ok := tokenHash(SessionTokenPrefix, token)
	if !ok {
		return [32]byte{}, sessionError(ErrSessionUnknown)
	}
	return h, nil
}

// ExpiresAt is when s expires unless it is touched before: the earliest of
// LastSeenAt plus IdleTimeout, SignedInAt plus AbsoluteTimeout and, at
// StageSecondFactor, CreatedAt plus SecondFactorTimeout. A cookie's
// lifetime can follow it.
func (s Session) ExpiresAt() time.Time {
	e := s.LastSeenAt.Add(IdleTimeout)
	if a := s.SignedInAt.Add(AbsoluteTimeout); a.Before(e) {
		e = a
	}
	if s.Stage == StageSecondFactor {
		if p := s.CreatedAt.Add(SecondFactorTimeout); p.Before(e) {
			e = p
		}
	}
	return e
}

// Ended reports whether s was logged out, revoked or rotated.
func (s Session) Ended() bool { return !s.EndedAt.IsZero() }

// SessionRetention is how long a session is kept once it has ended or
// expired: a request with its token in that time is told the session has
// ended, and after it is pruned the token is unknown (the same answer).
const SessionRetention = 24 * time.Hour

// Prunable reports whether s may be deleted at now: SessionRetention past
// the end of an ended session, or past ExpiresAt.
func (s Session) Prunable(now time.Time) bool {
	over := s.ExpiresAt()
	if s.Ended() && s.EndedAt.Before(over) {
		over = s.EndedAt
	}
	return !now.Before(over.Add(SessionRetention))
}

// Check checks that s is live at now: not ended (unauthorized,
// ErrSessionEnded) and before ExpiresAt (unauthorized, ErrSessionExpired).
// Both show "Your session has ended; sign in again."
func (s Session) Check(now time.Time) error {
	if s.Ended() {
		return sessionError(ErrSessionEnded)
	}
	if !now.Before(s.ExpiresAt()) {
		return sessionError(ErrSessionExpired)
	}
	return nil
}

// CheckToken is Check after checking, in constant time, that s is the
// session of token: unauthorized (ErrSessionUnknown) otherwise.
func (s Session) CheckToken(token string, now time.Time) error {
	h, ok := tokenHash(SessionTokenPrefix, token)
	if !ok || subtle.ConstantTimeCompare(h[:], s.TokenHash[:]) != 1 {
		return sessionError(ErrSessionUnknown)
	}
	return s.Check(now)
}

// Touch returns s seen at now, which extends its idle limit. It never
// revives a session: one that fails Check at now is returned unchanged,
// and LastSeenAt never moves back.
func (s Session) Touch(now time.Time) Session {
	if s.Check(now) == nil && now.After(s.LastSeenAt) {
		s.LastSeenAt = now
	}
	return s
}

// End returns s ended at now for reason. A session ended before keeps its
// first time and reason.
func (s Session) End(reason EndReason, now time.Time) Session {
	if !s.Ended() {
		s.EndedAt, s.EndReason = now, reason
	}
	return s
}

// Rotate replaces s with a new session at stage, for when it moves up a
// stage (the second factor checked, TOTP enrolled): it returns s ended as
// EndRotated, the new session and its token. The new session keeps the
// user and SignedInAt, so rotation never extends the absolute limit. The
// errors of Check when s is not live at now; those of NewSession.
func (s Session) Rotate(stage Stage, random io.Reader, now time.Time) (Session, Session, string, error) {
	if err := s.Check(now); err != nil {
		return s, Session{}, "", err
	}
	next, token, err := NewSession(s.UserID, stage, random, now)
	if err != nil {
		return s, Session{}, "", err
	}
	next.SignedInAt = s.SignedInAt
	return s.End(EndRotated, now), next, token, nil
}

// Authorize is the check of every request made with s by u, the session's
// user as stored now, in this order:
//   - s is live at now (Check);
//   - u is s's user and is not disabled (unauthorized, ErrSessionEnded or
//     ErrUserDisabled);
//   - s is at StageSecondFactor: unauthorized (ErrSecondFactorRequired),
//     only the code may be sent;
//   - s is at StageEnrolTOTP, or totpRequired (the organization's
//     setting) and u has no TOTP enrolled: forbidden (ErrTOTPRequired),
//     only enrolment may be done.
//
// It does not Touch s; the caller does after a request is served.
func Authorize(s Session, u User, totpRequired bool, now time.Time) error {
	if err := s.Check(now); err != nil {
		return err
	}
	if u.ID != s.UserID {
		return sessionError(ErrSessionEnded)
	}
	if u.Disabled() {
		return sessionError(ErrUserDisabled)
	}
	switch {
	case s.Stage == StageSecondFactor:
		return coded(errcode.Unauthorized, "Enter the code from your authenticator app to continue.", ErrSecondFactorRequired)
	case s.Stage != StageSignedIn, totpRequired && !u.TOTP.Enrolled:
		return coded(errcode.Forbidden, "Set up two-factor authentication to continue.", ErrTOTPRequired)
	}
	return nil
}

// csrfLabel is what a session's CSRF token is the HMAC of.
const csrfLabel = "tambala accounts csrf v1"

// CSRFToken is the CSRF token of the session whose token is
// sessionToken: the unpadded base64url of HMAC-SHA256 keyed with the
// session token over a fixed label. It is bound to the session and
// changes with it (a rotation, a new sign-in), needs no storage and no
// server key, and cannot be computed from what the store keeps (the
// token's SHA-256) nor lead back to the session token. Pages put it in
// their forms; CheckCSRF checks it on every state-changing request.
func CSRFToken(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte(csrfLabel))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CheckCSRF checks, in constant time, that csrf is CSRFToken(sessionToken):
// forbidden (ErrCSRF) otherwise, for an empty token too.
func CheckCSRF(sessionToken, csrf string) error {
	want := CSRFToken(sessionToken)
	if sessionToken == "" || subtle.ConstantTimeCompare([]byte(want), []byte(csrf)) != 1 {
		return coded(errcode.Forbidden, "The form has expired; reload the page and try again.", ErrCSRF)
	}
	return nil
}
