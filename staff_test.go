package tambala_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

// staffMember invites email to the operator's staff with roles, accepts,
// enrols TOTP (required of every staff user) and returns the user and a
// signed-in session's token.
func (p *portalEnv) staffMember(t *testing.T, email string, roles ...accounts.StaffRole) (tambala.User, string) {
	t.Helper()
	return enrolStaff(t, p.e, p.ctx, p.clock, email, roles...)
}

// enrolStaff is staffMember for any engine and clock.
func enrolStaff(t *testing.T, e *tambala.Engine, ctx context.Context, clock *fakeClock, email string, roles ...accounts.StaffRole) (tambala.User, string) {
	t.Helper()
	inv, err := e.People().InviteUser(ctx, tambala.InviteUser{Email: email, StaffRoles: roles})
	require.NoError(t, err)
	assert.Equal(t, accounts.RoleStaff, inv.Invitation.Role)
	u, err := e.StaffSessions().AcceptInvitation(ctx, inv.Token, portalPassword)
	require.NoError(t, err)
	r, err := e.StaffSessions().SignIn(ctx, email, portalPassword)
	require.NoError(t, err)
	require.Equal(t, accounts.StageEnrolTOTP, r.Stage, "TOTP is required of every staff user")
	_, err = e.Sessions().Operator(ctx, r.Token)
	assert.ErrorIs(t, err, accounts.ErrTOTPRequired)
	enrol, err := e.Sessions().BeginTOTP(ctx, r.Token)
	require.NoError(t, err)
	code, err := accounts.TOTPCode(enrol.Secret, clock.Now())
	require.NoError(t, err)
	done, err := e.Sessions().ConfirmTOTP(ctx, r.Token, code)
	require.NoError(t, err)
	return u, done.Session.Token
}

