package accounts

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/textrule"
)

// Role is what kind of user someone is. An organization's users are
// org_admin; the operator's staff (users without an organization) are
// staff, and what each may do is their StaffRoles.
type Role string

const (
	// RoleOrgAdmin administers one organization in the portal.
	RoleOrgAdmin Role = "org_admin"
	// RoleStaff is one of the operator's staff, with one or more
	// StaffRoles.
	RoleStaff Role = "staff"
)

// Valid reports whether r is a role this package knows.
func (r Role) Valid() bool { return r == RoleOrgAdmin || r == RoleStaff }

// OrgScoped reports whether a user with role r belongs to an organization
// (and so must name one).
func (r Role) OrgScoped() bool { return r == RoleOrgAdmin }

// CheckRole checks that role is known and that org is set exactly when
// the role belongs to an organization: validation_error (ErrInvalidRole)
// otherwise.
func CheckRole(role Role, org string) error {
	switch {
	case !role.Valid():
		return coded(errcode.ValidationError, "The role is not valid.", ErrInvalidRole)
	case role.OrgScoped() && org == "":
		return coded(errcode.ValidationError, "An organization's user needs its organization.", ErrInvalidRole)
	case !role.OrgScoped() && org != "":
		return coded(errcode.ValidationError, "This role belongs to no organization.", ErrInvalidRole)
	}
	return nil
}

// Status is whether a user may sign in: active or disabled.
type Status string

const (
	StatusActive   Status = "active"
	StatusDisabled Status = "disabled"
)

// MaxEmailLength bounds an email address, in bytes (the longest path a
// mail server accepts, less its angle brackets).
const MaxEmailLength = 254

// User is a person who signs in: an organization's admin, or (later) one
// of the operator's staff, whose Org is empty. Email is normalised
// (NormalizeEmail) and unique; the store keeps that index.
type User struct {
	ID    string
	Email string
	Role  Role
	// Org is the user's organization; empty for the operator's staff.
	Org string
	// StaffRoles are what a staff user may do (CheckStaffRoles: sorted,
	// at least one); none for an organization's user.
	StaffRoles   []StaffRole
	PasswordHash PasswordHash
	TOTP         TOTP
	CreatedAt    time.Time
	// DisabledAt is when the user was disabled; zero while active.
	DisabledAt time.Time
}

// UserRequest is what makes a user: an id the caller chose, an email address
// (normalised here), a role and the organization the role needs, and a
// staff user's staff roles.
type UserRequest struct {
	ID         string
	Email      string
	Role       Role
	Org        string
	StaffRoles []StaffRole
}

// NewUser checks r and returns the user, active, with no password and no
// TOTP: validation_error (ErrInvalidID, ErrInvalidEmail or ErrInvalidRole)
// otherwise. An invitation's Accept makes users with a password.
func NewUser(r UserRequest, now time.Time) (User, error) {
	if r.ID == "" {
		return User{}, coded(errcode.ValidationError, "A user needs an id.", ErrInvalidID)
	}
	email, err := NormalizeEmail(r.Email)
	if err != nil {
		return User{}, err
	}
	if err := CheckRole(r.Role, r.Org); err != nil {
		return User{}, err
	}
	roles, err := StaffRolesFor(r.Role, r.StaffRoles)
	if err != nil {
		return User{}, err
	}
	return User{ID: r.ID, Email: email, Role: r.Role, Org: r.Org, StaffRoles: roles, CreatedAt: now}, nil
}

// Status is StatusDisabled once DisabledAt is set, else StatusActive.
func (u User) Status() Status {
	if u.Disabled() {
		return StatusDisabled
	}
	return StatusActive
}

// Disabled reports whether u may not sign in.
func (u User) Disabled() bool { return !u.DisabledAt.IsZero() }

// Disable returns u disabled at now; a user already disabled keeps its
// first time. The store ends every session of the user in the same
// transaction.
func (u User) Disable(now time.Time) User {
	if !u.Disabled() {
		u.DisabledAt = now
	}
	return u
}

// Enable returns u active again.
func (u User) Enable() User {
	u.DisabledAt = time.Time{}
	return u
}

// NormalizeEmail trims s of surrounding white space, lower-cases it and
// checks that it is a plausible address: at most MaxEmailLength bytes,
// valid UTF-8 with no control, format or space character, one @ between a
// local part of 1 to 64 bytes (no leading, trailing or doubled dot, none of
// the characters "(),:;<>[\]) and a domain of two or more dot-separated
// labels of letters, digits and inner hyphens, each of 1 to 63 bytes, the
// last with a letter.
// Quoted local parts and address literals, legal but never seen in
// practice, are refused. The whole address is lower-cased, its local part
// too: two addresses that differ only in case are one account.
// validation_error (ErrInvalidEmail) otherwise.
func NormalizeEmail(s string) (string, error) {
	bad := func() (string, error) {
		return "", coded(errcode.ValidationError, msgInvalidEmail, ErrInvalidEmail)
	}
	if !utf8.ValidString(s) {
		return bad() // before ToLower, which would repair it
	}
	e := strings.ToLower(strings.TrimSpace(s))
	if e == "" || len(e) > MaxEmailLength {
		return bad()
	}
	for _, r := range e {
		if textrule.Refused(r) || unicode.IsSpace(r) {
			return bad()
		}
	}
	local, domain, ok := strings.Cut(e, "@")
	if !ok || strings.Contains(domain, "@") {
		return bad()
	}
	if len(local) == 0 || len(local) > 64 || strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") ||
		strings.Contains(local, "..") || strings.ContainsAny(local, `"(),:;<>[\]`) {
		return bad()
	}
	labels := strings.Split(domain, ".")
	if len(domain) > 253 || len(labels) < 2 {
		return bad()
	}
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return bad()
		}
		for _, r := range l {
			if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
				return bad()
			}
		}
	}
	if strings.IndexFunc(labels[len(labels)-1], unicode.IsLetter) < 0 {
		return bad() // a top-level domain has a letter: 10.0.0.1 is no domain
	}
	return e, nil
}
