package accounts_test

import (
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

const sessionEnded = "Your session has ended; sign in again."

func TestStageAfterPassword(t *testing.T) {
	plain := testUser(t, "correct horse battery staple")
	e, _ := enrolled(t)
	pending, _, err := plain.BeginTOTP("Tambala", seeded(2))
	require.NoError(t, err)
	tests := []struct {
		name     string
		u        accounts.User
		required bool
		want     accounts.Stage
	}{
		{"no TOTP, not required", plain, false, accounts.StageSignedIn},
		{"no TOTP, required", plain, true, accounts.StageEnrolTOTP},
		{"pending enrolment, required", pending, true, accounts.StageEnrolTOTP},
		{"pending enrolment, not required", pending, false, accounts.StageSignedIn},
		{"enrolled, required", e, true, accounts.StageSecondFactor},
		{"enrolled, not required: still asked", e, false, accounts.StageSecondFactor},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, accounts.StageAfterPassword(tt.u, tt.required), tt.name)
	}
}

func TestNewSession(t *testing.T) {
	s, token, err := accounts.NewSession("usr_1", accounts.StageSignedIn, seeded(40), t0)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(token, "ses_"))
	assert.Len(t, token, 4+43)
	assert.Equal(t, accounts.Session{
		TokenHash: sha256.Sum256([]byte(token)), UserID: "usr_1", Stage: accounts.StageSignedIn,
		SignedInAt: t0, CreatedAt: t0, LastSeenAt: t0,
	}, s)
	h, err := accounts.SessionTokenHash(token)
	require.NoError(t, err)
	assert.Equal(t, s.TokenHash, h)
	require.NoError(t, s.CheckToken(token, t0))

	other, token2, err := accounts.NewSession("usr_1", accounts.StageSignedIn, seeded(41), t0)
	require.NoError(t, err)
	assert.NotEqual(t, token, token2, "a new token at each sign-in")
	assertCoded(t, other.CheckToken(token, t0), errcode.Unauthorized, accounts.ErrSessionUnknown, sessionEnded)

	for _, bad := range []string{"", "ses_", token[4:], "inv_" + token[4:], token + "A", token[:len(token)-1], token[:9] + "/" + token[10:]} {
		_, err := accounts.SessionTokenHash(bad)
		assertCoded(t, err, errcode.Unauthorized, accounts.ErrSessionUnknown, sessionEnded)
		assertCoded(t, s.CheckToken(bad, t0), errcode.Unauthorized, accounts.ErrSessionUnknown, sessionEnded)
	}

	_, _, err = accounts.NewSession("", accounts.StageSignedIn, seeded(40), t0)
	assertCoded(t, err, errcode.ValidationError, accounts.ErrInvalidID, "")
	_, _, err = accounts.NewSession("usr_1", "admin", seeded(40), t0)
	assertCoded(t, err, errcode.ValidationError, accounts.ErrInvalidStage, "")
	_, _, err = accounts.NewSession("usr_1", accounts.StageSignedIn, failing{}, t0)
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
}

func TestSessionExpiry(t *testing.T) {
	s, _, err := accounts.NewSession("usr_1", accounts.StageSignedIn, seeded(40), t0)
	require.NoError(t, err)
	pending, _, err := accounts.NewSession("usr_1", accounts.StageSecondFactor, seeded(41), t0)
	require.NoError(t, err)

	// touched keeps s seen every 20 minutes for the given time.
	touched := func(s accounts.Session, d time.Duration) accounts.Session {
		for at := time.Duration(0); at <= d; at += 20 * time.Minute {
			s = s.Touch(t0.Add(at))
		}
		return s
	}
	tests := []struct {
		name  string
		s     accounts.Session
		at    time.Duration
		cause error
	}{
		{"new", s, 0, nil},
		{"idle just under 30 min", s, 30*time.Minute - time.Nanosecond, nil},
		{"idle 30 min", s, 30 * time.Minute, accounts.ErrSessionExpired},
		{"touched at 20 min, at 49", s.Touch(t0.Add(20 * time.Minute)), 49 * time.Minute, nil},
		{"touched at 20 min, at 50", s.Touch(t0.Add(20 * time.Minute)), 50 * time.Minute, accounts.ErrSessionExpired},
		{"busy for 11 h 59", touched(s, 12*time.Hour), 12*time.Hour - time.Minute, nil},
		{"busy at 12 h", touched(s, 12*time.Hour), 12 * time.Hour, accounts.ErrSessionExpired},
		{"busy after 12 h", touched(s, 13*time.Hour), 12*time.Hour + time.Minute, accounts.ErrSessionExpired},
		{"second factor at 9 min", pending, 9 * time.Minute, nil},
		{"second factor at 10 min", pending, 10 * time.Minute, accounts.ErrSessionExpired},
		{"second factor touched, at 10 min", touched(pending, 9*time.Minute), 10 * time.Minute, accounts.ErrSessionExpired},
		{"logged out", s.End(accounts.EndLogout, t0.Add(time.Minute)), 2 * time.Minute, accounts.ErrSessionEnded},
		{"revoked", s.End(accounts.EndRevoked, t0.Add(time.Minute)), 2 * time.Minute, accounts.ErrSessionEnded},
		{"ended in the future still ended", s.End(accounts.EndLogout, t0.Add(time.Hour)), time.Minute, accounts.ErrSessionEnded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Check(t0.Add(tt.at))
			if tt.cause == nil {
				assert.NoError(t, err)
				assert.True(t, t0.Add(tt.at).Before(tt.s.ExpiresAt()))
				return
			}
			assertCoded(t, err, errcode.Unauthorized, tt.cause, sessionEnded)
		})
	}
	assert.Equal(t, t0.Add(30*time.Minute), s.ExpiresAt())
	assert.Equal(t, t0.Add(10*time.Minute), pending.ExpiresAt())
	assert.Equal(t, t0.Add(12*time.Hour), touched(s, 12*time.Hour).ExpiresAt())
}

