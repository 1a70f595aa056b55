package tambala

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
	"go.opentelemetry.io/otel/trace"
)

// User is a person who signs in to the portal, as the engine shows them:
// never their password hash, TOTP secret or recovery codes (package
// accounts). ApprovalsSuspended lasts until another staff admin confirms
// them (People.ConfirmStaff).
type User = accounts.UserView

func userView(u accounts.User) User {
	return User{ID: u.ID, Email: u.Email, Role: u.Role, Org: u.Org, StaffRoles: u.StaffRoles, Status: u.Status(), TOTPEnrolled: u.TOTP.Enrolled,
		RecoveryCodesLeft: u.TOTP.RecoveryCodesLeft(), CreatedAt: u.CreatedAt, DisabledAt: u.DisabledAt}
}

// Invitation is the operator's invitation of an email address to an
// organization, as the engine shows it: never its token (package
// accounts). ResetOf is set on a password reset (People.ResetPassword).
type Invitation = accounts.InvitationView

func invitationView(i accounts.Invitation, now time.Time) Invitation {
	return Invitation{ID: i.ID, Email: i.Email, Org: i.Org, Role: i.Role, StaffRoles: i.StaffRoles, InvitedBy: i.InvitedBy, ResetOf: i.ResetOf, Status: i.Status(now),
		CreatedAt: i.CreatedAt, ExpiresAt: i.ExpiresAt, AcceptedAt: i.AcceptedAt, UserID: i.UserID, RevokedAt: i.RevokedAt}
}

// InviteUser is what the operator gives to invite a person to an
// organization, or (Org "") to the operator's staff.
type InviteUser struct {
	// Org is the organization; "" invites one of the operator's staff.
	Org   string
	Email string
	// Role defaults to accounts.RoleOrgAdmin with an Org, else
	// accounts.RoleStaff.
	Role accounts.Role
	// StaffRoles are a staff invitee's roles (at least one); none for an
	// organization's user.
	StaffRoles []accounts.StaffRole
	// TTL is the invitation's lifetime: zero for
	// accounts.DefaultInvitationTTL.
	TTL time.Duration
}

// Invited is a new invitation and its token, to be sent to the invitee:
// the token is shown here once and never stored.
type Invited struct {
	Invitation Invitation
	Token      string
}

// People is the face of the engine through which the operator manages
// people: the users of organizations and the operator's own staff (the
// users of no organization, orgID ""), their invitations, sessions, TOTP
// and staff roles, an organization's TOTP requirement, and the audit
// trail. Every change appends an entry to the audit trail, with the
// caller as its actor, in the change's own transaction.
//
// As with Operator, Engine.People is the operator's automation, allowed
// everything; Sessions.Accounts is a signed-in staff user, for whom a
// change to the staff needs the admin role, a change to an
// organization's people the operations role, and a read any staff role;
// a change checks them, and extends the session, inside its own
// transaction, as Operator's do.
//
// It is safe for concurrent use.
type People struct {
	e *Engine
	// token is the staff user's session; "" for the automation.
	token string
}

// People returns the operator's automation face for people.
func (e *Engine) People() *People { return &People{e: e} }

// act checks the caller for a read.
func (a *People) act(ctx context.Context, role accounts.StaffRole) (context.Context, error) {
	return a.e.actAs(ctx, a.token, role)
}

// change checks the caller for a change needing role (changeAs); done,
// to be deferred, extends the session when the change did not.
func (a *People) change(ctx context.Context, role accounts.StaffRole) (context.Context, func(), error) {
	return a.e.changeAs(ctx, a.token, role)
}

// changeOn checks the caller for a change to user id's account: the staff
// admin role for a staff user, operations for an organization's.
func (a *People) changeOn(ctx context.Context, id string) (context.Context, func(), error) {
	if a.token == "" {
		return a.change(ctx, "")
	}
	u, err := a.e.user(ctx, id)
	if err != nil {
		return ctx, nil, err
	}
	return a.change(ctx, accounts.PeopleRole(u.Org))
}

