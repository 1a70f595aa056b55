package accounts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

func TestPermit(t *testing.T) {
	u := testUser(t, "correct horse battery staple")
	s, _, err := accounts.NewSession(u.ID, accounts.StageSignedIn, seeded(4), t0)
	require.NoError(t, err)

	assert.NoError(t, accounts.Permit(s, u, false, t0, accounts.Need{}))
	assert.NoError(t, accounts.Permit(s, u, false, t0, accounts.Need{Org: true}))
	assertCoded(t, accounts.Permit(s, u, false, t0, accounts.Need{Staff: true}), errcode.Forbidden, nil, "")

	// Authorize's refusal, unless the call allows its cause.
	assertCoded(t, accounts.Permit(s, u, true, t0, accounts.Need{}), errcode.Forbidden, accounts.ErrTOTPRequired, "")
	assert.NoError(t, accounts.Permit(s, u, true, t0, accounts.Need{Allow: []error{accounts.ErrTOTPRequired}}))
	// A cause allowed never lets a missing organization through.
	staff := u
	staff.Role, staff.Org, staff.StaffRoles = accounts.RoleStaff, "", []accounts.StaffRole{accounts.StaffAdmin}
	assertCoded(t, accounts.Permit(s, staff, true, t0, accounts.Need{Org: true, Allow: []error{accounts.ErrTOTPRequired}}), errcode.Forbidden, nil, "")

	// Authorize comes first: an ended session is unauthorized whatever
	// the need.
	ended := s.End(accounts.EndLogout, t0)
	assertCoded(t, accounts.Permit(ended, staff, false, t0, accounts.Need{Org: true}), errcode.Unauthorized, accounts.ErrSessionEnded, "")
}

func TestPeopleRole(t *testing.T) {
	assert.Equal(t, accounts.StaffAdmin, accounts.PeopleRole(""))
	assert.Equal(t, accounts.StaffOperations, accounts.PeopleRole("org_1"))
}

func TestRecheck(t *testing.T) {
	u := testUser(t, "correct horse battery staple")
	other := u
	other.PasswordHash = "changed"
	wrong := accounts.InvalidCredentials()

	refused, stale := accounts.Recheck(&u, &u, nil, false)
	assert.NoError(t, refused)
	assert.False(t, stale)
	refused, _ = accounts.Recheck(&u, &u, wrong, false)
	assert.Equal(t, wrong, refused)
	refused, stale = accounts.Recheck(nil, nil, wrong, false)
	assert.Equal(t, wrong, refused)
	assert.False(t, stale)

	// Gone meanwhile.
	refused, stale = accounts.Recheck(&u, nil, nil, false)
	assertCoded(t, refused, errcode.Unauthorized, accounts.ErrInvalidCredentials, "")
	assert.False(t, stale)
	// Changed: stale once, then refused.
	refused, stale = accounts.Recheck(&u, &other, nil, false)
	assert.NoError(t, refused)
	assert.True(t, stale)
	refused, stale = accounts.Recheck(&u, &other, nil, true)
	assertCoded(t, refused, errcode.Unauthorized, accounts.ErrInvalidCredentials, "")
	assert.False(t, stale)
	// Created meanwhile.
	_, stale = accounts.Recheck(nil, &u, wrong, false)
	assert.True(t, stale)
	disabled := u.Disable(t0)
	assert.False(t, accounts.SameCredentials(&u, &disabled))
	assert.True(t, accounts.SameCredentials(&u, &u))
}

func TestRecheckPassword(t *testing.T) {
	u := testUser(t, "correct horse battery staple")
	other := u
	other.PasswordHash = "changed"

	refused, stale := accounts.RecheckPassword(u, u, nil, false)
	assert.NoError(t, refused)
	assert.False(t, stale)
	_, stale = accounts.RecheckPassword(u, other, nil, false)
	assert.True(t, stale)
	refused, stale = accounts.RecheckPassword(u, other, nil, true)
	assertCoded(t, refused, errcode.Unauthorized, accounts.ErrWrongPassword, "")
	assert.False(t, stale)
}

func TestStillAcceptedAndResettable(t *testing.T) {
	a := accounts.Invitation{ID: "inv_1", Role: accounts.RoleStaff}
	assert.NoError(t, a.StillAccepted(a))
	assertCoded(t, a.StillAccepted(accounts.Invitation{ID: "inv_2"}), errcode.Unauthorized, nil, "")
	assert.True(t, a.ForStaff())
	assert.False(t, accounts.Invitation{Role: accounts.RoleOrgAdmin}.ForStaff())

	u := testUser(t, "correct horse battery staple")
	assert.NoError(t, accounts.StillResettable(u, u))
	changed := u
	changed.PasswordHash = "changed"
	assertCoded(t, accounts.StillResettable(u, changed), errcode.Unauthorized, nil, "")
}

func TestIsTOTPCode(t *testing.T) {
	assert.True(t, accounts.IsTOTPCode("123456"))
	assert.True(t, accounts.IsTOTPCode("123 456"))
	assert.False(t, accounts.IsTOTPCode("12345"))
	assert.False(t, accounts.IsTOTPCode("abcd-efgh"))
}
