package tambala_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/store"
)

const resetPassword = "a fresh passphrase after the reset"

func TestPasswordReset(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		u := p.person(t, p.org, "ada@example.com")
		a, b := p.signIn(t, "ada@example.com"), p.signIn(t, "ada@example.com")
		// Failed sign-ins short of a lockout, cleared by the reset.
		for range accounts.AccountPolicy.MaxFailures - 1 {
			_, err := portal.SignIn(p.from("198.51.100.7"), "ada@example.com", "a forgotten guess")
			require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		}

		reset, err := p.e.People().ResetPassword(p.ctx, u.ID, 0)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(reset.Token, accounts.InvitationTokenPrefix))
		ri := reset.Invitation
		assert.Equal(t, u.ID, ri.ResetOf)
		assert.Equal(t, "ada@example.com", ri.Email)
		assert.Equal(t, p.org, ri.Org)
		assert.Equal(t, u.Role, ri.Role)
		assert.Equal(t, accounts.InvitationPending, ri.Status)
		assert.Equal(t, p.clock.Now().Add(accounts.DefaultInvitationTTL), ri.ExpiresAt)

		// The token's page can tell it is a reset.
		seen, err := portal.Invitation(p.ctx, reset.Token)
		require.NoError(t, err)
		assert.Equal(t, ri, seen)

		// Issuing it changes nothing yet: the old password works.
		_, err = portal.Session(p.ctx, a.Token)
		require.NoError(t, err)

		_, err = portal.AcceptInvitation(p.ctx, reset.Token, "short")
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))
		_, err = portal.AcceptInvitation(p.ctx, reset.Token, "ADA@example.com")
		assert.ErrorIs(t, err, accounts.ErrPasswordIsEmail)
		got, err := portal.AcceptInvitation(p.ctx, reset.Token, resetPassword)
		require.NoError(t, err)
		assert.Equal(t, u.ID, got.ID, "the same user")
		assert.Equal(t, u.Email, got.Email)
		assert.Equal(t, u.CreatedAt, got.CreatedAt)

		// Every session ended; the old password no longer signs in, the new
		// one does, and the throttle was cleared (one more failure is no
		// lockout).
		for _, tok := range []string{a.Token, b.Token} {
			_, err := portal.Session(p.ctx, tok)
			assert.ErrorIs(t, err, accounts.ErrSessionEnded)
		}
		_, err = portal.SignIn(p.ctx, "ada@example.com", portalPassword)
		require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		r, err := portal.SignIn(p.ctx, "ada@example.com", resetPassword)
		require.NoError(t, err)
		assert.Equal(t, accounts.StageSignedIn, r.Stage)

		// Used once.
		_, err = portal.AcceptInvitation(p.ctx, reset.Token, "yet another passphrase")
		assert.ErrorIs(t, err, accounts.ErrInvitationUsed)
		_, err = portal.Invitation(p.ctx, reset.Token)
		assert.ErrorIs(t, err, accounts.ErrInvitationUsed)
		_, err = portal.SignIn(p.ctx, "ada@example.com", resetPassword)
		require.NoError(t, err)

		invs, err := p.e.People().Invitations(p.ctx, p.org)
		require.NoError(t, err)
		require.Len(t, invs, 2)
		assert.Equal(t, "", invs[0].ResetOf)
		assert.Equal(t, u.ID, invs[1].ResetOf)
		assert.Equal(t, accounts.InvitationAccepted, invs[1].Status)
		assert.Equal(t, u.ID, invs[1].UserID)
		users, err := p.e.People().Users(p.ctx, p.org)
		require.NoError(t, err)
		assert.Len(t, users, 1, "no second user")

		acts := p.actions(t, p.org)
		var tail []tambala.AuditAction
		for _, a := range acts {
			if a != tambala.AuditSignInFailed {
				tail = append(tail, a)
			}
		}
		assert.Equal(t, []tambala.AuditAction{tambala.AuditOrgCreated, tambala.AuditOrgFunded, tambala.AuditUserInvited,
			tambala.AuditInvitationAccepted, tambala.AuditSignedIn, tambala.AuditSignedIn, tambala.AuditPasswordResetIssued,
			tambala.AuditPasswordReset, tambala.AuditSignedIn, tambala.AuditSignedIn}, tail)

		page, err := p.e.People().AuditTrail(p.ctx, tambala.PageRequest{Limit: tambala.MaxPageSize}, tambala.AuditFilter{Org: p.org})
		require.NoError(t, err)
		var issued, done *tambala.AuditEntry
		for i := range page.Items {
			switch page.Items[i].Action {
			case tambala.AuditPasswordResetIssued:
				issued = &page.Items[i]
			case tambala.AuditPasswordReset:
				done = &page.Items[i]
			}
		}
		require.NotNil(t, issued)
		require.NotNil(t, done)
		assert.Equal(t, tambala.AuditActor{Kind: tambala.ActorAutomation}, issued.Actor)
		assert.Equal(t, ri.ID, issued.Target)
		assert.Equal(t, tambala.AuditActor{Kind: tambala.ActorUser, ID: u.ID, Email: u.Email}, done.Actor)
		assert.Equal(t, u.ID, done.Target)
		assert.Contains(t, done.Summary, "2 sessions ended")
		for _, e := range []*tambala.AuditEntry{issued, done} {
			assert.NotContains(t, e.Summary, reset.Token, "no secret in the trail")
			assert.NotContains(t, e.Summary, resetPassword)
			assert.NotContains(t, e.Summary, reset.Token[len(accounts.InvitationTokenPrefix):])
		}
	})
}

