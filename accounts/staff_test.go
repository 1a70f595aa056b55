package accounts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

func TestStaffRolesRules(t *testing.T) {
	tests := []struct {
		name  string
		role  accounts.Role
		org   string
		roles []accounts.StaffRole
		want  []accounts.StaffRole
		code  errcode.Code
	}{
		{"staff with one role", accounts.RoleStaff, "", []accounts.StaffRole{accounts.StaffDesk}, []accounts.StaffRole{accounts.StaffDesk}, ""},
		{"staff roles sorted, repeats dropped", accounts.RoleStaff, "",
			[]accounts.StaffRole{accounts.StaffSupport, accounts.StaffAdmin, accounts.StaffSupport},
			[]accounts.StaffRole{accounts.StaffAdmin, accounts.StaffSupport}, ""},
		{"staff without a role", accounts.RoleStaff, "", nil, nil, errcode.ValidationError},
		{"an unknown staff role", accounts.RoleStaff, "", []accounts.StaffRole{"root"}, nil, errcode.ValidationError},
		{"staff in an organization", accounts.RoleStaff, "org_1", []accounts.StaffRole{accounts.StaffDesk}, nil, errcode.ValidationError},
		{"an org admin", accounts.RoleOrgAdmin, "org_1", nil, nil, ""},
		{"an org admin with staff roles", accounts.RoleOrgAdmin, "org_1", []accounts.StaffRole{accounts.StaffDesk}, nil, errcode.ValidationError},
	}
	for _, tt := range tests {
		u, err := accounts.NewUser(accounts.UserRequest{ID: "usr_1", Email: "a@example.com", Role: tt.role, Org: tt.org, StaffRoles: tt.roles}, t0)
		if tt.code != "" {
			assert.Equal(t, tt.code, errcode.Of(err), tt.name)
			assert.ErrorIs(t, err, accounts.ErrInvalidRole, tt.name)
			continue
		}
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, u.StaffRoles, tt.name)
	}
}

func TestStaffMay(t *testing.T) {
	staff := func(roles ...accounts.StaffRole) accounts.User {
		u, err := accounts.NewUser(accounts.UserRequest{ID: "usr_1", Email: "a@example.com", Role: accounts.RoleStaff, StaffRoles: roles}, t0)
		require.NoError(t, err)
		return u
	}
	orgAdmin, err := accounts.NewUser(accounts.UserRequest{ID: "usr_2", Email: "b@example.com", Role: accounts.RoleOrgAdmin, Org: "org_1"}, t0)
	require.NoError(t, err)
	tests := []struct {
		name string
		u    accounts.User
		need accounts.StaffRole
		want bool
	}{
		{"support reads", staff(accounts.StaffSupport), "", true},
		{"support does not move orders", staff(accounts.StaffSupport), accounts.StaffDesk, false},
		{"desk moves orders", staff(accounts.StaffDesk), accounts.StaffDesk, true},
		{"desk does not fund", staff(accounts.StaffDesk), accounts.StaffOperations, false},
		{"two roles", staff(accounts.StaffDesk, accounts.StaffOperations), accounts.StaffOperations, true},
		{"admin manages staff", staff(accounts.StaffAdmin), accounts.StaffAdmin, true},
		{"an org admin reads nothing of the operator's", orgAdmin, "", false},
		{"an org admin moves nothing", orgAdmin, accounts.StaffDesk, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.u.May(tt.need), tt.name)
	}
	u, err := staff(accounts.StaffDesk).WithStaffRoles([]accounts.StaffRole{accounts.StaffSupport})
	require.NoError(t, err)
	assert.Equal(t, []accounts.StaffRole{accounts.StaffSupport}, u.StaffRoles)
	_, err = orgAdmin.WithStaffRoles([]accounts.StaffRole{accounts.StaffSupport})
	assert.ErrorIs(t, err, accounts.ErrInvalidRole)
}