// TestStaffRoles: the engine enforces each staff role on the Operator
// and Accounts faces of a signed-in staff user, records the user as the
// actor, and keeps staff and organizations' users apart.
func TestStaffRoles(t *testing.T) {
	eachStore(t, func(t *testing.T, s store.Store) {
		p := newPortalEnv(t, s)
		forbidden := func(err error, what string) {
			t.Helper()
			assert.Equal(t, errcode.Forbidden, errcode.Of(err), what)
		}
		desk, deskToken := p.staffMember(t, "desk@operator.example", accounts.StaffDesk)
		_, supportToken := p.staffMember(t, "support@operator.example", accounts.StaffSupport)
		_, opsToken := p.staffMember(t, "ops@operator.example", accounts.StaffOperations)
		admin, adminToken := p.staffMember(t, "admin@operator.example", accounts.StaffAdmin)
		assert.Equal(t, []accounts.StaffRole{accounts.StaffDesk}, desk.StaffRoles)
		assert.Empty(t, desk.Org)

		deskOp, err := p.e.Sessions().Operator(p.ctx, deskToken)
		require.NoError(t, err)
		supportOp, err := p.e.Sessions().Operator(p.ctx, supportToken)
		require.NoError(t, err)
		opsOp, err := p.e.Sessions().Operator(p.ctx, opsToken)
		require.NoError(t, err)

		// Every role reads.
		for name, op := range map[string]*tambala.Operator{"desk": deskOp, "support": supportOp, "operations": opsOp} {
			_, err := op.Organizations(p.ctx)
			assert.NoError(t, err, name)
			_, err = op.Desk().Corridors(p.ctx)
			assert.NoError(t, err, name)
		}
		// Support changes nothing; desk sets corridors but funds nothing;
		// operations funds but sets no corridor.
		forbidden(supportOp.Fund(p.ctx, p.org, money.FromInt(money.MWK, 1), "s-1"), "support funds")
		_, err = supportOp.Desk().SetCorridor(p.ctx, deskCorridor())
		forbidden(err, "support sets a corridor")
		forbidden(deskOp.Fund(p.ctx, p.org, money.FromInt(money.MWK, 1), "d-1"), "desk funds")
		_, err = opsOp.Desk().SetCorridor(p.ctx, deskCorridor())
		forbidden(err, "operations sets a corridor")
		_, err = deskOp.Desk().SetCorridor(p.ctx, deskCorridor())
		require.NoError(t, err)
		require.NoError(t, opsOp.Fund(p.ctx, p.org, money.FromInt(money.MWK, 5), "o-1"))

		// The actor is the staff user.
		trail, err := p.e.People().AuditTrail(p.ctx, tambala.PageRequest{Limit: 2}, tambala.AuditFilter{})
		require.NoError(t, err)
		require.Len(t, trail.Items, 2)
		assert.Equal(t, tambala.AuditOrgFunded, trail.Items[0].Action)
		assert.Equal(t, tambala.ActorStaff, trail.Items[0].Actor.Kind)
		assert.Equal(t, "ops@operator.example", trail.Items[0].Actor.Email)
		assert.Equal(t, tambala.AuditCorridorSet, trail.Items[1].Action)
		assert.Equal(t, tambala.AuditActor{Kind: tambala.ActorStaff, ID: desk.ID, Email: desk.Email}, trail.Items[1].Actor)

		// People: the staff admin manages the staff, operations an
		// organization's people; neither the other's.
		adminAcc, err := p.e.Sessions().People(p.ctx, adminToken)
		require.NoError(t, err)
		opsAcc, err := p.e.Sessions().People(p.ctx, opsToken)
		require.NoError(t, err)
		_, err = opsAcc.InviteUser(p.ctx, tambala.InviteUser{Email: "new@operator.example", StaffRoles: []accounts.StaffRole{accounts.StaffAdmin}})
		forbidden(err, "operations invites staff")
		_, err = adminAcc.InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: "ada@example.com"})
		forbidden(err, "the staff admin invites an organization's user")
		inv, err := opsAcc.InviteUser(p.ctx, tambala.InviteUser{Org: p.org, Email: "ada@example.com"})
		require.NoError(t, err)
		assert.Equal(t, "ops@operator.example", inv.Invitation.InvitedBy)
		_, err = adminAcc.InviteUser(p.ctx, tambala.InviteUser{Email: "new@operator.example"})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "a staff user needs a role")
		_, err = adminAcc.InviteUser(p.ctx, tambala.InviteUser{Email: "new@operator.example", StaffRoles: []accounts.StaffRole{"root"}})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))
		_, err = adminAcc.InviteUser(p.ctx, tambala.InviteUser{Email: "new@operator.example", StaffRoles: []accounts.StaffRole{accounts.StaffSupport}})
		require.NoError(t, err)
		_, err = opsAcc.DisableUser(p.ctx, desk.ID)
		forbidden(err, "operations disables staff")
		staff, err := opsAcc.Users(p.ctx, "")
		require.NoError(t, err, "every role reads")
		assert.Len(t, staff, 4)

		// Roles change at once, for sessions already open.
		_, err = opsAcc.SetStaffRoles(p.ctx, desk.ID, []accounts.StaffRole{accounts.StaffOperations})
		forbidden(err, "operations sets roles")
		u, err := adminAcc.SetStaffRoles(p.ctx, desk.ID, []accounts.StaffRole{accounts.StaffSupport, accounts.StaffOperations, accounts.StaffSupport})
		require.NoError(t, err)
		assert.Equal(t, []accounts.StaffRole{accounts.StaffOperations, accounts.StaffSupport}, u.StaffRoles)
		_, err = deskOp.Desk().SetCorridor(p.ctx, deskCorridor())
		forbidden(err, "desk role taken away")
		require.NoError(t, deskOp.Fund(p.ctx, p.org, money.FromInt(money.MWK, 1), "d-2"))
		_, err = adminAcc.SetStaffRoles(p.ctx, desk.ID, nil)
		assert.Equal(t, errcode.ValidationError, errcode.Of(err))

		// Staff and organizations' users are kept apart.
		org := p.person(t, p.org, "bo@example.com")
		assert.Empty(t, org.StaffRoles)
		r := p.signIn(t, "bo@example.com")
		_, err = p.e.Sessions().Operator(p.ctx, r.Token)
		forbidden(err, "an organization's admin on the operator's face")
		_, err = p.e.Sessions().People(p.ctx, r.Token)
		forbidden(err, "an organization's admin on the people face")
		_, err = p.e.Sessions().Admin(p.ctx, adminToken)
		forbidden(err, "staff on an organization's admin face")
		_, err = adminAcc.SetStaffRoles(p.ctx, org.ID, []accounts.StaffRole{accounts.StaffAdmin})
		assert.Equal(t, errcode.ValidationError, errcode.Of(err), "an organization's user has no staff roles")

		// A disabled staff user's face stops at the next call (another
		// staff admin first: the last active one cannot be disabled).
		p.staffMember(t, "admin2@operator.example", accounts.StaffAdmin)
		_, err = adminAcc.DisableUser(p.ctx, admin.ID)
		require.NoError(t, err)
		_, err = adminAcc.Users(p.ctx, "")
		assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
	})
}