// AuditTrail reads one page of the audit trail, newest first: every
// organization's, or f.Org's alone, narrowed by f's other fields.
func (a *People) AuditTrail(ctx context.Context, page PageRequest, f AuditFilter) (_ Page[AuditEntry], err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.AuditTrail")
	defer span.end(&err)
	ctx, err = a.act(ctx, "")
	if err != nil {
		return Page[AuditEntry]{}, err
	}
	return a.e.auditTrail(ctx, page, f)
}

// DisableUser disables a user and ends every session of theirs; a user
// disabled already is returned as is. The last active staff admin cannot
// be disabled (conflict).
func (a *People) DisableUser(ctx context.Context, userID string) (_ User, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.DisableUser")
	defer span.end(&err)
	ctx, done, err := a.changeOn(ctx, userID)
	if err != nil {
		return User{}, err
	}
	defer done()
	return a.e.setUserDisabled(ctx, userID, true)
}

// EnableUser lets a disabled user sign in again; an active user is
// returned as is.
func (a *People) EnableUser(ctx context.Context, userID string) (_ User, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.EnableUser")
	defer span.end(&err)
	ctx, done, err := a.changeOn(ctx, userID)
	if err != nil {
		return User{}, err
	}
	defer done()
	return a.e.setUserDisabled(ctx, userID, false)
}

// EndSessions ends every session of a user, who must sign in again, and
// returns how many were live.
func (a *People) EndSessions(ctx context.Context, userID string) (_ int, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.EndSessions")
	defer span.end(&err)
	ctx, done, err := a.changeOn(ctx, userID)
	if err != nil {
		return 0, err
	}
	defer done()
	return a.e.endSessions(ctx, userID)
}

// Invitations lists an organization's invitations, oldest first, each
// with where it stands now.
func (a *People) Invitations(ctx context.Context, orgID string) (_ []Invitation, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.Invitations")
	defer span.end(&err)
	ctx, err = a.act(ctx, "")
	if err != nil {
		return nil, err
	}
	return a.e.invitations(ctx, orgID)
}

// InviteUser invites an email address to an organization. The token, to be
// sent to the invitee, is returned here once and can never be read again.
// An email that a user has already is conflict.
func (a *People) InviteUser(ctx context.Context, n InviteUser) (_ Invited, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.InviteUser")
	defer span.end(&err)
	ctx, done, err := a.change(ctx, accounts.PeopleRole(n.Org))
	if err != nil {
		return Invited{}, err
	}
	defer done()
	return a.e.inviteUser(ctx, n)
}

// ResetPassword issues a password reset of a user who forgot theirs: a
// one-time invitation of the user's email to their organization, whose
// token, to be sent to the user, is returned here once. ttl is its
// lifetime as InviteUser's (zero for accounts.DefaultInvitationTTL). The
// user accepts it on the invitation's page (Sessions.AcceptInvitation) by
// choosing a new password: every session of theirs ends, their TOTP stays.
// An unknown user is not_found.
func (a *People) ResetPassword(ctx context.Context, userID string, ttl time.Duration) (_ Invited, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.ResetPassword")
	defer span.end(&err)
	ctx, done, err := a.changeOn(ctx, userID)
	if err != nil {
		return Invited{}, err
	}
	defer done()
	return a.e.resetPassword(ctx, userID, ttl)
}

// ResetTOTP removes a user's TOTP and recovery codes (a lost device) and
// ends every session of theirs; if the organization requires TOTP, their
// next sign-in enrols again.
func (a *People) ResetTOTP(ctx context.Context, userID string) (_ User, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.ResetTOTP")
	defer span.end(&err)
	ctx, done, err := a.changeOn(ctx, userID)
	if err != nil {
		return User{}, err
	}
	defer done()
	return a.e.resetTOTP(ctx, userID)
}

// RevokeInvitation withdraws an organization's invitation by id; one
// accepted already cannot be (conflict).
func (a *People) RevokeInvitation(ctx context.Context, orgID, id string) (_ Invitation, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.RevokeInvitation")
	defer span.end(&err)
	ctx, done, err := a.change(ctx, accounts.PeopleRole(orgID))
	if err != nil {
		return Invitation{}, err
	}
	defer done()
	return a.e.revokeInvitation(ctx, orgID, id)
}

