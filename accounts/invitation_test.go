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

func invite(t *testing.T, ttl time.Duration) (accounts.Invitation, string) {
	t.Helper()
	inv, token, err := accounts.Invite(accounts.InvitationRequest{
		ID: "inv-1", Email: " Chikondi@Example.MW ", Org: "org_1", Role: accounts.RoleOrgAdmin, InvitedBy: "staff-7", TTL: ttl,
	}, seeded(10), t0)
	require.NoError(t, err)
	return inv, token
}

func TestInvite(t *testing.T) {
	inv, token := invite(t, 0)
	assert.True(t, strings.HasPrefix(token, "inv_"), token)
	assert.Len(t, token, 4+43)
	assert.Equal(t, sha256.Sum256([]byte(token)), inv.TokenHash, "stored as its SHA-256")
	assert.Equal(t, accounts.Invitation{
		ID: "inv-1", TokenHash: inv.TokenHash, Email: "chikondi@example.mw", Org: "org_1", Role: accounts.RoleOrgAdmin,
		InvitedBy: "staff-7", CreatedAt: t0, ExpiresAt: t0.Add(72 * time.Hour),
	}, inv)
	h, err := accounts.InvitationTokenHash(token)
	require.NoError(t, err)
	assert.Equal(t, inv.TokenHash, h)

	_, other := invite(t, 0)
	assert.Equal(t, token, other, "deterministic given the reader")
	_, third, err := accounts.Invite(accounts.InvitationRequest{ID: "inv-2", Email: "a@example.com", Org: "o", Role: accounts.RoleOrgAdmin}, seeded(11), t0)
	require.NoError(t, err)
	assert.NotEqual(t, token, third)

	custom, _ := invite(t, 24*time.Hour)
	assert.Equal(t, t0.Add(24*time.Hour), custom.ExpiresAt)

	for name, tt := range map[string]struct {
		r     accounts.InvitationRequest
		cause error
	}{
		"no id":         {accounts.InvitationRequest{Email: "a@example.com", Org: "o", Role: accounts.RoleOrgAdmin}, accounts.ErrInvalidID},
		"bad email":     {accounts.InvitationRequest{ID: "i", Email: "a@", Org: "o", Role: accounts.RoleOrgAdmin}, accounts.ErrInvalidEmail},
		"no role":       {accounts.InvitationRequest{ID: "i", Email: "a@example.com", Org: "o"}, accounts.ErrInvalidRole},
		"no org":        {accounts.InvitationRequest{ID: "i", Email: "a@example.com", Role: accounts.RoleOrgAdmin}, accounts.ErrInvalidRole},
		"TTL too short": {accounts.InvitationRequest{ID: "i", Email: "a@example.com", Org: "o", Role: accounts.RoleOrgAdmin, TTL: time.Minute}, accounts.ErrInvalidTTL},
		"TTL too long":  {accounts.InvitationRequest{ID: "i", Email: "a@example.com", Org: "o", Role: accounts.RoleOrgAdmin, TTL: 8 * 24 * time.Hour}, accounts.ErrInvalidTTL},
		"negative TTL":  {accounts.InvitationRequest{ID: "i", Email: "a@example.com", Org: "o", Role: accounts.RoleOrgAdmin, TTL: -time.Hour}, accounts.ErrInvalidTTL},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := accounts.Invite(tt.r, seeded(1), t0)
			assertCoded(t, err, errcode.ValidationError, tt.cause, "")
		})
	}
	_, _, err = accounts.Invite(accounts.InvitationRequest{ID: "i", Email: "a@example.com", Org: "o", Role: accounts.RoleOrgAdmin}, failing{}, t0)
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
}

func TestInvitationTokenHash(t *testing.T) {
	_, token := invite(t, 0)
	for _, bad := range []string{"", "inv_", token[4:], "ses_" + token[4:], token + "A", token[:len(token)-1], token[:10] + "+" + token[11:], token[:10] + "=" + token[11:], " " + token} {
		_, err := accounts.InvitationTokenHash(bad)
		assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvitationUnknown, "This invitation link is not valid.")
	}
}

func TestInvitationStatus(t *testing.T) {
	inv, _ := invite(t, 0)
	exp := inv.ExpiresAt
	assert.Equal(t, accounts.InvitationPending, inv.Status(t0))
	assert.Equal(t, accounts.InvitationPending, inv.Status(exp.Add(-time.Nanosecond)))
	assert.Equal(t, accounts.InvitationExpired, inv.Status(exp))
	assert.Equal(t, accounts.InvitationExpired, inv.Status(exp.Add(time.Hour)))

	r, err := inv.Revoke(t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, accounts.InvitationRevoked, r.Status(t0.Add(time.Hour)))
	assert.Equal(t, accounts.InvitationRevoked, r.Status(exp.Add(time.Hour)), "revoked stays revoked")
	r2, err := r.Revoke(t0.Add(2 * time.Hour))
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Hour), r2.RevokedAt, "the first time is kept")

	expired, err := inv.Revoke(exp.Add(time.Hour))
	require.NoError(t, err, "an expired invitation can still be revoked")
	assert.Equal(t, accounts.InvitationRevoked, expired.Status(exp.Add(time.Hour)))
}