func TestTouch(t *testing.T) {
	s, _, err := accounts.NewSession("usr_1", accounts.StageSignedIn, seeded(40), t0)
	require.NoError(t, err)
	v := s.Touch(t0.Add(10 * time.Minute))
	assert.Equal(t, t0.Add(10*time.Minute), v.LastSeenAt)
	assert.Equal(t, v, v.Touch(t0.Add(5*time.Minute)), "LastSeenAt never moves back")
	assert.Equal(t, s, s.Touch(t0.Add(31*time.Minute)), "an idle session is not revived")
	assert.Error(t, s.Touch(t0.Add(31*time.Minute)).Check(t0.Add(31*time.Minute)))
	ended := s.End(accounts.EndLogout, t0)
	assert.Equal(t, ended, ended.Touch(t0.Add(time.Minute)), "an ended session is not touched")
}

func TestEnd(t *testing.T) {
	s, _, err := accounts.NewSession("usr_1", accounts.StageSignedIn, seeded(40), t0)
	require.NoError(t, err)
	assert.False(t, s.Ended())
	e := s.End(accounts.EndLogout, t0.Add(time.Minute))
	assert.True(t, e.Ended())
	assert.Equal(t, t0.Add(time.Minute), e.EndedAt)
	assert.Equal(t, accounts.EndLogout, e.EndReason)
	again := e.End(accounts.EndRevoked, t0.Add(time.Hour))
	assert.Equal(t, e, again, "the first end stands")
}

func TestRotate(t *testing.T) {
	s, oldToken, err := accounts.NewSession("usr_1", accounts.StageSecondFactor, seeded(40), t0)
	require.NoError(t, err)
	now := t0.Add(5 * time.Minute)
	old, next, token, err := s.Rotate(accounts.StageSignedIn, seeded(41), now)
	require.NoError(t, err)
	assert.NotEqual(t, oldToken, token)
	assert.NotEqual(t, s.TokenHash, next.TokenHash)
	assert.Equal(t, accounts.EndRotated, old.EndReason)
	assertCoded(t, old.Check(now), errcode.Unauthorized, accounts.ErrSessionEnded, sessionEnded)
	assert.Equal(t, accounts.Session{
		TokenHash: sha256.Sum256([]byte(token)), UserID: "usr_1", Stage: accounts.StageSignedIn,
		SignedInAt: t0, CreatedAt: now, LastSeenAt: now,
	}, next)
	require.NoError(t, next.CheckToken(token, now))
	assert.NotEqual(t, accounts.CSRFToken(oldToken), accounts.CSRFToken(token), "the CSRF token changes with the session")
	assert.Equal(t, t0.Add(12*time.Hour), next.SignedInAt.Add(accounts.AbsoluteTimeout), "rotation keeps the absolute limit")

	// Only a live session rotates.
	_, _, _, err = old.Rotate(accounts.StageSignedIn, seeded(42), now)
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrSessionEnded, "")
	_, _, _, err = s.Rotate(accounts.StageSignedIn, seeded(42), t0.Add(10*time.Minute))
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrSessionExpired, "")
	_, _, _, err = s.Rotate("bogus", seeded(42), now)
	assertCoded(t, err, errcode.ValidationError, accounts.ErrInvalidStage, "")
	_, _, _, err = s.Rotate(accounts.StageSignedIn, failing{}, now)
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
}

