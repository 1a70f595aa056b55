package accounts_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

// TestTOTPCodeRFC6238 checks the code against RFC 6238's SHA-1 vectors
// (their last 6 digits) and the step arithmetic.
func TestTOTPCodeRFC6238(t *testing.T) {
	const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ" // "12345678901234567890"
	for unix, want := range map[int64]string{
		59:          "287082",
		1111111109:  "081804",
		1111111111:  "050471",
		1234567890:  "005924",
		2000000000:  "279037",
		20000000000: "353130",
	} {
		got, err := accounts.TOTPCode(secret, time.Unix(unix, 0))
		require.NoError(t, err)
		assert.Equal(t, want, got, unix)
	}
	assert.Equal(t, int64(0), accounts.TOTPStep(time.Unix(29, 0)))
	assert.Equal(t, int64(1), accounts.TOTPStep(time.Unix(30, 999)))
	assert.Equal(t, int64(-1), accounts.TOTPStep(time.Unix(-1, 0)))
	_, err := accounts.TOTPCode("not base32!", t0)
	assertCoded(t, err, errcode.InternalError, nil, "")
}

func TestBeginTOTP(t *testing.T) {
	u := testUser(t, "correct horse battery staple")
	v, enr, err := u.BeginTOTP("Tambala", seeded(2))
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^[A-Z2-7]{32}$`), enr.Secret, "160 bits of base32")
	assert.Equal(t, accounts.TOTP{Secret: enr.Secret}, v.TOTP, "pending: stored, not enrolled")
	assert.Zero(t, u.TOTP, "the receiver is a value")

	link, err := url.Parse(enr.URL)
	require.NoError(t, err)
	assert.Equal(t, "otpauth", link.Scheme)
	assert.Equal(t, "totp", link.Host)
	assert.Equal(t, "/Tambala:alice@example.com", link.Path)
	q := link.Query()
	assert.Equal(t, enr.Secret, q.Get("secret"))
	assert.Equal(t, "Tambala", q.Get("issuer"))
	assert.Equal(t, "30", q.Get("period"))
	assert.Equal(t, "6", q.Get("digits"))
	assert.Equal(t, "SHA1", q.Get("algorithm"))

	// Beginning again (the QR code was lost) replaces the pending secret.
	w, enr2, err := v.BeginTOTP("Tambala", seeded(3))
	require.NoError(t, err)
	assert.NotEqual(t, enr.Secret, enr2.Secret)
	assert.Equal(t, enr2.Secret, w.TOTP.Secret)

	for _, issuer := range []string{"", "Tambala:Pay"} {
		_, _, err = u.BeginTOTP(issuer, seeded(2))
		assertCoded(t, err, errcode.ValidationError, accounts.ErrInvalidIssuer, "")
	}
	_, _, err = u.BeginTOTP("Tambala", failing{})
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")

	e, _ := enrolled(t)
	_, _, err = e.BeginTOTP("Tambala", seeded(2))
	assertCoded(t, err, errcode.Conflict, accounts.ErrTOTPEnrolled, "")
}

var recoveryShape = regexp.MustCompile(`^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$`)

func TestConfirmTOTP(t *testing.T) {
	u := testUser(t, "correct horse battery staple")
	_, _, err := u.ConfirmTOTP("123456", seeded(3), t0)
	assertCoded(t, err, errcode.Conflict, accounts.ErrNoPendingTOTP, "")

	p, enr, err := u.BeginTOTP("Tambala", seeded(2))
	require.NoError(t, err)
	code, err := accounts.TOTPCode(enr.Secret, t0)
	require.NoError(t, err)

	for _, bad := range []string{"", "12345", "1234567", "abcdef", wrong(code)} {
		got, codes, err := p.ConfirmTOTP(bad, seeded(3), t0)
		assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvalidCode, "The authentication code is incorrect.")
		assert.Equal(t, p, got)
		assert.Nil(t, codes)
	}
	_, _, err = p.ConfirmTOTP(code, failing{}, t0)
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")

	e, codes, err := p.ConfirmTOTP(code[:3]+" "+code[3:], seeded(3), t0.Add(20*time.Second))
	require.NoError(t, err)
	assert.True(t, e.TOTP.Enrolled)
	assert.Equal(t, t0.Add(20*time.Second), e.TOTP.EnrolledAt)
	assert.Equal(t, enr.Secret, e.TOTP.Secret)
	assert.Equal(t, accounts.TOTPStep(t0), e.TOTP.LastStep, "the confirming code is used")
	require.Len(t, codes, accounts.RecoveryCodeCount)
	seen := map[string]bool{}
	for _, c := range codes {
		assert.Regexp(t, recoveryShape, c)
		assert.False(t, seen[c], "distinct")
		seen[c] = true
		assert.NotContains(t, strings.Join(func() []string {
			var hs []string
			for _, rc := range e.TOTP.RecoveryCodes {
				hs = append(hs, string(rc.Hash[:]), string(rc.Salt[:]))
			}
			return hs
		}(), ""), c, "only hashes are stored")
	}
	assert.Len(t, e.TOTP.RecoveryCodes, accounts.RecoveryCodeCount)
	assert.Equal(t, accounts.RecoveryCodeCount, e.TOTP.RecoveryCodesLeft())

	// The confirming code cannot sign in.
	_, err = e.VerifyTOTP(code, t0.Add(20*time.Second))
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrCodeReplayed, "The authentication code is incorrect.")

	_, _, err = e.ConfirmTOTP(code, seeded(3), t0)
	assertCoded(t, err, errcode.Conflict, accounts.ErrTOTPEnrolled, "")
}

// wrong is a 6-digit code other than code.
func wrong(code string) string {
	b := []byte(code)
	b[0] = '0' + (b[0]-'0'+1)%10
	return string(b)
}

func TestVerifyTOTP(t *testing.T) {
	e, _ := enrolled(t)
	at := func(d time.Duration) string {
		c, err := accounts.TOTPCode(e.TOTP.Secret, t0.Add(d))
		require.NoError(t, err)
		return c
	}
	base := t0.Add(10 * time.Minute) // well after the confirming step
	rel := base.Sub(t0)
	tests := []struct {
		name  string
		code  string
		cause error
	}{
		{"this step", at(rel), nil},
		{"one step behind", at(rel - 30*time.Second), nil},
		{"one step ahead", at(rel + 30*time.Second), nil},
		{"two steps behind", at(rel - 60*time.Second), accounts.ErrInvalidCode},
		{"two steps ahead", at(rel + 60*time.Second), accounts.ErrInvalidCode},
		{"spaces are ignored", " " + at(rel)[:3] + " " + at(rel)[3:], nil},
		{"wrong", wrong(at(rel)), accounts.ErrInvalidCode},
		{"too short", at(rel)[:5], accounts.ErrInvalidCode},
		{"letters", "abcdef", accounts.ErrInvalidCode},
		{"full-width digits", "１２３４５６", accounts.ErrInvalidCode},
		{"the confirming step's code", at(0), accounts.ErrInvalidCode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.VerifyTOTP(tt.code, base)
			if tt.cause == nil {
				require.NoError(t, err)
				assert.Greater(t, got.TOTP.LastStep, e.TOTP.LastStep)
				return
			}
			assertCoded(t, err, errcode.Unauthorized, tt.cause, "The authentication code is incorrect.")
			assert.NotErrorIs(t, err, accounts.ErrCodeReplayed)
			assert.Equal(t, e, got)
		})
	}

	// Replay: a code is used once, and no code of an earlier step after it.
	v, err := e.VerifyTOTP(at(rel), base)
	require.NoError(t, err)
	assert.Equal(t, accounts.TOTPStep(base), v.TOTP.LastStep)
	_, err = v.VerifyTOTP(at(rel), base)
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrCodeReplayed, "The authentication code is incorrect.")
	assert.ErrorIs(t, err, accounts.ErrInvalidCode, "a replay is an invalid code")
	_, err = v.VerifyTOTP(at(rel), base.Add(29*time.Second))
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrCodeReplayed, "")
	_, err = v.VerifyTOTP(at(rel-30*time.Second), base)
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrCodeReplayed, "")
	w, err := v.VerifyTOTP(at(rel+30*time.Second), base.Add(30*time.Second))
	require.NoError(t, err, "the next step's code works")
	assert.Equal(t, accounts.TOTPStep(base)+1, w.TOTP.LastStep)

	// A code ahead of the clock, then the current one: the current one is
	// older, so it is refused.
	ahead, err := e.VerifyTOTP(at(rel+30*time.Second), base)
	require.NoError(t, err)
	_, err = ahead.VerifyTOTP(at(rel), base)
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrCodeReplayed, "")

	u := testUser(t, "correct horse battery staple")
	_, err = u.VerifyTOTP("123456", t0)
	assertCoded(t, err, errcode.Conflict, accounts.ErrTOTPNotEnrolled, "")
	pending, _, err := u.BeginTOTP("Tambala", seeded(2))
	require.NoError(t, err)
	_, err = pending.VerifyTOTP("123456", t0)
	assertCoded(t, err, errcode.Conflict, accounts.ErrTOTPNotEnrolled, "") // a pending enrolment does not count
}

func TestRecoveryCodes(t *testing.T) {
	e, codes := enrolled(t)
	now := t0.Add(time.Hour)

	v, err := e.UseRecoveryCode(codes[3], now)
	require.NoError(t, err)
	assert.Equal(t, accounts.RecoveryCodeCount-1, v.TOTP.RecoveryCodesLeft())
	assert.Equal(t, now, v.TOTP.RecoveryCodes[3].UsedAt)
	assert.Equal(t, accounts.RecoveryCodeCount, e.TOTP.RecoveryCodesLeft(), "the receiver's codes are not touched")

	_, err = v.UseRecoveryCode(codes[3], now)
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvalidCode, "The authentication code is incorrect.")

	// Read as shown, or as typed.
	c := codes[5]
	for _, typed := range []string{
		c,
		strings.ToUpper(c),
		strings.ReplaceAll(c, "-", ""),
		strings.ReplaceAll(c, "-", " "),
		" " + c + " ",
		strings.NewReplacer("0", "O", "1", "l").Replace(c),
	} {
		_, err := v.UseRecoveryCode(typed, now)
		assert.NoError(t, err, typed)
	}
	for _, bad := range []string{"", "abcd", c + "0", c[:len(c)-1], strings.Replace(c, c[:1], string("0123456789abcdefghjkmnpqrstvwxyz"[(strings.IndexByte("0123456789abcdefghjkmnpqrstvwxyz", c[0])+1)%32]), 1), "uuuu-uuuu-uuuu-uuuu"} {
		_, err := v.UseRecoveryCode(bad, now)
		assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvalidCode, "")
	}

	// A new set voids the old one.
	w, fresh, err := v.NewRecoveryCodes(seeded(30))
	require.NoError(t, err)
	require.Len(t, fresh, accounts.RecoveryCodeCount)
	assert.Equal(t, accounts.RecoveryCodeCount, w.TOTP.RecoveryCodesLeft())
	for _, old := range codes {
		_, err := w.UseRecoveryCode(old, now)
		assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvalidCode, "")
	}
	for _, c := range fresh {
		w, err = w.UseRecoveryCode(c, now)
		require.NoError(t, err)
	}
	assert.Zero(t, w.TOTP.RecoveryCodesLeft())
	_, err = w.UseRecoveryCode(fresh[0], now)
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvalidCode, "")

	u := testUser(t, "correct horse battery staple")
	_, err = u.UseRecoveryCode(codes[0], now)
	assertCoded(t, err, errcode.Conflict, accounts.ErrTOTPNotEnrolled, "")
	_, _, err = u.NewRecoveryCodes(seeded(1))
	assertCoded(t, err, errcode.Conflict, accounts.ErrTOTPNotEnrolled, "")
	_, _, err = e.NewRecoveryCodes(failing{})
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
}

func TestResetTOTP(t *testing.T) {
	e, codes := enrolled(t)
	r := e.ResetTOTP()
	assert.Zero(t, r.TOTP)
	assert.Equal(t, e.PasswordHash, r.PasswordHash)
	_, err := r.UseRecoveryCode(codes[0], t0)
	assertCoded(t, err, errcode.Conflict, accounts.ErrTOTPNotEnrolled, "")
	_, _, err = r.BeginTOTP("Tambala", seeded(5))
	require.NoError(t, err, "enrolment starts over")
}