func TestAccept(t *testing.T) {
	inv, token := invite(t, 0)
	a := accounts.Acceptance{Token: token, UserID: "usr_9", Password: "correct horse battery staple", Params: accounts.TestParams}
	now := t0.Add(71 * time.Hour)

	got, u, err := inv.Accept(a, seeded(20), now)
	require.NoError(t, err)
	assert.Equal(t, now, got.AcceptedAt)
	assert.Equal(t, "usr_9", got.UserID)
	assert.Equal(t, accounts.InvitationAccepted, got.Status(now))
	assert.Equal(t, "usr_9", u.ID)
	assert.Equal(t, "chikondi@example.mw", u.Email)
	assert.Equal(t, accounts.RoleOrgAdmin, u.Role)
	assert.Equal(t, "org_1", u.Org)
	assert.Equal(t, now, u.CreatedAt)
	assert.Equal(t, accounts.StatusActive, u.Status())
	assert.False(t, u.TOTP.Enrolled)
	assert.True(t, u.PasswordHash.Verify("correct horse battery staple"))
	assert.False(t, u.PasswordHash.NeedsRehash(accounts.TestParams))
	assert.Zero(t, inv.AcceptedAt, "the receiver is a value")

	// Used once: accepted is final, before and after expiry.
	for _, at := range []time.Time{now, now.Add(time.Minute), inv.ExpiresAt.Add(time.Hour)} {
		_, _, err = got.Accept(a, seeded(21), at)
		assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvitationUsed, "This invitation was already accepted; sign in instead.")
	}
	_, err = got.Revoke(now)
	assertCoded(t, err, errcode.Conflict, accounts.ErrInvitationUsed, "")

	tests := []struct {
		name  string
		inv   func() accounts.Invitation
		a     func(accounts.Acceptance) accounts.Acceptance
		at    time.Time
		code  errcode.Code
		cause error
	}{
		{"at expiry", func() accounts.Invitation { return inv }, nil, inv.ExpiresAt, errcode.Unauthorized, accounts.ErrInvitationExpired},
		{"after expiry", func() accounts.Invitation { return inv }, nil, inv.ExpiresAt.Add(time.Hour), errcode.Unauthorized, accounts.ErrInvitationExpired},
		{"revoked", func() accounts.Invitation { r, _ := inv.Revoke(t0); return r }, nil, now, errcode.Unauthorized, accounts.ErrInvitationRevoked},
		{"another token", func() accounts.Invitation { return inv }, func(a accounts.Acceptance) accounts.Acceptance {
			_, other, _ := accounts.Invite(accounts.InvitationRequest{ID: "x", Email: "chikondi@example.mw", Org: "org_1", Role: accounts.RoleOrgAdmin}, seeded(99), t0)
			a.Token = other
			return a
		}, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"malformed token", func() accounts.Invitation { return inv }, func(a accounts.Acceptance) accounts.Acceptance { a.Token = "inv_x"; return a }, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"the token's hash", func() accounts.Invitation { return inv }, func(a accounts.Acceptance) accounts.Acceptance { a.Token = string(inv.TokenHash[:]); return a }, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"a wrong token comes before expiry", func() accounts.Invitation { return inv }, func(a accounts.Acceptance) accounts.Acceptance { a.Token = "inv_x"; return a }, inv.ExpiresAt.Add(time.Hour), errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"no user id", func() accounts.Invitation { return inv }, func(a accounts.Acceptance) accounts.Acceptance { a.UserID = ""; return a }, now, errcode.ValidationError, accounts.ErrInvalidID},
		{"short password", func() accounts.Invitation { return inv }, func(a accounts.Acceptance) accounts.Acceptance { a.Password = "short"; return a }, now, errcode.ValidationError, accounts.ErrPasswordTooShort},
		{"the invited email as password", func() accounts.Invitation { return inv }, func(a accounts.Acceptance) accounts.Acceptance { a.Password = "CHIKONDI@EXAMPLE.MW"; return a }, now, errcode.ValidationError, accounts.ErrPasswordIsEmail},
		{"expiry comes before the password", func() accounts.Invitation { return inv }, func(a accounts.Acceptance) accounts.Acceptance { a.Password = "short"; return a }, inv.ExpiresAt, errcode.Unauthorized, accounts.ErrInvitationExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := tt.inv()
			aa := a
			if tt.a != nil {
				aa = tt.a(a)
			}
			got, u, err := i.Accept(aa, seeded(22), tt.at)
			assertCoded(t, err, tt.code, tt.cause, "")
			assert.Equal(t, i, got, "unchanged on an error")
			assert.Zero(t, u)
		})
	}

	_, _, err = inv.Accept(a, failing{}, now)
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
}

// resetOf makes a password reset of u, as the engine does: u's email,
// organization and role.
func resetOf(t *testing.T, u accounts.User, ttl time.Duration) (accounts.Invitation, string) {
	t.Helper()
	inv, token, err := accounts.Invite(accounts.InvitationRequest{
		ID: "inv-r", Email: u.Email, Org: u.Org, Role: u.Role, InvitedBy: "operator", TTL: ttl, ResetOf: u.ID,
	}, seeded(30), t0)
	require.NoError(t, err)
	return inv, token
}

