package tambala_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/ledger"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

const portalPassword = "correct horse battery staple"

type portalEnv struct {
	e     *tambala.Engine
	s     store.Store
	clock *fakeClock
	ctx   context.Context // from 192.0.2.1, request id req-1
	org   string
}

func newPortalEnv(t deskTB, s store.Store) *portalEnv {
	t.Helper()
	clock := &fakeClock{t: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}
	e, err := tambala.New(s, &tambala.Options{Clock: clock.Now, People: tambala.PeopleOptions{PasswordParams: accounts.TestParams}})
	require.NoError(t, err)
	ctx := tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr("192.0.2.1"), RequestID: "req-1"})
	org, err := e.Operator().CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	require.NoError(t, err)
	require.NoError(t, e.Operator().Fund(ctx, org.ID, money.FromInt(money.MWK, 1000), "opening"))
	return &portalEnv{e: e, s: s, clock: clock, ctx: ctx, org: org.ID}
}

// from is the env's context with another client address.
func (p *portalEnv) from(addr string) context.Context {
	return tambala.WithRequestInfo(context.Background(), tambala.RequestInfo{Address: netip.MustParseAddr(addr)})
}

// person invites email to org and accepts with portalPassword.
func (p *portalEnv) person(t deskTB, org, email string) tambala.User {
	t.Helper()
	inv, err := p.e.People().InviteUser(p.ctx, tambala.InviteUser{Org: org, Email: email})
	require.NoError(t, err)
	u, err := p.e.Sessions().AcceptInvitation(p.ctx, inv.Token, portalPassword)
	require.NoError(t, err)
	return u
}

func (p *portalEnv) signIn(t deskTB, email string) tambala.SignInResult {
	t.Helper()
	r, err := p.e.Sessions().SignIn(p.ctx, email, portalPassword)
	require.NoError(t, err)
	return r
}

// actions lists the actions of the trail, oldest first.
func (p *portalEnv) actions(t deskTB, org string) []tambala.AuditAction {
	t.Helper()
	page, err := p.e.People().AuditTrail(p.ctx, tambala.PageRequest{Limit: tambala.MaxPageSize}, tambala.AuditFilter{Org: org})
	require.NoError(t, err)
	out := []tambala.AuditAction{}
	for i := len(page.Items) - 1; i >= 0; i-- {
		out = append(out, page.Items[i].Action)
	}
	return out
}

