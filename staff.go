package tambala

import (
	"context"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
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
		s, u, err := authorized(tx, token, now)
		if err != nil {
			return err
		}
		if !u.IsStaff() {
			return errcode.New(errcode.Forbidden)
		}
		if _, err := touch(tx, s, now); err != nil {
			return err
		}
		out = u
		return nil
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
