package accounts

import (
	"errors"
	"time"

	"github.com/tambalapay/tambala/errcode"
)

// Need is what a call needs of a session and its user, beyond Authorize.
// The zero Need is any signed-in user.
type Need struct {
	// Allow lets through the refusals of Authorize whose cause is one of
	// them (ErrTOTPRequired for the enrolment of TOTP, for one).
	Allow []error
	// Org: the user must be an organization's (forbidden otherwise).
	Org bool
	// Staff: the user must be one of the operator's staff (forbidden
	// otherwise).
	Staff bool
}

// Permit answers whether session s of user u may make a call needing
// need at now: Authorize, with totpRequired the organization's setting
// (its refusals in need.Allow let through), then need's organization or
// staff, forbidden when missing. It is the one check of a session that
// every face of people makes (the portal, an organization's admin, the
// staff's faces); a staff role (User.May) is checked after it.
func Permit(s Session, u User, totpRequired bool, now time.Time, need Need) error {
	if err := Authorize(s, u, totpRequired, now); err != nil && !isOneOf(err, need.Allow) {
		return err
	}
	if (need.Org && u.Org == "") || (need.Staff && !u.IsStaff()) {
		return errcode.New(errcode.Forbidden)
	}
	return nil
}

func isOneOf(err error, list []error) bool {
	for _, a := range list {
		if errors.Is(err, a) {
			return true
		}
	}
	return false
}

// PeopleRole is the staff role that manages the people of org: admin for
// the staff (org ""), operations for an organization's.
func PeopleRole(org string) StaffRole {
	if org == "" {
		return StaffAdmin
	}
	return StaffOperations
}

// SameCredentials reports whether a sign-in checked against a would be
// answered alike against b: no user for both, or the same user with the
// same password hash and status (what Authenticate decides by).
func SameCredentials(a, b *User) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.ID == b.ID && a.PasswordHash == b.PasswordHash && a.Disabled() == b.Disabled()
}

// Recheck is the rule of a sign-in whose password was checked (checked,
// Authenticate's refusal or nil) against seen, read before the slow step,
// now that cur is read again to record the outcome: a user gone
// meanwhile is invalid credentials; one whose credentials changed
// (SameCredentials) is stale, to verify again, unless last, when it is
// invalid credentials (not shown to match the stored hash).
func Recheck(seen, cur *User, checked error, last bool) (refused error, stale bool) {
	switch {
	case cur == nil:
		if seen != nil {
			return InvalidCredentials(), false // gone meanwhile
		}
	case !SameCredentials(seen, cur):
		if !last {
			return nil, true
		}
		return InvalidCredentials(), false
	}
	return checked, false
}

// RecheckPassword is Recheck for a change of password: the current
// password was checked (checked) against seen's hash; cur is the user
// read again. Another user or hash is stale unless last, when the current
// password is wrong (not verified against cur's hash).
func RecheckPassword(seen, cur User, checked error, last bool) (refused error, stale bool) {
	if cur.ID != seen.ID || cur.PasswordHash != seen.PasswordHash {
		if !last {
			return nil, true
		}
		return WrongPassword(), false
	}
	return checked, false
}

// StillAccepted checks that cur, the invitation read again to record an
// acceptance, is inv, the one the password was hashed for
// (unauthorized otherwise).
func (inv Invitation) StillAccepted(cur Invitation) error {
	if cur.ID != inv.ID {
		return errcode.New(errcode.Unauthorized)
	}
	return nil
}

// StillResettable checks that cur, the user of a password reset read
// again to record it, is seen, the one the reset was checked against,
// with the same email and password hash: a password changed meanwhile
// refuses the reset (unauthorized).
func StillResettable(seen, cur User) error {
	if cur.ID != seen.ID || cur.Email != seen.Email || cur.PasswordHash != seen.PasswordHash {
		return errcode.New(errcode.Unauthorized)
	}
	return nil
}

// ForStaff reports whether inv makes, or resets the password of, one of
// the operator's staff.
func (inv Invitation) ForStaff() bool { return inv.Role == RoleStaff }

// IsTOTPCode reports whether code has the shape of a TOTP code
// (TOTPDigits digits, spaces aside) rather than of a recovery code.
func IsTOTPCode(code string) bool {
	digits := 0
	for _, r := range code {
		switch {
		case r == ' ':
		case r >= '0' && r <= '9':
			digits++
		default:
			return false
		}
	}
	return digits == TOTPDigits
}