// SetTOTPRequired sets whether an organization's users must have TOTP: a
// user without it enrols at their next sign-in, and a signed-in one is
// held to enrolment before anything else.
func (a *People) SetTOTPRequired(ctx context.Context, orgID string, required bool) (err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.SetTOTPRequired")
	defer span.end(&err)
	ctx, done, err := a.change(ctx, accounts.StaffOperations)
	if err != nil {
		return err
	}
	defer done()
	return a.e.setTOTPRequired(ctx, orgID, required)
}

// TOTPRequired reports whether an organization requires TOTP of its users.
func (a *People) TOTPRequired(ctx context.Context, orgID string) (_ bool, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.TOTPRequired")
	defer span.end(&err)
	ctx, err = a.act(ctx, "")
	if err != nil {
		return false, err
	}
	return a.e.totpRequired(ctx, orgID)
}

// User reads a user by id.
func (a *People) User(ctx context.Context, id string) (_ User, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.User")
	defer span.end(&err)
	ctx, err = a.act(ctx, "")
	if err != nil {
		return User{}, err
	}
	return a.e.user(ctx, id)
}

// Users lists an organization's users, oldest first.
func (a *People) Users(ctx context.Context, orgID string) (_ []User, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.Users")
	defer span.end(&err)
	ctx, err = a.act(ctx, "")
	if err != nil {
		return nil, err
	}
	return a.e.users(ctx, orgID)
}

var errEmailTaken = errcode.Newf(errcode.Conflict, "A user with this email address already exists.")

// inviteUser is People.InviteUser.
func (e *Engine) inviteUser(ctx context.Context, n InviteUser) (Invited, error) {
	if n.Role == "" {
		n.Role = accounts.RoleOrgAdmin
		if n.Org == "" {
			n.Role = accounts.RoleStaff
		}
	}
	var out Invited
	err := e.store.Update(ctx, func(tx store.Tx) error {
		if err := loadPeopleOrg(tx, n.Org); err != nil {
			return err
		}
		now := e.nowUTC()
		inv, token, err := accounts.Invite(accounts.InvitationRequest{ID: e.newID(), Email: n.Email, Org: n.Org, Role: n.Role,
			StaffRoles: n.StaffRoles, InvitedBy: actorName(actorOr(ctx, automationActor)), TTL: n.TTL}, e.acct.Random, now)
		if err != nil {
			return err
		}
		if _, taken, err := storage.UserByEmail(tx, inv.Email, errNotFound); err != nil || taken {
			return orErr(err, errEmailTaken)
		}
		if err := storage.SaveInvitation(tx, inv); err != nil {
			return err
		}
		out = Invited{Invitation: invitationView(inv, now), Token: token}
		if inv.Org == "" {
			// Whoever was given the token may become this staff member.
			// The staff invited before any staff admin was, the
			// operator's set-up, are not held: nobody could confirm them.
			seen, err := storage.StaffAdminSeen(tx)
			if err != nil {
				return err
			}
			if seen {
				if err := e.holdStaff(ctx, tx, "", inv.Email, "invitation"); err != nil {
					return err
				}
			}
			if slices.Contains(inv.StaffRoles, accounts.StaffAdmin) {
				if err := storage.MarkStaffAdminSeen(tx); err != nil {
					return err
				}
			}
		}
		return e.audit(ctx, tx, actorOr(ctx, automationActor), inv.Org, AuditUserInvited, inv.ID,
			fmt.Sprintf("invited %s as %s until %s", inv.Email, inv.Role, inv.ExpiresAt.Format(time.RFC3339)))
	})
	if err != nil {
		return Invited{}, err
	}
	return out, nil
}

