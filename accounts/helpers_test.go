package accounts_test

import (
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

// t0 is the tests' clock origin.
var t0 = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

// seeded is a deterministic random source.
func seeded(seed uint64) io.Reader {
	var s [32]byte
	for i := range 8 {
		s[i] = byte(seed >> (8 * i))
	}
	return rand.NewChaCha8(s)
}

// failing is a random source that fails.
type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("entropy pool on fire") }

// assertCoded checks that err has code c, the public message msg (when
// msg is not empty) and cause (when cause is not nil), each matched by
// errors.Is.
func assertCoded(t *testing.T, err error, c errcode.Code, cause error, msg string) {
	t.Helper()
	require.Error(t, err)
	assert.Equal(t, c, errcode.Of(err), err.Error())
	assert.ErrorIs(t, err, errcode.New(c))
	if cause != nil {
		assert.ErrorIs(t, err, cause)
	}
	if msg != "" {
		assert.Equal(t, msg, errcode.Message(err))
	}
	assert.True(t, errcode.Known(c), "code %s is in errcode.Table", c)
}

// testUser is an active org admin with a password of TestParams.
func testUser(t *testing.T, password string) accounts.User {
	t.Helper()
	u, err := accounts.NewUser(accounts.UserRequest{ID: "usr_1", Email: "Alice@Example.com", Role: accounts.RoleOrgAdmin, Org: "org_1"}, t0)
	require.NoError(t, err)
	u, err = u.SetPassword(password, accounts.TestParams, seeded(1))
	require.NoError(t, err)
	return u
}

// enrolled is testUser with TOTP enrolled at t0, and its recovery codes.
func enrolled(t *testing.T) (accounts.User, []string) {
	t.Helper()
	u := testUser(t, "correct horse battery staple")
	u, enr, err := u.BeginTOTP("Tambala", seeded(2))
	require.NoError(t, err)
	code, err := accounts.TOTPCode(enr.Secret, t0)
	require.NoError(t, err)
	u, codes, err := u.ConfirmTOTP(code, seeded(3), t0)
	require.NoError(t, err)
	return u, codes
}
