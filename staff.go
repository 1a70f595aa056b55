package tambala

import (
	"context"
	"fmt"
	"strings"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/approvals"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/codec"
	"github.com/tambalapay/tambala/internal/storage"
	"github.com/tambalapay/tambala/store"
)

// errStaffRole refuses a staff user's call that none of their roles
// allows.
var errStaffRole = errcode.Newf(errcode.Forbidden, "None of your staff roles allows this.")

// Operator checks the session of token, a signed-in staff user's (TOTP
// is required of every staff user), and returns the operator's face for
// that user: each call checks the session again and the user's staff
// roles, and records the user as the actor of its changes. A session of
// an organization's user is forbidden.
func (p *Portal) Operator(ctx context.Context, token string) (*Operator, error) {
	if _, err := p.e.staffCall(ctx, token); err != nil {
		return nil, err
	}
	return &Operator{e: p.e, token: token}, nil
}

// Accounts checks the session of token, a signed-in staff user's, and
// returns the face of people for that user: managing the staff needs the
// admin role, managing an organization's users the operations role, and
// reading needs any staff role.
func (p *Portal) Accounts(ctx context.Context, token string) (*Accounts, error) {
	if _, err := p.e.staffCall(ctx, token); err != nil {
		return nil, err
	}
	return &Accounts{e: p.e, token: token}, nil
}

// staffCall checks the session of token for a staff user's call: live,
// signed in (with TOTP), its user enabled and staff (forbidden
// otherwise), and extends it.
func (e *Engine) staffCall(ctx context.Context, token string) (accounts.User, error) {
	var out accounts.User
	err := e.store.Update(ctx, func(tx store.Tx) error {
		now := e.nowUTC()
		_, u, err := signedIn(tx, token, now, accounts.Need{Staff: true})
		out = u
		return err
	})
	return out, err
}

// actAs checks the caller of a face for a call needing role ("" for a
// read, which every staff role may make): the automation (token "") may
// make every call; a staff user must be signed in and hold role
// (forbidden otherwise). It returns ctx whose changes are audited with
// the caller as the actor.
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
		fmt.Sprintf("approvals of %s suspended (%s by %s) until another staff admin confirms them", email, cause, actor.name()))
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
func (a *Accounts) ConfirmStaff(ctx context.Context, userID string) (_ User, err error) {
	ctx, span := a.span(ctx, "tambala.Accounts.ConfirmStaff")
	defer span.end(&err)
	ctx, err = a.act(ctx, accounts.StaffAdmin)
	if err != nil {
		return User{}, err
	}
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