// resetPassword is People.ResetPassword.
func (e *Engine) resetPassword(ctx context.Context, userID string, ttl time.Duration) (Invited, error) {
	var out Invited
	err := e.store.Update(ctx, func(tx store.Tx) error {
		u, err := storage.LoadUser(tx, userID, errNotFound)
		if err != nil {
			return err
		}
		now := e.nowUTC()
		inv, token, err := accounts.Invite(accounts.InvitationRequest{ID: e.newID(), Email: u.Email, Org: u.Org, Role: u.Role,
			StaffRoles: u.StaffRoles, InvitedBy: actorName(actorOr(ctx, automationActor)), TTL: ttl, ResetOf: u.ID}, e.acct.Random, now)
		if err != nil {
			return err
		}
		if err := storage.SaveInvitation(tx, inv); err != nil {
			return err
		}
		out = Invited{Invitation: invitationView(inv, now), Token: token}
		if u.IsStaff() {
			// Whoever was given the token may sign in as u.
			if err := e.holdStaff(ctx, tx, u.ID, u.Email, "password_reset"); err != nil {
				return err
			}
		}
		return e.audit(ctx, tx, actorOr(ctx, automationActor), inv.Org, AuditPasswordResetIssued, inv.ID,
			fmt.Sprintf("password reset of user %s (%s) until %s", u.ID, u.Email, inv.ExpiresAt.Format(time.RFC3339)))
	})
	if err != nil {
		return Invited{}, err
	}
	return out, nil
}

// orErr is err when set, else alt.
func orErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

// invitations is People.Invitations.
func (e *Engine) invitations(ctx context.Context, orgID string) ([]Invitation, error) {
	out := []Invitation{}
	err := e.store.View(ctx, func(tx store.Tx) error {
		if err := loadPeopleOrg(tx, orgID); err != nil {
			return err
		}
		now := e.nowUTC()
		return storage.InvitationsOfOrg(tx, orgID, errNotFound, func(inv accounts.Invitation) {
			out = append(out, invitationView(inv, now))
		})
	})
	return out, err
}

// revokeInvitation is People.RevokeInvitation.
func (e *Engine) revokeInvitation(ctx context.Context, orgID, id string) (Invitation, error) {
	var out Invitation
	err := e.store.Update(ctx, func(tx store.Tx) error {
		inv, err := storage.InvitationOfOrg(tx, orgID, id, errNotFound)
		if err != nil {
			return err
		}
		now := e.nowUTC()
		revoked, err := inv.Revoke(now)
		if err != nil {
			return err
		}
		out = invitationView(revoked, now)
		if revoked.RevokedAt.Equal(inv.RevokedAt) {
			return nil // revoked before: nothing changes
		}
		if err := storage.SaveInvitation(tx, revoked); err != nil {
			return err
		}
		return e.audit(ctx, tx, actorOr(ctx, automationActor), orgID, AuditInvitationRevoked, inv.ID, "revoked the invitation of "+inv.Email)
	})
	if err != nil {
		return Invitation{}, err
	}
	return out, nil
}

// users is People.Users.
func (e *Engine) users(ctx context.Context, orgID string) ([]User, error) {
	out := []User{}
	err := e.store.View(ctx, func(tx store.Tx) error {
		if err := loadPeopleOrg(tx, orgID); err != nil {
			return err
		}
		return storage.UsersOfOrg(tx, orgID, errNotFound, func(u accounts.User) (bool, error) {
			v, err := e.staffView(tx, u)
			out = append(out, v)
			return err == nil, err
		})
	})
	return out, err
}

// user is People.User.
func (e *Engine) user(ctx context.Context, id string) (User, error) {
	var out User
	err := e.store.View(ctx, func(tx store.Tx) error {
		u, err := storage.LoadUser(tx, id, errNotFound)
		if err != nil {
			return err
		}
		out, err = e.staffView(tx, u)
		return err
	})
	if err != nil {
		return User{}, err
	}
	return out, nil
}

// staffView is userView with, for a staff user, whether their approvals
// are suspended.
func (e *Engine) staffView(tx store.Tx, u accounts.User) (User, error) {
	v := userView(u)
	if !u.IsStaff() {
		return v, nil
	}
	_, held, err := e.heldStaff(tx, u.ID, u.Email)
	v.ApprovalsSuspended = held
	return v, err
}

// changeUser runs change on user id in one transaction and stores the
// user it returns, if changed; the change audits itself.
func (e *Engine) changeUser(ctx context.Context, id string, change func(tx store.Tx, u accounts.User, now time.Time) (accounts.User, bool, error)) (User, error) {
	var out User
	err := e.store.Update(ctx, func(tx store.Tx) error {
		u, err := storage.LoadUser(tx, id, errNotFound)
		if err != nil {
			return err
		}
		next, changed, err := change(tx, u, e.nowUTC())
		if err != nil {
			return err
		}
		if out, err = e.staffView(tx, next); err != nil {
			return err
		}
		if !changed {
			return nil
		}
		return storage.SaveUser(tx, next)
	})
	if err != nil {
		return User{}, err
	}
	return out, nil
}