func TestInviteReset(t *testing.T) {
	u := testUser(t, "the old password, long enough")
	inv, _ := resetOf(t, u, 0)
	assert.True(t, inv.IsReset())
	assert.Equal(t, "usr_1", inv.ResetOf)
	assert.Equal(t, "alice@example.com", inv.Email)
	assert.Equal(t, t0.Add(accounts.DefaultInvitationTTL), inv.ExpiresAt)
	plain, _ := invite(t, 0)
	assert.False(t, plain.IsReset())
}

func TestAcceptRefusesReset(t *testing.T) {
	u := testUser(t, "the old password, long enough")
	inv, token := resetOf(t, u, 0)
	got, nu, err := inv.Accept(accounts.Acceptance{Token: token, UserID: "usr_2", Password: "a brand new password", Params: accounts.TestParams}, seeded(3), t0)
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvitationUnknown, "This invitation link is not valid.")
	assert.Equal(t, inv, got)
	assert.Zero(t, nu, "no second user of the email")
}

func TestAcceptReset(t *testing.T) {
	const old, next = "the old password, long enough", "a brand new password"
	u := testUser(t, old)
	u.TOTP = accounts.TOTP{Secret: "JBSWY3DPEHPK3PXP", Enrolled: true, EnrolledAt: t0, LastStep: 7}
	inv, token := resetOf(t, u, 0)
	a := accounts.Acceptance{Token: token, Password: next, Params: accounts.TestParams}
	now := t0.Add(time.Hour)

	got, nu, err := inv.AcceptReset(a, u, seeded(40), now)
	require.NoError(t, err)
	assert.Equal(t, now, got.AcceptedAt)
	assert.Equal(t, "usr_1", got.UserID)
	assert.Equal(t, accounts.InvitationAccepted, got.Status(now))
	assert.True(t, nu.PasswordHash.Verify(next))
	assert.False(t, nu.PasswordHash.Verify(old))
	assert.Equal(t, u.TOTP, nu.TOTP, "the second factor stays")
	want := u
	want.PasswordHash = nu.PasswordHash
	assert.Equal(t, want, nu, "only the password changes")
	assert.True(t, u.PasswordHash.Verify(old), "the receiver's user is a value")
	assert.Zero(t, inv.AcceptedAt, "the receiver is a value")

	// Used once.
	_, _, err = got.AcceptReset(a, nu, seeded(41), now)
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvitationUsed, "")

	plain, plainToken := invite(t, 0)
	other := u
	other.ID = "usr_2"
	otherEmail := u
	otherEmail.Email = "bob@example.com"
	tests := []struct {
		name  string
		inv   accounts.Invitation
		u     accounts.User
		a     func(accounts.Acceptance) accounts.Acceptance
		at    time.Time
		code  errcode.Code
		cause error
	}{
		{"another token", inv, u, func(a accounts.Acceptance) accounts.Acceptance { a.Token = plainToken; return a }, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"malformed token", inv, u, func(a accounts.Acceptance) accounts.Acceptance { a.Token = "inv_x"; return a }, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"a wrong token comes before expiry", inv, u, func(a accounts.Acceptance) accounts.Acceptance { a.Token = "inv_x"; return a }, inv.ExpiresAt, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"at expiry", inv, u, nil, inv.ExpiresAt, errcode.Unauthorized, accounts.ErrInvitationExpired},
		{"revoked", func() accounts.Invitation { r, _ := inv.Revoke(t0); return r }(), u, nil, now, errcode.Unauthorized, accounts.ErrInvitationRevoked},
		{"expiry comes before the user", inv, other, nil, inv.ExpiresAt, errcode.Unauthorized, accounts.ErrInvitationExpired},
		{"not a reset", plain, u, func(a accounts.Acceptance) accounts.Acceptance { a.Token = plainToken; return a }, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"another user", inv, other, nil, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"the user's email changed", inv, otherEmail, nil, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"the user comes before the password", inv, other, func(a accounts.Acceptance) accounts.Acceptance { a.Password = "short"; return a }, now, errcode.Unauthorized, accounts.ErrInvitationUnknown},
		{"short password", inv, u, func(a accounts.Acceptance) accounts.Acceptance { a.Password = "short"; return a }, now, errcode.ValidationError, accounts.ErrPasswordTooShort},
		{"the email as password", inv, u, func(a accounts.Acceptance) accounts.Acceptance { a.Password = "ALICE@example.com"; return a }, now, errcode.ValidationError, accounts.ErrPasswordIsEmail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			aa := a
			if tt.a != nil {
				aa = tt.a(a)
			}
			got, gu, err := tt.inv.AcceptReset(aa, tt.u, seeded(42), tt.at)
			assertCoded(t, err, tt.code, tt.cause, "")
			assert.Equal(t, tt.inv, got, "unchanged on an error")
			assert.Equal(t, tt.u, gu, "unchanged on an error")
		})
	}

	_, _, err = inv.AcceptReset(a, u, failing{}, now)
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
}