func TestPortalSignInFlow(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		inv, err := p.e.People().InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: " Ada@Example.COM "})
		require.NoError(t, err)
		assert.Equal(t, "ada@example.com", inv.Invitation.Email)
		assert.Equal(t, accounts.InvitationPending, inv.Invitation.Status)
		assert.Equal(t, accounts.RoleOrgAdmin, inv.Invitation.Role)

		_, err = portal.AcceptInvitation(p.ctx, inv.Token, "short")
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))
		u, err := portal.AcceptInvitation(p.ctx, inv.Token, portalPassword)
		require.NoError(t, err)
		assert.Equal(t, "ada@example.com", u.Email)
		assert.Equal(t, p.org, u.Org)
		_, err = portal.AcceptInvitation(p.ctx, inv.Token, portalPassword)
		assert.ErrorIs(t, err, accounts.ErrInvitationUsed)
		_, err = portal.AcceptInvitation(p.ctx, "inv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", portalPassword)
		assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
		invs, err := p.e.People().Invitations(p.ctx, p.org)
		require.NoError(t, err)
		require.Len(t, invs, 1)
		assert.Equal(t, accounts.InvitationAccepted, invs[0].Status)
		assert.Equal(t, u.ID, invs[0].UserID)
		// The email is taken now: another invitation is conflict.
		_, err = p.e.People().InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: "ADA@example.com"})
		assert.Equal(t, errcode.Conflict, errcode.Of(err))

		r, err := portal.SignIn(p.ctx, "ADA@example.com", portalPassword)
		require.NoError(t, err)
		assert.Equal(t, accounts.StageSignedIn, r.Stage)
		assert.NoError(t, portal.CheckCSRF(r.Token, r.Session.CSRFToken))
		assert.Error(t, portal.CheckCSRF(r.Token, ""))

		p.clock.Advance(time.Minute)
		si, err := portal.Session(p.ctx, r.Token)
		require.NoError(t, err)
		assert.Equal(t, u.ID, si.User.ID)
		assert.Equal(t, p.clock.Now(), si.Session.LastSeenAt)

		// A session reaches its organization's Client, never the API's
		// authentication, and an API key is no session.
		pr, err := portal.Principal(p.ctx, r.Token)
		require.NoError(t, err)
		assert.Equal(t, p.org, pr.Org.ID)
		bal, err := p.e.Client(pr).V1().Balance(p.ctx)
		require.NoError(t, err)
		assert.Equal(t, "1000.00", bal.Available.String())
		_, err = p.e.Authenticate(p.ctx, r.Token)
		assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
		key, _, err := p.e.Operator().CreateKey(p.ctx, p.org)
		require.NoError(t, err)
		_, err = portal.Session(p.ctx, key)
		assert.Equal(t, errcode.Unauthorized, errcode.Of(err))

		// A suspended organization's Principal is refused.
		_, err = p.e.Operator().SetOrganizationStatus(p.ctx, p.org, tambala.OrgSuspended)
		require.NoError(t, err)
		_, err = portal.Principal(p.ctx, r.Token)
		assert.Equal(t, errcode.Forbidden, errcode.Of(err))
		_, err = p.e.Operator().SetOrganizationStatus(p.ctx, p.org, tambala.OrgActive)
		require.NoError(t, err)

		require.NoError(t, portal.SignOut(p.ctx, r.Token))
		require.NoError(t, portal.SignOut(p.ctx, r.Token)) // over already
		_, err = portal.Session(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionEnded)

		assert.Equal(t, []tambala.AuditAction{tambala.AuditOrgCreated, tambala.AuditOrgFunded, tambala.AuditUserInvited,
			tambala.AuditInvitationAccepted, tambala.AuditSignedIn, tambala.AuditKeyCreated, tambala.AuditOrgStatusChanged,
			tambala.AuditOrgStatusChanged, tambala.AuditSignedOut}, p.actions(t, p.org))
		page, err := p.e.People().AuditTrail(p.ctx, tambala.PageRequest{Limit: 1}, tambala.AuditFilter{})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		last := page.Items[0]
		assert.Equal(t, tambala.AuditSignedOut, last.Action)
		assert.Equal(t, tambala.AuditActor{Kind: tambala.ActorUser, ID: u.ID, Email: u.Email}, last.Actor)
		assert.Equal(t, netip.MustParseAddr("192.0.2.1"), last.Address)
		assert.Equal(t, "req-1", last.RequestID)
		assert.True(t, page.HasMore)
		require.NoError(t, ledger.CheckStore(p.ctx, s))
	})
}

func TestPortalSignInErrorsAreIdentical(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		p.person(t, p.org, "ada@example.com")
		off := p.person(t, p.org, "bob@example.com")
		_, err := p.e.People().DisableUser(p.ctx, off.ID)
		require.NoError(t, err)

		_, wrong := p.e.Sessions().SignIn(p.ctx, "ada@example.com", "not the password at all")
		_, unknown := p.e.Sessions().SignIn(p.ctx, "eve@example.com", "not the password at all")
		_, disabled := p.e.Sessions().SignIn(p.ctx, "bob@example.com", portalPassword)
		_, malformed := p.e.Sessions().SignIn(p.ctx, "not an email", portalPassword)
		for _, err := range []error{wrong, unknown, disabled, malformed} {
			require.Error(t, err)
			assert.Equal(t, wrong.Error(), err.Error())
			assert.ErrorIs(t, err, accounts.ErrInvalidCredentials)
			assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
		}
	})
}

