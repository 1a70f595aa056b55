package tambala_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/store"
)

// TestInvitationAudience: an invitation, or a password reset, is
// accepted only at the face of its audience. Engine.Sessions (the public
// portal) answers a staff member's token as a token no invitation has,
// and Engine.StaffSessions (the console) an organization user's, on the
// read of the page and on the acceptance; neither uses the invitation up.
func TestInvitationAudience(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		unknown := func(err error, what string) {
			t.Helper()
			assert.Equal(t, errcode.Unauthorized, errcode.Of(err), what)
			assert.ErrorIs(t, err, accounts.ErrInvitationUnknown, what)
		}
		staff, err := p.e.People().InviteUser(p.ctx, tambala.InviteUser{Email: "desk@operator.example",
			StaffRoles: []accounts.StaffRole{accounts.StaffDesk}})
		require.NoError(t, err)
		org, err := p.e.People().InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: "ada@example.com"})
		require.NoError(t, err)

		_, err = p.e.Sessions().Invitation(p.ctx, staff.Token)
		unknown(err, "a staff invitation read at the portal")
		_, err = p.e.Sessions().AcceptInvitation(p.ctx, staff.Token, portalPassword)
		unknown(err, "a staff invitation accepted at the portal")
		_, err = p.e.StaffSessions().Invitation(p.ctx, org.Token)
		unknown(err, "an organization's invitation read at the console")
		_, err = p.e.StaffSessions().AcceptInvitation(p.ctx, org.Token, portalPassword)
		unknown(err, "an organization's invitation accepted at the console")

		_, err = p.e.StaffSessions().Invitation(p.ctx, staff.Token)
		require.NoError(t, err)
		desk, err := p.e.StaffSessions().AcceptInvitation(p.ctx, staff.Token, portalPassword)
		require.NoError(t, err)
		ada, err := p.e.Sessions().AcceptInvitation(p.ctx, org.Token, portalPassword)
		require.NoError(t, err)

		// A password reset follows its user's audience.
		deskReset, err := p.e.People().ResetPassword(p.ctx, desk.ID, 0)
		require.NoError(t, err)
		adaReset, err := p.e.People().ResetPassword(p.ctx, ada.ID, 0)
		require.NoError(t, err)
		_, err = p.e.Sessions().AcceptInvitation(p.ctx, deskReset.Token, "a new staff passphrase")
		unknown(err, "a staff reset at the portal")
		_, err = p.e.StaffSessions().AcceptInvitation(p.ctx, adaReset.Token, "a new org passphrase")
		unknown(err, "an organization user's reset at the console")
		_, err = p.e.StaffSessions().AcceptInvitation(p.ctx, deskReset.Token, "a new staff passphrase")
		require.NoError(t, err)
		_, err = p.e.Sessions().AcceptInvitation(p.ctx, adaReset.Token, "a new org passphrase")
		require.NoError(t, err)
	})
}