// setUserDisabled is People.DisableUser and People.EnableUser.
func (e *Engine) setUserDisabled(ctx context.Context, id string, disable bool) (User, error) {
	return e.changeUser(ctx, id, func(tx store.Tx, u accounts.User, now time.Time) (accounts.User, bool, error) {
		if u.Disabled() == disable {
			return u, false, nil
		}
		if !disable {
			return u.Enable(), true, e.audit(ctx, tx, actorOr(ctx, automationActor), u.Org, AuditUserEnabled, u.ID, "status disabled -> active")
		}
		if u.IsStaff() && u.May(accounts.StaffAdmin) {
			n, err := activeStaffAdmins(tx)
			if err != nil {
				return u, false, err
			}
			if n <= 1 {
				return u, false, errLastAdmin
			}
		}
		n, err := e.endUserSessions(tx, u.ID, nil, now)
		if err != nil {
			return u, false, err
		}
		return u.Disable(now), true, e.audit(ctx, tx, actorOr(ctx, automationActor), u.Org, AuditUserDisabled, u.ID,
			fmt.Sprintf("status active -> disabled; %d sessions ended", n))
	})
}

// resetTOTP is People.ResetTOTP.
func (e *Engine) resetTOTP(ctx context.Context, id string) (User, error) {
	return e.changeUser(ctx, id, func(tx store.Tx, u accounts.User, now time.Time) (accounts.User, bool, error) {
		before := "none"
		switch {
		case u.TOTP.Enrolled:
			before = "enrolled"
		case u.TOTP.Secret != "":
			before = "enrolment begun"
		}
		n, err := e.endUserSessions(tx, u.ID, nil, now)
		if err != nil {
			return u, false, err
		}
		if u.IsStaff() {
			// Whoever enrols next may not be u.
			if err := e.holdStaff(ctx, tx, u.ID, u.Email, "totp_reset"); err != nil {
				return u, false, err
			}
		}
		return u.ResetTOTP(), true, e.audit(ctx, tx, actorOr(ctx, automationActor), u.Org, AuditTOTPReset, u.ID,
			fmt.Sprintf("TOTP %s -> none; %d sessions ended", before, n))
	})
}

// endSessions is People.EndSessions.
func (e *Engine) endSessions(ctx context.Context, id string) (int, error) {
	var n int
	_, err := e.changeUser(ctx, id, func(tx store.Tx, u accounts.User, now time.Time) (accounts.User, bool, error) {
		var err error
		if n, err = e.endUserSessions(tx, u.ID, nil, now); err != nil {
			return u, false, err
		}
		return u, false, e.audit(ctx, tx, actorOr(ctx, automationActor), u.Org, AuditSessionsEnded, u.ID, fmt.Sprintf("%d sessions ended", n))
	})
	return n, err
}

// endUserSessions ends (EndRevoked) every session of user id but except,
// and returns how many of them were live.
func (e *Engine) endUserSessions(tx store.Tx, userID string, except *[32]byte, now time.Time) (int, error) {
	hashes, err := storage.SessionsOfUser(tx, userID)
	if err != nil {
		return 0, err
	}
	live := 0
	for _, h := range hashes {
		if except != nil && h == *except {
			continue
		}
		s, err := storage.LoadSession(tx, h, errNotFound)
		if err != nil {
			return 0, err
		}
		if s.Check(now) == nil {
			live++
		}
		if err := storage.SaveSession(tx, s.End(accounts.EndRevoked, now)); err != nil {
			return 0, err
		}
	}
	return live, nil
}

// setTOTPRequired is People.SetTOTPRequired.
func (e *Engine) setTOTPRequired(ctx context.Context, orgID string, required bool) error {
	return e.store.Update(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		was, err := storage.OrgTOTPRequired(tx, orgID)
		if err != nil || was == required {
			return err
		}
		if err := storage.SavePortalSettings(tx, orgID, required); err != nil {
			return err
		}
		return e.audit(ctx, tx, actorOr(ctx, automationActor), orgID, AuditTOTPRequired, orgID, fmt.Sprintf("TOTP required %t -> %t", was, required))
	})
}