func TestPasswordResetKeepsTOTP(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		u := p.person(t, p.org, "ada@example.com")
		r := p.signIn(t, "ada@example.com")
		enrol, err := portal.BeginTOTP(p.ctx, r.Token)
		require.NoError(t, err)
		code, err := accounts.TOTPCode(enrol.Secret, p.clock.Now())
		require.NoError(t, err)
		_, err = portal.ConfirmTOTP(p.ctx, r.Token, code)
		require.NoError(t, err)

		reset, err := p.e.People().ResetPassword(p.ctx, u.ID, 0)
		require.NoError(t, err)
		got, err := portal.AcceptInvitation(p.ctx, reset.Token, resetPassword)
		require.NoError(t, err)
		assert.True(t, got.TOTPEnrolled, "a reset keeps the second factor")
		assert.Equal(t, accounts.RecoveryCodeCount, got.RecoveryCodesLeft)

		in, err := portal.SignIn(p.ctx, "ada@example.com", resetPassword)
		require.NoError(t, err)
		assert.Equal(t, accounts.StageSecondFactor, in.Stage, "the new password alone does not sign in")
	})
}

func TestPasswordResetRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		acc := p.e.People()
		u := p.person(t, p.org, "ada@example.com")

		_, err := acc.ResetPassword(p.ctx, "nobody", 0)
		assert.Equal(t, errcode.NotFound, errcode.Of(err))
		for _, ttl := range []time.Duration{time.Minute, 8 * 24 * time.Hour, -time.Hour} {
			_, err = acc.ResetPassword(p.ctx, u.ID, ttl)
			assert.ErrorIs(t, err, accounts.ErrInvalidTTL)
		}

		// Expired.
		short, err := acc.ResetPassword(p.ctx, u.ID, accounts.MinInvitationTTL)
		require.NoError(t, err)
		assert.Equal(t, p.clock.Now().Add(time.Hour), short.Invitation.ExpiresAt)
		p.clock.Advance(time.Hour)
		_, err = portal.AcceptInvitation(p.ctx, short.Token, resetPassword)
		assert.ErrorIs(t, err, accounts.ErrInvitationExpired)

		// Revoked.
		revoked, err := acc.ResetPassword(p.ctx, u.ID, 0)
		require.NoError(t, err)
		rv, err := acc.RevokeInvitation(p.ctx, p.org, revoked.Invitation.ID)
		require.NoError(t, err)
		assert.Equal(t, accounts.InvitationRevoked, rv.Status)
		assert.Equal(t, u.ID, rv.ResetOf)
		_, err = portal.AcceptInvitation(p.ctx, revoked.Token, resetPassword)
		assert.ErrorIs(t, err, accounts.ErrInvitationRevoked)

		// The password changed after the reset was issued but before it was
		// used: the reset still works (it is the operator's word), and it
		// is the reset's password that holds.
		live, err := acc.ResetPassword(p.ctx, u.ID, 0)
		require.NoError(t, err)
		si := p.signIn(t, "ada@example.com")
		require.NoError(t, portal.ChangePassword(p.ctx, si.Token, portalPassword, "changed in between, long"))
		_, err = portal.AcceptInvitation(p.ctx, live.Token, resetPassword)
		require.NoError(t, err)

		// Nothing but the reset's user: still the one user, its password
		// the reset's.
		users, err := acc.Users(p.ctx, p.org)
		require.NoError(t, err)
		assert.Len(t, users, 1)
		_, err = portal.SignIn(p.ctx, "ada@example.com", resetPassword)
		require.NoError(t, err)
		acts := p.actions(t, p.org)
		assert.Equal(t, tambala.AuditSignedIn, acts[len(acts)-1])
		assert.Equal(t, tambala.AuditPasswordReset, acts[len(acts)-2])
	})
}

