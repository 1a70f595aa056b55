package tambala

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
	"github.com/tambalapay/tambala/orgs"
	"github.com/tambalapay/tambala/store"
	"go.opentelemetry.io/otel/trace"
)

// OrgAdmin is the face of the engine for a signed-in organization admin
// managing their own organization: its API keys, IP allowlist, webhook
// endpoint and deliveries, balance floor, and audit trail. Every call
// checks the session again (live, signed in, its user enabled, the
// organization active) and extends it; every change appends an entry to
// the audit trail, with the user as its actor, in the change's own
// transaction. The rules are the operator's (Operator.CreateKey, ...):
// at most Limits.MaxActiveKeys active keys, a key or a webhook secret
// shown once.
//
// It is safe for concurrent use.
type OrgAdmin struct {
	e     *Engine
	token string
}

// Admin checks the session of token and returns the face through which
// its user administers their organization. A session that is not signed
// in, or whose organization is suspended, is refused as Session and
// Principal refuse it.
func (p *Portal) Admin(ctx context.Context, token string) (_ *OrgAdmin, err error) {
	ctx, span := p.span(ctx, "tambala.Portal.Admin")
	defer span.end(&err)
	if _, _, err := p.e.adminContext(ctx, token); err != nil {
		return nil, err
	}
	return &OrgAdmin{e: p.e, token: token}, nil
}

// AuditTrail reads one page of the organization's audit trail, newest
// first.
func (a *OrgAdmin) AuditTrail(ctx context.Context, page PageRequest) (_ Page[AuditEntry], err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.AuditTrail")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Page[AuditEntry]{}, err
	}
	return a.e.auditTrail(ctx, page, AuditFilter{Org: org})
}

// CreateKey issues an API key for the organization. The full key is
// returned here once and can never be read again; at Limits.MaxActiveKeys
// active keys it is conflict until one is revoked.
func (a *OrgAdmin) CreateKey(ctx context.Context) (full string, key APIKey, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.CreateKey")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return "", APIKey{}, err
	}
	return a.e.createKey(ctx, org)
}

// Deliveries lists the organization's webhook deliveries newest first,
// each with its attempts newest first.
func (a *OrgAdmin) Deliveries(ctx context.Context, page PageRequest) (_ Page[DeliveryView], err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.Deliveries")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Page[DeliveryView]{}, err
	}
	return a.e.deliveries(ctx, org, page)
}

// Keys lists the organization's API keys, never the keys themselves.
func (a *OrgAdmin) Keys(ctx context.Context) (_ []APIKey, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.Keys")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return nil, err
	}
	return a.e.keys(ctx, org)
}

// Organization reads the organization.
func (a *OrgAdmin) Organization(ctx context.Context) (_ Organization, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.Organization")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Organization{}, err
	}
	return a.e.organization(ctx, org)
}

// RevokeKey revokes one of the organization's keys, by id or prefix; a
// key revoked already is returned as is.
func (a *OrgAdmin) RevokeKey(ctx context.Context, idOrPrefix string) (_ APIKey, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.RevokeKey")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return APIKey{}, err
	}
	return a.e.revokeKey(ctx, org, idOrPrefix)
}

// SetAllowlist replaces the organization's IP allowlist with exact
// addresses; an empty list allows every address.
func (a *OrgAdmin) SetAllowlist(ctx context.Context, addrs []netip.Addr) (_ Organization, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.SetAllowlist")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Organization{}, err
	}
	return a.e.setAllowlist(ctx, org, addrs)
}

// SetBalanceFloor sets the organization's MWK balance floor; the zero
// Amount removes it.
func (a *OrgAdmin) SetBalanceFloor(ctx context.Context, floorMWK money.Amount) (_ Organization, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.SetBalanceFloor")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Organization{}, err
	}
	return a.e.setBalanceFloor(ctx, org, floorMWK)
}

// SetWebhookEndpoint sets the organization's webhook endpoint with a new
// signing secret, returned here once; replacing the endpoint rotates the
// secret.
func (a *OrgAdmin) SetWebhookEndpoint(ctx context.Context, rawURL string) (_ Endpoint, _ string, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.SetWebhookEndpoint")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Endpoint{}, "", err
	}
	return a.e.setWebhookEndpoint(ctx, org, rawURL)
}

// UploadProof uploads a funding proof for one of the organization's
// from-bank orders, as Client.UploadProof does, and records it in the
// audit trail with the user as its actor.
func (a *OrgAdmin) UploadProof(ctx context.Context, orderID string, up ProofUpload) (_ orders.Order, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.UploadProof")
	defer span.end(&err)
	ctx, _, err = a.e.adminContext(ctx, a.token)
	if err != nil {
		return orders.Order{}, err
	}
	p, err := a.e.portalPrincipal(ctx, a.token)
	if err != nil {
		return orders.Order{}, err
	}
	return a.e.uploadProof(ctx, p, orderID, up)
}

