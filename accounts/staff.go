package accounts

import (
	"slices"

	"github.com/tambalapay/tambala/errcode"
)

// StaffRole is what one of the operator's staff may do. A staff user has
// one or more; every staff role reads everything.
type StaffRole string

const (
	// StaffDesk moves desk orders, issues funding instructions, reviews
	// proofs, and sets corridors, rates and asset limits.
	StaffDesk StaffRole = "desk"
	// StaffOperations manages organizations (creation, assets, /v2
	// access, status, payout limits, keys, settings), funds them, records
	// deposits, collections and trades, runs the pause switches and the
	// rails, resolves payouts in flight, redelivers dead letters, claws
	// back payouts and reverses collections.
	StaffOperations StaffRole = "operations"
	// StaffSupport reads everything and changes nothing.
	StaffSupport StaffRole = "support"
	// StaffAdmin manages the staff: invitations, roles, sessions.
	StaffAdmin StaffRole = "admin"
)

// StaffRoles lists every staff role, sorted.
func StaffRoles() []StaffRole {
	return []StaffRole{StaffAdmin, StaffDesk, StaffOperations, StaffSupport}
}

// Valid reports whether r is a staff role this package knows.
func (r StaffRole) Valid() bool { return slices.Contains(StaffRoles(), r) }

// CheckStaffRoles checks a staff user's roles: at least one, each known
// (validation_error, ErrInvalidRole), and returns them sorted without
// repeats.
func CheckStaffRoles(roles []StaffRole) ([]StaffRole, error) {
	if len(roles) == 0 {
		return nil, coded(errcode.ValidationError, "A staff user needs at least one role: desk, operations, support or admin.", ErrInvalidRole)
	}
	out := slices.Clone(roles)
	for _, r := range out {
		if !r.Valid() {
			return nil, coded(errcode.ValidationError, "A staff role is desk, operations, support or admin.", ErrInvalidRole)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// StaffRolesFor checks the staff roles a user of role r is given: a staff
// user's by CheckStaffRoles, and none for any other user
// (validation_error, ErrInvalidRole).
func StaffRolesFor(r Role, roles []StaffRole) ([]StaffRole, error) {
	if r != RoleStaff {
		if len(roles) > 0 {
			return nil, coded(errcode.ValidationError, "Only the operator's staff have staff roles.", ErrInvalidRole)
		}
		return nil, nil
	}
	return CheckStaffRoles(roles)
}

// IsStaff reports whether u is one of the operator's staff.
func (u User) IsStaff() bool { return u.Role == RoleStaff }

// May reports whether u may do what needs role: a staff user holding it,
// or, when role is "" (a read), any staff user.
func (u User) May(role StaffRole) bool {
	if !u.IsStaff() || len(u.StaffRoles) == 0 {
		return false
	}
	return role == "" || slices.Contains(u.StaffRoles, role)
}

// WithStaffRoles returns u with roles (CheckStaffRoles) in place of its
// own; validation_error (ErrInvalidRole) for a user who is not staff.
func (u User) WithStaffRoles(roles []StaffRole) (User, error) {
	if !u.IsStaff() {
		return u, coded(errcode.ValidationError, "Only the operator's staff have staff roles.", ErrInvalidRole)
	}
	checked, err := CheckStaffRoles(roles)
	if err != nil {
		return u, err
	}
	u.StaffRoles = checked
	return u, nil
}