// TestPasswordResetUserChangedMeanwhile: a password that changes while
// the reset's new one is hashed refuses the reset (unauthorized), which
// stays usable.
func TestPasswordResetUserChangedMeanwhile(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		w := &txWatchStore{Store: s}
		p := newPortalEnv(t, w)
		portal := p.e.Sessions()
		u := p.person(t, p.org, "ada@example.com")
		si := p.signIn(t, "ada@example.com")
		reset, err := p.e.People().ResetPassword(p.ctx, u.ID, 0)
		require.NoError(t, err)

		once := true
		tambala.SetPasswordWorkHook(p.e, func() {
			if once {
				once = false // an Update: none may be open here
				require.NoError(t, portal.ChangePassword(p.ctx, si.Token, portalPassword, "changed in between, long"))
			}
		})
		_, err = portal.AcceptInvitation(p.ctx, reset.Token, resetPassword)
		assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
		_, err = portal.SignIn(p.ctx, "ada@example.com", "changed in between, long")
		require.NoError(t, err, "the concurrent change holds")
		_, err = portal.SignIn(p.ctx, "ada@example.com", resetPassword)
		require.ErrorIs(t, err, accounts.ErrInvalidCredentials)

		tambala.SetPasswordWorkHook(p.e, nil)
		_, err = portal.AcceptInvitation(p.ctx, reset.Token, resetPassword)
		require.NoError(t, err, "still usable")
		_, err = portal.SignIn(p.ctx, "ada@example.com", resetPassword)
		require.NoError(t, err)
	})
}

// TestPasswordResetNotAnInvitation: a reset's token cannot make a user
// through an invitation's path, nor an invitation's token reset a user.
func TestPasswordResetNotAnInvitation(t *testing.T) {
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	u, err := accounts.NewUser(accounts.UserRequest{ID: "usr_1", Email: "ada@example.com", Role: accounts.RoleOrgAdmin, Org: "org_1"}, now)
	require.NoError(t, err)
	inv, token, err := accounts.Invite(accounts.InvitationRequest{ID: "i", Email: u.Email, Org: u.Org, Role: u.Role, ResetOf: u.ID}, strings.NewReader(strings.Repeat("x", 64)), now)
	require.NoError(t, err)
	_, nu, err := inv.Accept(accounts.Acceptance{Token: token, UserID: "usr_2", Password: resetPassword, Params: accounts.TestParams}, strings.NewReader(strings.Repeat("y", 64)), now)
	assert.ErrorIs(t, err, accounts.ErrInvitationUnknown)
	assert.Zero(t, nu)

	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		inv, err := p.e.People().InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: "bo@example.com"})
		require.NoError(t, err)
		seen, err := portal.Invitation(p.ctx, inv.Token)
		require.NoError(t, err)
		assert.Equal(t, "", seen.ResetOf)
		_, err = portal.Invitation(p.ctx, "inv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
		assert.ErrorIs(t, err, accounts.ErrInvitationUnknown)
		_, err = portal.Invitation(p.ctx, "junk")
		assert.ErrorIs(t, err, accounts.ErrInvitationUnknown)
	})
}