func TestPortalThrottling(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		p.person(t, p.org, "ada@example.com")
		for range accounts.AccountPolicy.MaxFailures {
			_, err := portal.SignIn(p.ctx, "ada@example.com", "wrong password here")
			require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		}
		// Locked from that address: the right password is not even
		// checked there.
		_, err := portal.SignIn(p.ctx, "ada@example.com", portalPassword)
		require.ErrorIs(t, err, accounts.ErrThrottled)
		assert.Equal(t, errcode.RateLimited, errcode.Of(err))
		acts := p.actions(t, p.org)
		assert.Equal(t, tambala.AuditLockedOut, acts[len(acts)-1])
		failed := 0
		for _, a := range acts {
			if a == tambala.AuditSignInFailed {
				failed++
			}
		}
		assert.Equal(t, accounts.AccountPolicy.MaxFailures, failed)
		// The lock is the (account, address) pair's (#33): the owner,
		// elsewhere, still signs in.
		_, err = portal.SignIn(p.from("198.51.100.7"), "ada@example.com", portalPassword)
		require.NoError(t, err)
		// An unknown email is throttled alike.
		for range accounts.AccountPolicy.MaxFailures {
			_, err := portal.SignIn(p.from("198.51.100.8"), "eve@example.com", "wrong password here")
			require.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		}
		_, err = portal.SignIn(p.from("198.51.100.8"), "eve@example.com", "wrong password here")
		require.ErrorIs(t, err, accounts.ErrThrottled)

		p.clock.Advance(accounts.AccountPolicy.Window)
		r, err := portal.SignIn(p.ctx, "ada@example.com", portalPassword)
		require.NoError(t, err)
		assert.Equal(t, accounts.StageSignedIn, r.Stage)

		// One address guessing at many accounts is stopped by its own
		// throttle; another address is not.
		attacker := p.from("203.0.113.9")
		for i := range accounts.AddressPolicy.MaxFailures {
			email := string(rune('a'+i%26)) + "x" + string(rune('a'+i/26)) + "@example.net"
			_, err := portal.SignIn(attacker, email, "wrong password here")
			require.ErrorIs(t, err, accounts.ErrInvalidCredentials, "attempt %d", i)
		}
		_, err = portal.SignIn(attacker, "ada@example.com", portalPassword)
		require.ErrorIs(t, err, accounts.ErrThrottled)
		_, err = portal.SignIn(p.from("2001:db8::1"), "ada@example.com", portalPassword)
		require.NoError(t, err)
	})
}

func TestPortalTOTP(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		u := p.person(t, p.org, "ada@example.com")
		require.NoError(t, p.e.People().SetTOTPRequired(p.ctx, p.org, true))
		req, err := p.e.People().TOTPRequired(p.ctx, p.org)
		require.NoError(t, err)
		assert.True(t, req)

		r := p.signIn(t, "ada@example.com")
		require.Equal(t, accounts.StageEnrolTOTP, r.Stage)
		_, err = portal.Session(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrTOTPRequired)
		_, err = portal.Principal(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrTOTPRequired)

		enrol, err := portal.BeginTOTP(p.ctx, r.Token)
		require.NoError(t, err)
		_, err = portal.ConfirmTOTP(p.ctx, r.Token, "000000")
		assert.ErrorIs(t, err, accounts.ErrInvalidCode)
		code, err := accounts.TOTPCode(enrol.Secret, p.clock.Now())
		require.NoError(t, err)
		done, err := portal.ConfirmTOTP(p.ctx, r.Token, code)
		require.NoError(t, err)
		require.Len(t, done.RecoveryCodes, accounts.RecoveryCodeCount)
		assert.Equal(t, accounts.StageSignedIn, done.Session.Stage)
		_, err = portal.Session(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionEnded, "the enrolment's session was rotated")
		_, err = portal.Session(p.ctx, done.Session.Token)
		require.NoError(t, err)
		require.NoError(t, portal.SignOut(p.ctx, done.Session.Token))

		// Now every sign-in waits for a code: a TOTP code, once.
		p.clock.Advance(accounts.TOTPPeriod)
		r = p.signIn(t, "ada@example.com")
		require.Equal(t, accounts.StageSecondFactor, r.Stage)
		_, err = portal.Session(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrSecondFactorRequired)
		code, err = accounts.TOTPCode(enrol.Secret, p.clock.Now())
		require.NoError(t, err)
		in, err := portal.SecondFactor(p.ctx, r.Token, code)
		require.NoError(t, err)
		assert.Equal(t, accounts.StageSignedIn, in.Stage)
		_, err = portal.Session(p.ctx, in.Token)
		require.NoError(t, err)
		_, err = portal.SecondFactor(p.ctx, in.Token, code)
		assert.Equal(t, errcode.Conflict, errcode.Of(err))

		r = p.signIn(t, "ada@example.com")
		_, err = portal.SecondFactor(p.ctx, r.Token, code)
		assert.ErrorIs(t, err, accounts.ErrCodeReplayed)
		// A recovery code, once.
		in, err = portal.SecondFactor(p.ctx, r.Token, done.RecoveryCodes[0])
		require.NoError(t, err)
		si, err := portal.Session(p.ctx, in.Token)
		require.NoError(t, err)
		assert.Equal(t, accounts.RecoveryCodeCount-1, si.User.RecoveryCodesLeft)
		r = p.signIn(t, "ada@example.com")
		_, err = portal.SecondFactor(p.ctx, r.Token, done.RecoveryCodes[0])
		assert.ErrorIs(t, err, accounts.ErrInvalidCode)

		// The operator resets the lost device: every session ends, and the
		// next sign-in enrols again.
		_, err = p.e.People().ResetTOTP(p.ctx, u.ID)
		require.NoError(t, err)
		_, err = portal.Session(p.ctx, in.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionEnded)
		assert.Equal(t, accounts.StageEnrolTOTP, p.signIn(t, "ada@example.com").Stage)

		assert.Contains(t, p.actions(t, p.org), tambala.AuditTOTPEnrolled)
		assert.Contains(t, p.actions(t, p.org), tambala.AuditSecondFactorFailed)
		assert.Contains(t, p.actions(t, p.org), tambala.AuditSecondFactorPassed)
		assert.Contains(t, p.actions(t, p.org), tambala.AuditTOTPReset)
	})
}

