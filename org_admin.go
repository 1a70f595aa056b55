package tambala

import (
	"context"
	"net/netip"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/orders"
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

func (a *OrgAdmin) span(ctx context.Context, name string) (context.Context, span) {
	return a.e.startSpan(ctx, name, trace.SpanKindInternal)
}
