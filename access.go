package tambala

import (
	"context"
	"errors"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/store"
)

// Principal is who a call acts for: an organization, reached through one
// of its API keys (Authenticate) or on the host's own authority (Act).
// Its fields are a snapshot taken then, for display; every use case checks
// the organization's current state again inside its own transaction, so a
// suspension or a pause committed in the meantime is obeyed. A Principal
// not made by Authenticate or Act (the zero value, or one built by hand)
// is refused as unauthorized.
type Principal struct {
	Org   Organization
	Key   APIKey // the key used; zero when the Principal comes from Act
	Pause PauseState
	valid bool
}

var (
	errSuspended       = errcode.Newf(errcode.Forbidden, "This organization is suspended.")
	errNotAllowlisted  = errcode.Newf(errcode.Forbidden, "This address is not on the organization's allowlist.")
	errNoPrincipal     = errcode.Newf(errcode.Unauthorized, "This call needs a Principal from Authenticate or Act.")
	errOnboarding      = errcode.New(errcode.OnboardingIncomplete)
	errAccessSuspended = errcode.New(errcode.AccessSuspended)
)

// ErrNotAllowlisted is the forbidden error a transport returns when the
// caller's address is not on the organization's allowlist.
var ErrNotAllowlisted error = errNotAllowlisted

// Act returns a Principal for organization orgID without an API key, for
// a host that authenticates its own users. It is subject to every rule a
// key's Principal is: an unknown organization is not_found, a suspended
// one forbidden, and each use case checks the pause switches, /v2 access
// and the assets and operations enabled.
func (e *Engine) Act(ctx context.Context, orgID string) (Principal, error) {
	var p Principal
	err := e.store.View(ctx, func(tx store.Tx) error {
		org, err := e.cachedOrg(tx, orgID, errNotFound)
		if err != nil {
			return err
		}
		p, err = e.principal(tx, org)
		return err
	})
	if err != nil {
		return Principal{}, err
	}
	return p, nil
}

// principal makes the Principal of org (a cached value: it is copied),
// refusing a suspended organization, with the pause switches read in tx.
func (e *Engine) principal(tx store.Tx, org Organization) (Principal, error) {
	if org.Status != OrgActive {
		return Principal{}, errSuspended
	}
	pause, err := e.readPause(tx)
	if err != nil {
		return Principal{}, err
	}
	return Principal{Org: org.Clone(), Pause: pause, valid: true}, nil
}

// admitNow is Client.Admit.
func (e *Engine) admitNow(ctx context.Context, p Principal, api API) error {
	return e.store.View(ctx, func(tx store.Tx) error {
		_, err := e.admit(tx, p, api)
		return err
	})
}

// Admitted checks the rules Admit checks against the snapshot the
// Principal carries: the organization and the pause switches that
// Authenticate or Act read together when it was made. A transport that
// has just authenticated calls it instead of Admit, saving a read of the
// store; the answer is the one Admit would have given at the moment of
// authentication, and every use case checks the rules again inside its
// own transaction.
func (p Principal) Admitted(api API) error {
	if !p.valid {
		return errNoPrincipal
	}
	return admission(&p.Org, p.Pause, api)
}

// admit is Admit inside tx; it returns the organization as committed.
func (e *Engine) admit(tx store.Tx, p Principal, api API) (*Organization, error) {
	if !p.valid {
		return nil, errNoPrincipal
	}
	org, err := e.cachedOrg(tx, p.Org.ID, errUnauthorized)
	if err != nil {
		return nil, err
	}
	if org.Status != OrgActive {
		return nil, errSuspended
	}
	pause, err := e.readPause(tx)
	if err != nil {
		return nil, err
	}
	if err := admission(&org, pause, api); err != nil {
		return nil, err
	}
	return &org, nil // the cached value is shared: read it, never change it
}

// admission is the rule Admit and Admitted share: the organization is
// active, api is not paused and, for /v2, the organization's multi-asset
// access is enabled.
func admission(org *Organization, pause PauseState, api API) error {
	if org.Status != OrgActive {
		return errSuspended
	}
	if err := pause.Err(api); err != nil {
		return err
	}
	if api == APIv2 {
		switch org.V2Access {
		case V2OnboardingIncomplete:
			return errOnboarding
		case V2AccessSuspended:
			return errAccessSuspended
		}
	}
	return nil
}

// isNotFound reports a store miss.
func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