// Wrong second-factor codes lock the account even across new sign-ins:
// a right password does not clear the failures of the code.
func TestPortalSecondFactorThrottle(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		p.person(t, p.org, "ada@example.com")
		r := p.signIn(t, "ada@example.com")
		enrol, err := portal.BeginTOTP(p.ctx, r.Token)
		require.NoError(t, err)
		code, _ := accounts.TOTPCode(enrol.Secret, p.clock.Now())
		_, err = portal.ConfirmTOTP(p.ctx, r.Token, code)
		require.NoError(t, err)
		for i := range accounts.AccountPolicy.MaxFailures {
			r := p.signIn(t, "ada@example.com")
			require.Equal(t, accounts.StageSecondFactor, r.Stage)
			_, err := portal.SecondFactor(p.ctx, r.Token, "000000")
			require.ErrorIs(t, err, accounts.ErrInvalidCode, "attempt %d", i)
		}
		_, err = portal.SignIn(p.ctx, "ada@example.com", portalPassword)
		assert.ErrorIs(t, err, accounts.ErrThrottled)
	})
}

func TestPortalSessionExpiry(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		p.person(t, p.org, "ada@example.com")

		r := p.signIn(t, "ada@example.com")
		p.clock.Advance(accounts.IdleTimeout - time.Second)
		_, err := portal.Session(p.ctx, r.Token)
		require.NoError(t, err)
		p.clock.Advance(accounts.IdleTimeout)
		_, err = portal.Session(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionExpired, "idle")

		r = p.signIn(t, "ada@example.com")
		start := p.clock.Now()
		for p.clock.Now().Add(20 * time.Minute).Before(start.Add(accounts.AbsoluteTimeout)) {
			p.clock.Advance(20 * time.Minute)
			_, err := portal.Session(p.ctx, r.Token)
			require.NoError(t, err)
		}
		p.clock.Advance(start.Add(accounts.AbsoluteTimeout).Sub(p.clock.Now()))
		_, err = portal.Session(p.ctx, r.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionExpired, "absolute")
	})
}

func TestPortalOperatorEndsSessions(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		portal := p.e.Sessions()
		u := p.person(t, p.org, "ada@example.com")
		a, b := p.signIn(t, "ada@example.com"), p.signIn(t, "ada@example.com")

		n, err := p.e.People().EndSessions(p.ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		for _, tok := range []string{a.Token, b.Token} {
			_, err := portal.Session(p.ctx, tok)
			assert.ErrorIs(t, err, accounts.ErrSessionEnded)
		}

		c := p.signIn(t, "ada@example.com")
		off, err := p.e.People().DisableUser(p.ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, accounts.StatusDisabled, off.Status)
		_, err = portal.Session(p.ctx, c.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionEnded)
		_, err = portal.SignIn(p.ctx, "ada@example.com", portalPassword)
		assert.ErrorIs(t, err, accounts.ErrInvalidCredentials)
		on, err := p.e.People().EnableUser(p.ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, accounts.StatusActive, on.Status)
		d := p.signIn(t, "ada@example.com")

		// A password change keeps the session it was made in and ends the
		// others.
		e2 := p.signIn(t, "ada@example.com")
		err = portal.ChangePassword(p.ctx, d.Token, "wrong current password", "a brand new passphrase")
		assert.ErrorIs(t, err, accounts.ErrWrongPassword)
		require.NoError(t, portal.ChangePassword(p.ctx, d.Token, portalPassword, "a brand new passphrase"))
		_, err = portal.Session(p.ctx, d.Token)
		require.NoError(t, err)
		_, err = portal.Session(p.ctx, e2.Token)
		assert.ErrorIs(t, err, accounts.ErrSessionEnded)
		_, err = portal.SignIn(p.ctx, "ada@example.com", "a brand new passphrase")
		require.NoError(t, err)

		users, err := p.e.People().Users(p.ctx, p.org)
		require.NoError(t, err)
		require.Len(t, users, 1)
		got, err := p.e.People().User(p.ctx, u.ID)
		require.NoError(t, err)
		assert.Equal(t, users[0], got)
		_, err = p.e.People().User(p.ctx, "nobody")
		assert.Equal(t, errcode.NotFound, errcode.Of(err))

		assert.Equal(t, []tambala.AuditAction{tambala.AuditOrgCreated, tambala.AuditOrgFunded, tambala.AuditUserInvited,
			tambala.AuditInvitationAccepted, tambala.AuditSignedIn, tambala.AuditSignedIn, tambala.AuditSessionsEnded, tambala.AuditSignedIn,
			tambala.AuditUserDisabled, tambala.AuditSignInFailed, tambala.AuditUserEnabled, tambala.AuditSignedIn,
			tambala.AuditSignedIn, tambala.AuditPasswordChangeFailed, tambala.AuditPasswordChanged, tambala.AuditSignedIn},
			p.actions(t, p.org))
	})
}