func TestAuthorize(t *testing.T) {
	plain := testUser(t, "correct horse battery staple")
	e, _ := enrolled(t)
	session := func(stage accounts.Stage) accounts.Session {
		s, _, err := accounts.NewSession("usr_1", stage, seeded(40), t0)
		require.NoError(t, err)
		return s
	}
	now := t0.Add(time.Minute)
	other := plain
	other.ID = "usr_2"
	tests := []struct {
		name     string
		s        accounts.Session
		u        accounts.User
		required bool
		code     errcode.Code
		cause    error
	}{
		{"signed in", session(accounts.StageSignedIn), plain, false, "", nil},
		{"signed in, enrolled, required", session(accounts.StageSignedIn), e, true, "", nil},
		{"signed in, TOTP newly required", session(accounts.StageSignedIn), plain, true, errcode.Forbidden, accounts.ErrTOTPRequired},
		{"enrolment stage", session(accounts.StageEnrolTOTP), plain, true, errcode.Forbidden, accounts.ErrTOTPRequired},
		{"enrolment stage, since enrolled: rotate first", session(accounts.StageEnrolTOTP), e, true, errcode.Forbidden, accounts.ErrTOTPRequired},
		{"second factor stage", session(accounts.StageSecondFactor), e, false, errcode.Unauthorized, accounts.ErrSecondFactorRequired},
		{"expired", session(accounts.StageSignedIn), plain, false, errcode.Unauthorized, accounts.ErrSessionExpired},
		{"ended", session(accounts.StageSignedIn).End(accounts.EndRevoked, t0), plain, false, errcode.Unauthorized, accounts.ErrSessionEnded},
		{"another user", session(accounts.StageSignedIn), other, false, errcode.Unauthorized, accounts.ErrSessionEnded},
		{"disabled user", session(accounts.StageSignedIn), plain.Disable(t0), false, errcode.Unauthorized, accounts.ErrUserDisabled},
		{"disabled beats the stage", session(accounts.StageSecondFactor), e.Disable(t0), true, errcode.Unauthorized, accounts.ErrUserDisabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := now
			if tt.name == "expired" {
				at = t0.Add(time.Hour)
			}
			err := accounts.Authorize(tt.s, tt.u, tt.required, at)
			if tt.cause == nil {
				assert.NoError(t, err)
				return
			}
			assertCoded(t, err, tt.code, tt.cause, "")
		})
	}
	assert.Equal(t, "Set up two-factor authentication to continue.",
		errcode.Message(accounts.Authorize(session(accounts.StageEnrolTOTP), plain, true, now)))
	assert.Equal(t, "Enter the code from your authenticator app to continue.",
		errcode.Message(accounts.Authorize(session(accounts.StageSecondFactor), e, true, now)))
}

func TestCSRF(t *testing.T) {
	_, token, err := accounts.NewSession("usr_1", accounts.StageSignedIn, seeded(40), t0)
	require.NoError(t, err)
	_, token2, err := accounts.NewSession("usr_1", accounts.StageSignedIn, seeded(41), t0)
	require.NoError(t, err)
	csrf := accounts.CSRFToken(token)
	assert.Len(t, csrf, 43)
	assert.Equal(t, csrf, accounts.CSRFToken(token), "stable for the session's life")
	assert.NotEqual(t, csrf, accounts.CSRFToken(token2), "bound to the session")
	assert.NotContains(t, csrf, token[4:])
	h := sha256.Sum256([]byte(token))
	assert.NotEqual(t, csrf, accounts.CSRFToken(string(h[:])), "not computable from the stored hash")

	require.NoError(t, accounts.CheckCSRF(token, csrf))
	for name, tt := range map[string]struct{ session, csrf string }{
		"empty":             {token, ""},
		"another session's": {token, accounts.CSRFToken(token2)},
		"truncated":         {token, csrf[:42]},
		"extended":          {token, csrf + "A"},
		"the session token": {token, token},
		"no session":        {"", accounts.CSRFToken("")},
		"case-changed":      {token, strings.ToUpper(csrf)},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "case-changed" && strings.ToUpper(csrf) == csrf {
				t.Skip()
			}
			assertCoded(t, accounts.CheckCSRF(tt.session, tt.csrf), errcode.Forbidden, accounts.ErrCSRF,
				"The form has expired; reload the page and try again.")
		})
	}
}