// totpRequired is People.TOTPRequired.
func (e *Engine) totpRequired(ctx context.Context, orgID string) (bool, error) {
	var out bool
	err := e.store.View(ctx, func(tx store.Tx) error {
		var o Organization
		if err := loadOrg(tx, orgID, &o, errNotFound); err != nil {
			return err
		}
		var err error
		out, err = storage.OrgTOTPRequired(tx, orgID)
		return err
	})
	return out, err
}

// pruneSessionsOfEngine is Work.PruneSessions.
func (e *Engine) pruneSessionsOfEngine(ctx context.Context, batch int) (int, error) {
	if batch <= 0 {
		batch = 1000
	}
	now := e.nowUTC()
	n := 0
	err := e.store.Update(ctx, func(tx store.Tx) error {
		old, err := storage.PrunableSessions(tx, batch, func(s accounts.Session) bool { return s.Prunable(now) })
		if err != nil {
			return err
		}
		if err := storage.DeleteSessions(tx, old); err != nil {
			return err
		}
		pruned, err := storage.PruneThrottles(tx, batch,
			func(a accounts.AccountThrottle) bool { return a.Forgotten(now) },
			func(t accounts.Throttle) bool { return t.Forgotten(accounts.AddressPolicy, now) })
		n = len(old) + pruned
		return err
	})
	return n, err
}

// loadPeopleOrg checks that org, whose people a call manages, exists
// (not_found otherwise); "" is the operator's staff, which always does.
func loadPeopleOrg(tx store.Tx, org string) error {
	if org == "" {
		return nil
	}
	var o Organization
	return loadOrg(tx, org, &o, errNotFound)
}

// SetStaffRoles replaces a staff user's roles (at least one of
// accounts.StaffRoles); validation_error for a user who is not staff.
// Sessions go on: every call checks the roles again. A staff admin never
// changes their own roles (forbidden: another staff admin must).
func (a *People) SetStaffRoles(ctx context.Context, userID string, roles []accounts.StaffRole) (_ User, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.SetStaffRoles")
	defer span.end(&err)
	ctx, done, err := a.change(ctx, accounts.StaffAdmin)
	if err != nil {
		return User{}, err
	}
	defer done()
	return a.e.changeUser(ctx, userID, func(tx store.Tx, u accounts.User, _ time.Time) (accounts.User, bool, error) {
		next, err := u.WithStaffRoles(roles)
		if err != nil || slices.Equal(next.StaffRoles, u.StaffRoles) {
			return u, false, err
		}
		if actor := actorOr(ctx, automationActor); actor.Kind == ActorStaff && actor.ID == u.ID {
			return u, false, errOwnRoles
		}
		if next.May(accounts.StaffAdmin) {
			if err := storage.MarkStaffAdminSeen(tx); err != nil {
				return u, false, err
			}
		}
		return next, true, a.e.audit(ctx, tx, actorOr(ctx, automationActor), "", AuditStaffRolesChanged, u.ID,
			fmt.Sprintf("staff roles %v -> %v", u.StaffRoles, next.StaffRoles))
	})
}

// errStaffRole refuses a staff user's call that none of their roles
// allows.
var errStaffRole = errcode.Newf(errcode.Forbidden, "None of your staff roles allows this.")

// Operator checks the session of token, a signed-in staff user's (TOTP
// is required of every staff user), and returns the operator's face for
// that user: each call checks the session again and the user's staff
// roles, inside the transaction of its change, and extends the session
// there, and records the user as the actor of its changes. A session of
// an organization's user is forbidden.
func (p *Sessions) Operator(ctx context.Context, token string) (*Operator, error) {
	if _, err := p.e.view(ctx, newCall(ctx, token, accounts.Need{Staff: true}, ""), false); err != nil {
		return nil, err
	}
	return &Operator{e: p.e, token: token}, nil
}

// People checks the session of token, a signed-in staff user's, and
// returns the face of people for that user: managing the staff needs the
// admin role, managing an organization's users the operations role, and
// reading needs any staff role.
func (p *Sessions) People(ctx context.Context, token string) (*People, error) {
	if _, err := p.e.view(ctx, newCall(ctx, token, accounts.Need{Staff: true}, ""), false); err != nil {
		return nil, err
	}
	return &People{e: p.e, token: token}, nil
}