// WebhookEndpoint reads the organization's webhook endpoint; false when it
// has none.
func (a *OrgAdmin) WebhookEndpoint(ctx context.Context) (_ Endpoint, _ bool, err error) {
	ctx, span := a.span(ctx, "tambala.OrgAdmin.WebhookEndpoint")
	defer span.end(&err)
	ctx, org, err := a.e.adminContext(ctx, a.token)
	if err != nil {
		return Endpoint{}, false, err
	}
	return a.e.webhookEndpoint(ctx, org)
}

// adminContext checks the session of token for an admin's call (as
// Principal does: signed in, its organization active), extends it, and
// returns ctx carrying its user as the audit actor, and the organization.
func (e *Engine) adminContext(ctx context.Context, token string) (context.Context, string, error) {
	var actor AuditActor
	var orgID string
	err := e.store.Update(ctx, func(tx store.Tx) error {
		now := e.nowUTC()
		_, u, err := signedIn(tx, token, now, accounts.Need{Org: true})
		if err != nil {
			return err
		}
		org, err := e.cachedOrg(tx, u.Org, errUnauthorized)
		if err != nil {
			return err
		}
		if org.Status != OrgActive {
			return errSuspended
		}
		actor, orgID = userActor(u.ID, u.Email), u.Org
		return nil
	})
	if err != nil {
		return ctx, "", err
	}
	return asActor(ctx, actor), orgID, nil
}

// auditOrgChange appends change c of organization prev (now next) to the
// audit trail when ctx carries an actor.
func (e *Engine) auditOrgChange(ctx context.Context, tx store.Tx, prev, next Organization, c orgs.Change) error {
	switch c.(type) {
	case orgs.SetAllowlist:
		return e.auditAs(ctx, tx, next.ID, AuditAllowlistChanged, next.ID,
			fmt.Sprintf("allowlist %s -> %s", addrList(prev.Allowlist), addrList(next.Allowlist)))
	case orgs.SetBalanceFloor:
		return e.auditAs(ctx, tx, next.ID, AuditBalanceFloorChanged, next.ID,
			fmt.Sprintf("balance floor %s -> %s", floorText(prev.BalanceFloorMWK), floorText(next.BalanceFloorMWK)))
	case orgs.SetStatus:
		return e.auditAs(ctx, tx, next.ID, AuditOrgStatusChanged, next.ID, fmt.Sprintf("status %s -> %s", prev.Status, next.Status))
	case orgs.SetV2Access:
		return e.auditAs(ctx, tx, next.ID, AuditOrgV2AccessChanged, next.ID, fmt.Sprintf("/v2 access %s -> %s", prev.V2Access, next.V2Access))
	case orgs.SetAssets:
		return e.auditAs(ctx, tx, next.ID, AuditOrgAssetsChanged, next.ID, fmt.Sprintf("assets %s -> %s", assetsText(prev.Assets), assetsText(next.Assets)))
	case orgs.SetPayoutLimits:
		return e.auditAs(ctx, tx, next.ID, AuditPayoutLimitsChanged, next.ID,
			fmt.Sprintf("payout limits %s -> %s", limitsText(prev.PayoutLimits), limitsText(next.PayoutLimits)))
	default:
		return e.auditAs(ctx, tx, next.ID, AuditOrgChanged, next.ID, fmt.Sprintf("%T", c))
	}
}

// assetsText is an organization's asset access for the audit trail.
func assetsText(list []AssetAccess) string {
	s := make([]string, len(list))
	for i, a := range list {
		s[i] = string(a.Asset) + ":" + strings.Join(a.Operations, ",")
	}
	return "[" + strings.Join(s, " ") + "]"
}

// limitsText is an organization's own payout limits for the audit trail
// (unset ones are "default").
func limitsText(p *PayoutLimits) string {
	var l PayoutLimits
	if p != nil {
		l = *p
	}
	amount := func(a money.Amount) string {
		if !a.IsSet() {
			return "default"
		}
		return a.String()
	}
	count := "default"
	if l.HourlyCount > 0 {
		count = fmt.Sprint(l.HourlyCount)
	}
	return fmt.Sprintf("[per payout %s, daily %s, hourly count %s]", amount(l.MaxPerPayoutMWK), amount(l.DailyVolumeMWK), count)
}

func addrList(addrs []netip.Addr) string {
	if len(addrs) == 0 {
		return "[any]"
	}
	s := make([]string, len(addrs))
	for i, a := range addrs {
		s[i] = a.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

func floorText(a money.Amount) string {
	if !a.IsSet() {
		return "none"
	}
	return a.String() + " MWK"
}

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

func (a *OrgAdmin) span(ctx context.Context, name string) (context.Context, span) {
	return a.e.startSpan(ctx, name, trace.SpanKindInternal)
}