func TestAuditTrail(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		acc := p.e.People()
		other, err := p.e.Operator().CreateOrganization(p.ctx, tambala.NewOrganization{Name: "Other Ltd"})
		require.NoError(t, err)
		p.person(t, p.org, "ada@example.com")
		p.person(t, other.ID, "olu@example.org")
		before := p.actions(t, "")

		// Changes that do not commit write no entry.
		_, err = acc.InviteUser(p.ctx, tambala.InviteUser{Org: other.ID, Email: "ada@example.com"})
		assert.Equal(t, errcode.Conflict, errcode.Of(err))
		_, err = acc.InviteUser(p.ctx, tambala.InviteUser{Org: "nowhere", Email: "new@example.com"})
		assert.Equal(t, errcode.NotFound, errcode.Of(err))
		_, err = acc.InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: "new@example.com", TTL: time.Minute})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))
		r := p.signIn(t, "ada@example.com")
		before = append(before, tambala.AuditSignedIn)
		err = p.e.Sessions().ChangePassword(p.ctx, r.Token, portalPassword, "short")
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))
		require.NoError(t, acc.SetTOTPRequired(p.ctx, p.org, false)) // no change
		assert.Equal(t, before, p.actions(t, ""))

		inv, err := acc.InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: "cy@example.com"})
		require.NoError(t, err)
		revoked, err := acc.RevokeInvitation(p.ctx, p.org, inv.Invitation.ID)
		require.NoError(t, err)
		assert.Equal(t, accounts.InvitationRevoked, revoked.Status)
		_, err = p.e.Sessions().AcceptInvitation(p.ctx, inv.Token, portalPassword)
		assert.ErrorIs(t, err, accounts.ErrInvitationRevoked)
		_, err = acc.RevokeInvitation(p.ctx, other.ID, inv.Invitation.ID)
		assert.Equal(t, errcode.NotFound, errcode.Of(err))

		// The org admin reads their organization's entries alone.
		all := p.actions(t, "")
		mine, err := p.e.Sessions().AuditTrail(p.ctx, r.Token, tambala.PageRequest{Limit: tambala.MaxPageSize})
		require.NoError(t, err)
		require.NotEmpty(t, mine.Items)
		for _, a := range mine.Items {
			assert.Equal(t, p.org, a.Org)
		}
		theirs := p.actions(t, other.ID)
		assert.Equal(t, len(all), len(mine.Items)+len(theirs))
		assert.Equal(t, tambala.AuditInvitationRevoked, mine.Items[0].Action)
		assert.Equal(t, tambala.ActorAutomation, mine.Items[0].Actor.Kind)

		// Pages, newest first, without gaps.
		var paged []tambala.AuditEntry
		req := tambala.PageRequest{Limit: 2}
		for {
			page, err := acc.AuditTrail(p.ctx, req, tambala.AuditFilter{})
			require.NoError(t, err)
			paged = append(paged, page.Items...)
			if !page.HasMore {
				break
			}
			req.BeforeID = page.NextBeforeID
		}
		require.Len(t, paged, len(all))
		for i := 1; i < len(paged); i++ {
			assert.Greater(t, paged[i-1].ID, paged[i].ID)
		}
	})
}