// staffCall checks the session of token for a staff user's read: live,
// signed in (with TOTP), its user enabled and staff (forbidden
// otherwise), and extends it (read); the role is the caller's to check.
func (e *Engine) staffCall(ctx context.Context, token string) (accounts.User, error) {
	r, err := e.read(ctx, newCall(ctx, token, accounts.Need{Staff: true}, ""))
	return r.user, err
}

// actAs checks the caller of a face for a read needing role ("", which
// every staff role may make): the automation (token "") may make every
// call; a staff user must be signed in and hold role (forbidden
// otherwise). It returns ctx whose changes are audited with the caller as
// the actor.
func (e *Engine) actAs(ctx context.Context, token string, role accounts.StaffRole) (context.Context, error) {
	if token == "" {
		return asActor(ctx, automationActor), nil
	}
	u, err := e.staffCall(ctx, token)
	if err != nil {
		return ctx, err
	}
	if !u.May(role) {
		return ctx, errStaffRole
	}
	return asActor(ctx, staffActor(u)), nil
}

// changeAs is actAs for a change: the caller is checked in a read
// transaction, then again inside each write transaction of the change,
// which extends the session (begin); done, to be deferred, extends it
// when none did.
func (e *Engine) changeAs(ctx context.Context, token string, role accounts.StaffRole) (_ context.Context, done func(), _ error) {
	if token == "" {
		return asActor(ctx, automationActor), func() {}, nil
	}
	ctx, r, done, err := e.begin(ctx, newCall(ctx, token, accounts.Need{Staff: true}, role))
	if err != nil {
		return ctx, nil, err
	}
	return asActor(ctx, staffActor(r.user)), done, nil
}

// heldStaff reads a hold on the staff member with id or email, if any:
// one made on their account, or on their invitation before it was
// accepted.
func (e *Engine) heldStaff(tx store.Tx, id, email string) (approvals.Hold, bool, error) {
	holds, err := e.staffHolds(tx, id, email)
	if err != nil || len(holds) == 0 {
		return approvals.Hold{}, false, err
	}
	return holds[0], true, nil
}

// staffHolds reads every hold on the staff member with id or email.
func (e *Engine) staffHolds(tx store.Tx, id, email string) ([]approvals.Hold, error) {
	var out []approvals.Hold
	for _, k := range []string{storage.HoldKeyOfUser(id), storage.HoldKeyOfEmail(email)} {
		if k == storage.HoldKeyOfUser("") || k == storage.HoldKeyOfEmail("") {
			continue
		}
		r, ok, err := storage.LoadHold(tx, k)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if r.UserID == "" {
			r.UserID = id
		}
		out = append(out, approvals.Hold{UserID: r.UserID, Email: r.Email, Cause: r.Cause, At: r.At,
			By: approvals.Party{Kind: approvals.PartyKind(r.ByKind), UserID: r.ByID, Email: r.ByEmail}})
	}
	return out, nil
}

// holdStaff suspends the approvals of staff member u (or, with u.ID "",
// of the invitee u.Email) in tx for cause, made by ctx's actor, audited.
func (e *Engine) holdStaff(ctx context.Context, tx store.Tx, id, email, cause string) error {
	actor := actorOr(ctx, automationActor)
	by := partyOf(actor)
	r := codec.HoldRecord{UserID: id, Email: email, Cause: cause, ByKind: string(by.Kind), ByID: by.UserID, ByEmail: by.Email, At: e.nowUTC()}
	key := storage.HoldKeyOfUser(id)
	if id == "" {
		key = storage.HoldKeyOfEmail(email)
	}
	if err := storage.SaveHold(tx, key, r); err != nil {
		return err
	}
	target := id
	if target == "" {
		target = email
	}
	return e.audit(ctx, tx, actor, "", AuditApprovalsSuspended, target,
		fmt.Sprintf("approvals of %s suspended (%s by %s) until another staff admin confirms them", email, cause, actorName(actor)))
}

// staffUsers calls each with every staff user, until it returns false.
func staffUsers(tx store.Tx, each func(u accounts.User) bool) error {
	return storage.UsersOfOrg(tx, "", errNotFound, func(u accounts.User) (bool, error) { return each(u), nil })
}

// anyStaff reports whether the store has any staff user, active or not:
// from then on a change that weakens a threshold waits for approval.
// Users are never deleted, so it stays true.
func anyStaff(tx store.Tx) (bool, error) {
	found := false
	err := staffUsers(tx, func(u accounts.User) bool {
		found = u.IsStaff()
		return !found
	})
	return found, err
}

// activeStaffAdmins counts the active staff users with the admin role.
func activeStaffAdmins(tx store.Tx) (int, error) {
	n := 0
	err := staffUsers(tx, func(u accounts.User) bool {
		if u.IsStaff() && !u.Disabled() && u.May(accounts.StaffAdmin) {
			n++
		}
		return true
	})
	return n, err
}

// errLastAdmin refuses to leave the staff with no active admin: nobody
// could then manage the staff or confirm a staff member.
var errLastAdmin = errcode.Newf(errcode.Conflict, "This is the last active staff admin: make another staff member admin first.")

// errOwnRoles refuses a staff admin's change of their own roles.
var errOwnRoles = errcode.Newf(errcode.Forbidden, "Another staff admin must change your roles.")

// ConfirmStaff lifts the suspension of a staff member's approvals, made
// when their password or second factor was reset, or their invitation
// issued, by someone else (approvals.Hold): from then on they approve
// again. Only a staff admin confirms, neither the member held nor who
// reset or invited them, and not while held themself (forbidden); the
// automation never can. A member not held is returned as is.
func (a *People) ConfirmStaff(ctx context.Context, userID string) (_ User, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.ConfirmStaff")
	defer span.end(&err)
	ctx, done, err := a.change(ctx, accounts.StaffAdmin)
	if err != nil {
		return User{}, err
	}
	defer done()
	var out User
	err = a.e.store.Update(ctx, func(tx store.Tx) error {
		u, err := storage.LoadUser(tx, userID, errNotFound)
		if err != nil {
			return err
		}
		if !u.IsStaff() {
			return errcode.Newf(errcode.ValidationError, "Only the operator's staff approve.")
		}
		out = userView(u)
		holds, err := a.e.staffHolds(tx, u.ID, u.Email)
		if err != nil || len(holds) == 0 {
			return err
		}
		actor := actorOr(ctx, automationActor)
		by := partyOf(actor)
		var roles []string
		byHeld := false
		if by.Kind == approvals.Staff {
			me, err := storage.LoadUser(tx, by.UserID, errNotFound)
			if err != nil {
				return err
			}
			for _, r := range me.StaffRoles {
				roles = append(roles, string(r))
			}
			if _, byHeld, err = a.e.heldStaff(tx, me.ID, me.Email); err != nil {
				return err
			}
		}
		// Every hold must allow it: who invited them may not confirm them
		// under a later reset's hold either.
		causes := make([]string, len(holds))
		for i, h := range holds {
			if err := h.Confirm(by, roles, byHeld); err != nil {
				return err
			}
			causes[i] = h.Cause + " by " + partyName(h.By)
		}
		for _, k := range []string{storage.HoldKeyOfUser(u.ID), storage.HoldKeyOfEmail(u.Email)} {
			if err := storage.DeleteHold(tx, k); err != nil {
				return err
			}
		}
		return a.e.audit(ctx, tx, actor, "", AuditApprovalsConfirmed, u.ID,
			fmt.Sprintf("approvals of %s confirmed (suspended: %s)", u.Email, strings.Join(causes, "; ")))
	})
	if err != nil {
		return User{}, err
	}
	return out, nil
}

func (a *People) span(ctx context.Context, name string) (context.Context, span) {
	return a.e.startSpan(ctx, name, trace.SpanKindInternal)
}

// PruneSessions deletes sessions accounts.SessionRetention past their end
// or expiry, and sign-in throttles that hold nothing any more
// (accounts.Throttle.Forgotten), at most batch of each kind per call,
// and reports how many it deleted in all. Run calls it with the idempotency pruning.
// The audit trail is never pruned.
func (u Work) PruneSessions(ctx context.Context, batch int) (int, error) {
	return u.x.pruneSessionsOfEngine(ctx, batch)
}
